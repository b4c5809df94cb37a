// Logic moved out of the CLI's shell into src/lib (issue 33: workers/ + cli/ ≤ 2,500 lines): the RAGBench subset folder
// of eval-ragbench and the training flags of train-embedder, checked here without a file system or a process.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RagbenchError } from '../../src/lib/data/ragbench.ts';
import { chooseSubsetFiles, readSubsetFiles, type SubsetFiles } from '../../src/lib/data/ragbench-folder.ts';
import { BuildError } from '../../src/lib/kb-build/build-kb.ts';
import { checkTrainFlags, trainedLine } from '../../src/lib/kb-build/train-flags.ts';
import type { TrainSummary } from '../../src/lib/models/corpus-embedder/train.ts';

const RAGBENCH = resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const lines = (subset: string, n: number) => readFileSync(`${RAGBENCH}/${subset}.jsonl`, 'utf8').split('\n').filter(Boolean).slice(0, n);

function folder(files: Record<string, string>): SubsetFiles {
  return { dir: 'd', fileOf: (s) => `d/${s}.jsonl`, exists: (p) => p in files, readText: (p) => files[p]! };
}

describe('a folder of RAGBench subset files (eval-ragbench --data)', () => {
  it('chooses the subsets named, or those the folder holds (and says which)', () => {
    const fs = folder({ 'd/emanual.jsonl': '', 'd/covidqa.jsonl': '' });
    const log: string[] = [];
    expect(chooseSubsetFiles(fs, undefined, (m) => log.push(m))).toEqual(['covidqa', 'emanual']);
    expect(log[0]).toMatch(/^found 2 of \d+ subset files in d: covidqa, emanual$/);
    expect(chooseSubsetFiles(fs, ' emanual, ', () => {})).toEqual(['emanual']);
    expect(() => chooseSubsetFiles(fs, ',', () => {})).toThrow(new RagbenchError('--subsets is empty'));
    expect(() => chooseSubsetFiles(fs, 'techqa', () => {})).toThrow(/^d\/techqa\.jsonl: subset file not found \(subsets: /);
    expect(() => chooseSubsetFiles(folder({}), undefined, () => {})).toThrow(/^nothing to evaluate: d holds no RAGBench subset file/);
  });

  it('reads each subset\'s rows, logs the skipped ones, and refuses empty or unlabelled files in validate mode', () => {
    const rows = lines('emanual', 3);
    const log: string[] = [];
    const data = readSubsetFiles(folder({ 'd/emanual.jsonl': [...rows, '{"id": 1}'].join('\n') }), ['emanual'], 'validate', (m) => log.push(m));
    expect(data.get('emanual')).toHaveLength(3);
    expect(log[0]).toBe('emanual: skipped 1 of 4 rows:');
    expect(() => readSubsetFiles(folder({ 'd/emanual.jsonl': '' }), ['emanual'], 'validate', () => {})).toThrow(new RagbenchError('nothing to evaluate: d/emanual.jsonl has no rows'));
    const unlabelled = rows.map((l) => JSON.stringify({ ...JSON.parse(l), adherence_score: null, relevance_score: null, utilization_score: null, completeness_score: null })).join('\n');
    expect(() => readSubsetFiles(folder({ 'd/emanual.jsonl': unlabelled }), ['emanual'], 'validate', () => {})).toThrow(/^nothing to evaluate: no row of d\/emanual\.jsonl has a gold label/);
    expect(readSubsetFiles(folder({ 'd/emanual.jsonl': unlabelled }), ['emanual'], 'pipeline', () => {}).get('emanual')).toHaveLength(3);
  });
});

describe('train-embedder\'s training flags', () => {
  it('gives only the options set, checked in the order of the help, each fault naming its flag', () => {
    expect(checkTrainFlags({})).toEqual({});
    expect(checkTrainFlags({ dim: '64', seed: '0', 'idf-power': '1.5', analysis: 'words' })).toEqual({ dim: 64, seed: 0, idfPower: 1.5, analysis: 'words' });
    expect(() => checkTrainFlags({ dim: '0', seed: '-1' })).toThrow(new BuildError('--dim must be a whole number ≥ 1, got "0"'));
    expect(() => checkTrainFlags({ 'max-vocab': '2.5' })).toThrow(new BuildError('--max-vocab must be a whole number ≥ 1, got "2.5"'));
    expect(() => checkTrainFlags({ 'idf-power': '9' })).toThrow(new BuildError('--idf-power must be a number from 0 to 8, got "9"'));
    expect(() => checkTrainFlags({ analysis: 'lemmas' })).toThrow(new BuildError('--analysis must be one of words, stems, got lemmas'));
  });

  it('says what was trained, from what, where it went and how to load it', () => {
    const s = { method: 'lsi', documents: 120, vocabulary: 900, tokens: 1405, dim: 64, requestedDim: 64, seconds: 1.234, singularValues: [], notes: [] } as unknown as TrainSummary;
    expect(trainedLine(s, { id: 'corpus/x', analysis: 'stems', chunked: true, out: '/m/corpus/x', bytes: 2_500_000, modelsDir: '/m' }))
      .toBe('trained corpus/x: corpus-trained LSI, 64-d, 900 terms (stems; 1400 surface words), 120 chunks in 1.2 s; wrote /m/corpus/x (2.5 MB): use --models-dir /m --embedder corpus/x');
    expect(trainedLine(s, { id: 'corpus/x', analysis: 'words', chunked: false, out: '/m/corpus/x', bytes: 1e6, modelsDir: '/m' })).toMatch(/900 terms, 120 documents in/);
  });
});
