/**
 * `rag-lab train-embedder` on a small generated BEIR folder (tests/helpers/topic-corpus.ts, not SciFact): the
 * written folder loads as any model through --models-dir/--embedder in eval-beir, build-index and search (the
 * command functions called in-process), and its faults are one line with exit 2.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../cli/args.ts';
import { buildIndexCommand } from '../../cli/build-index.ts';
import { evalBeirCommand } from '../../cli/eval-beir.ts';
import { searchCommand } from '../../cli/search.ts';
import { trainEmbedderCommand } from '../../cli/train-embedder.ts';
import { folderSource } from '../../cli/folder-source.ts';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import { kbTrainingTexts } from '../../src/lib/models/corpus-embedder/corpus-hash.ts';
import { trainCorpusEmbedder } from '../../src/lib/models/corpus-embedder/train.ts';
import { runCli } from '../helpers/cli.ts';
import { TOPICS, topicCorpus } from '../helpers/topic-corpus.ts';

let root: string;
let beir: string;
const models = () => join(root, 'models');

/** Runs a command in-process and returns what it printed on stdout. */
async function stdoutOf(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await run();
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return lines;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rag-lab-train-embedder-'));
  beir = join(root, 'topics');
  mkdirSync(join(beir, 'qrels'), { recursive: true });
  const docs = topicCorpus(15, 2);
  writeFileSync(join(beir, 'corpus.jsonl'), docs.map((d) => JSON.stringify({ _id: d.id, title: d.title, text: d.text })).join('\n') + '\n');
  // Each query takes two words of a topic; every document of that topic is relevant.
  const queries = Object.entries(TOPICS).map(([topic, words], i) => ({ _id: `q${i}`, topic, text: `${words[0]} ${words[1]}` }));
  writeFileSync(join(beir, 'queries.jsonl'), queries.map((q) => JSON.stringify({ _id: q._id, text: q.text })).join('\n') + '\n');
  const qrels = queries.flatMap((q) => docs.filter((d) => d.topic === q.topic).map((d) => `${q._id}\t${d.id}\t1`));
  writeFileSync(join(beir, 'qrels/test.tsv'), ['query-id\tcorpus-id\tscore', ...qrels].join('\n') + '\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('rag-lab train-embedder', () => {
  it('writes a model folder that eval-beir, build-index and search load with --models-dir/--embedder', async () => {
    const out = join(models(), 'corpus/topics-lsi8');
    const trained = await stdoutOf(() => trainEmbedderCommand(['--data', beir, '--out', out, '--dim', '8', '--json']));
    const summary = JSON.parse(trained.at(-1)!);
    expect(summary).toMatchObject({ method: 'lsi', documents: 60, dim: 8, id: 'corpus/topics-lsi8', notes: [] });
    expect(readdirSync(out).sort()).toEqual(['config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json']);
    expect(readdirSync(join(out, 'onnx')).sort()).toEqual(['model.onnx', 'model_quantized.onnx']);
    expect(readdirSync(join(models(), 'corpus'))).toEqual(['topics-lsi8']); // no staging folder left behind
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).corpus_embedder.trained_on).toBe('BEIR folder topics');

    const modelFlags = ['--models-dir', models(), '--embedder', 'corpus/topics-lsi8', '--no-cache'];
    const evalOut = await stdoutOf(() => evalBeirCommand(['--data', beir, '--modes', 'sparse,dense', '--json', '--no-predictors', ...modelFlags]));
    const result = JSON.parse(evalOut.at(-1)!);
    expect(result.queries).toBe(4);
    expect(result.modes.dense['ndcg@10']).toBeGreaterThan(0.9);
    expect(result.skipped).toEqual({});

    const art = join(root, 'artifact');
    await stdoutOf(() => buildIndexCommand(['--data', beir, '--out', art, ...modelFlags.slice(0, 4)]));
    const found = await stdoutOf(() => searchCommand(['--kb', art, '--mode', 'dense', '--json', ...modelFlags.slice(0, 4), 'comet telescope']));
    const hits = JSON.parse(found.at(-1)!).results[0].hits as { docId: string; score: number }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.docId.startsWith('space-'))).toBe(true);

    // A chunked artifact as a --data source: the CLI learns from the knowledge base's items (its chunks) as the tab
    // does (kbTrainingTexts over the opened artifact), so both write the same model.
    const chunked = join(root, 'chunked');
    await stdoutOf(() => buildIndexCommand(['--data', beir, '--out', chunked, '--chunk', '60/10']));
    const fromArtifact = join(models(), 'corpus/artifact-lsi8');
    await stdoutOf(() => trainEmbedderCommand(['--data', chunked, '--out', fromArtifact, '--dim', '8']));
    const opened = await openArtifact(folderSource(chunked), 'topics', { dense: 'none' });
    expect(opened.kb.size).toBeGreaterThan(opened.kb.docs.length);
    const trainedOn = JSON.parse(readFileSync(join(fromArtifact, 'config.json'), 'utf8')).corpus_embedder.trained_on as string;
    const tab = await trainCorpusEmbedder(kbTrainingTexts(opened.kb), { dim: 8, trainedOn });
    expect(new Uint8Array(readFileSync(join(fromArtifact, 'onnx/model.onnx')))).toEqual(tab.files['onnx/model.onnx']);
    expect(new Uint8Array(readFileSync(join(fromArtifact, 'tokenizer.json')))).toEqual(tab.files['tokenizer.json']);
  });

  it('refuses a non-empty --out, a one-document corpus and bad flags with one line', async () => {
    const busy = join(root, 'busy');
    mkdirSync(busy, { recursive: true });
    writeFileSync(join(busy, 'x'), 'x');
    await expect(trainEmbedderCommand(['--data', beir, '--out', busy])).rejects.toThrow(new CliError(`--out ${busy}: the folder exists and is not empty (remove it or give a new folder)`));
    await expect(trainEmbedderCommand(['--data', beir, '--out', join(root, 'm/a/b'), '--dim', '0'])).rejects.toThrow('--dim must be a whole number ≥ 1, got "0"');
    const one = join(root, 'one');
    mkdirSync(one);
    writeFileSync(join(one, 'only.txt'), 'A single document cannot train a model.');
    const r = await runCli(['train-embedder', '--data', one, '--out', join(root, 'm/one')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn')).at(-1)).toBe(`rag-lab train-embedder: --data ${one}: training needs at least 32 chunks (documents), got 1: too small for a corpus embedder (use BM25, or a pretrained embedder, on it)`);
    expect(existsSync(join(root, 'm/one'))).toBe(false);
  });

  it('--analysis stems trains on BM25\'s stems and records it; an unknown analysis is refused', async () => {
    const out = join(root, 'stems/corpus/topics-stems');
    const summary = JSON.parse((await stdoutOf(() => trainEmbedderCommand(['--data', beir, '--out', out, '--dim', '8', '--analysis', 'stems', '--json']))).at(-1)!);
    expect(summary.tokens).toBeGreaterThanOrEqual(summary.vocabulary + 5); // each stem has at least one surface word
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).corpus_embedder).toMatchObject({ analysis: 'stems', vocabulary: summary.vocabulary, tokens: summary.tokens });
    await expect(trainEmbedderCommand(['--data', beir, '--out', join(root, 'm/x'), '--analysis', 'lemmas'])).rejects.toThrow(new CliError('--analysis must be one of words, stems, got lemmas'));
  });
});
