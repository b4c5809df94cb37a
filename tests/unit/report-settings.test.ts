/**
 * Every setting that changes a number is recorded in the report and shown by Compare's config diff, for every run
 * kind: the retrieval benchmark's settings (RetrievalRunSettings, the tab's form and eval-beir's flags map onto it),
 * the RAGBench evaluators' settings (EvaluatorSettings: judge and NLI models) and the session's own (bootstrap
 * resamples). The fixtures are typed so a setting added later must be added here, and then fails unless recorded.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { MemoryResultStore } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import { EVALUATOR_IDS, type EvaluatorSettings } from '../../src/lib/eval/score/evaluators.ts';
import { buildRunKb, DEFAULT_RUN_SETTINGS, retrievalRunConfig, runSettings, type RetrievalRunSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { runValidateSession, scoringRecord, sessionReportConfig } from '../../src/lib/eval/ragbench-run/ragbench-loops.ts';
import { configDiff, flatConfig } from '../../src/lib/reports/compare.ts';
import type { JsonValue, Report } from '../../src/lib/reports/format.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

/** Every field required and set (nested objects too), so a new field is a compile error until it is listed here. */
type Full<T> = { [K in keyof T]-?: NonNullable<T[K]> };

const DOCS: SourceDocument[] = [
  { id: 'a', title: '', text: 'The runner was running in the park. '.repeat(20) },
  { id: 'b', title: '', text: 'Cats sleep all day and dream of fish. '.repeat(20) },
];
const ID = { dataKey: 'beir:0', dataset: 'toy', kb: null, embedder: 'e@q8', reranker: 'r@fp32' };

const SETTINGS: Full<RetrievalRunSettings> = {
  protocol: 'seed-b', depth: 50, candidateK: 30, bm25K: 12, denseK: 44, fusionTopK: 25, calibration: 'minmax', entropyBasis: 'raw', alpha: 0.7, growPool: false,
  chunking: { chunkSize: 400, overlap: 40, separators: ['\n\n', ' '] }, bm25: { k1: 1.1, b: 0.6 }, analyzer: 'plain',
  resamples: 500, predictors: false, split: 'dev', maxQueries: 7, seed: 3, index: 'hnsw',
};

/** Where each setting is recorded in the report's config (dotted paths) and the value it must show. */
const RECORDED: Record<keyof RetrievalRunSettings, Array<[string, string]>> = {
  protocol: [['protocol', 'seed-b']], depth: [['depth', '50']], candidateK: [['candidateK', '30']],
  bm25K: [['bm25K', '12']], denseK: [['denseK', '44']], fusionTopK: [['fusionTopK', '25']], calibration: [['calibration', 'minmax']],
  entropyBasis: [['entropyBasis', 'raw']], alpha: [['alpha', '0.7']], growPool: [['growPool', 'false']], chunking: [['chunking.chunkSize', '400'], ['chunking.overlap', '40']],
  bm25: [['k1', '1.1'], ['b', '0.6']], analyzer: [['analyzer', 'plain']], resamples: [['resamples', '500']], predictors: [['predictors', 'false']],
  split: [['split', 'dev']], maxQueries: [['maxQueries', '7']], seed: [['seed', '3']], index: [['index', 'hnsw']],
};

const reportWith = (kind: Report['kind'], config: Record<string, JsonValue>, id: string): Report =>
  testReport([validateRow(0, 0.5, true), validateRow(1, 0.2, false)], { kind, config, id });

async function retrievalConfig(s: RetrievalRunSettings) {
  return (await retrievalRunConfig(s, buildRunKb(DOCS, s), ID, { modes: ['sparse', 'dense'] })).config;
}

describe('retrieval benchmark reports record every run setting', () => {
  it('each setting is in the config with its value, and the config diff shows it on both sides', async () => {
    expect(Object.keys(RECORDED).sort()).toEqual(Object.keys(DEFAULT_RUN_SETTINGS).sort());
    const s = runSettings('seed-b', SETTINGS);
    const ours = reportWith('retrieval', await retrievalConfig(s), 'settings-retr-a');
    const other = reportWith('retrieval', await retrievalConfig(runSettings('default')), 'settings-retr-b');
    const flat = flatConfig(ours);
    const diff = new Map(configDiff([ours, other]).map((d) => [d.path, d]));
    for (const [setting, paths] of Object.entries(RECORDED)) {
      for (const [path, value] of paths) {
        expect(flat.get(`config.${path}`), `${setting} → config.${path}`).toBe(value);
        const row = diff.get(`config.${path}`);
        expect(row, `${setting} in the config diff`).toBeDefined();
        expect(Object.values(row!.values).every((x) => x !== '—'), `${setting}: both reports record config.${path}`).toBe(true);
        expect(row!.differs, `${setting} differs from the default run`).toBe(true);
      }
    }
  });
});

const JUDGE: Full<NonNullable<EvaluatorSettings['judge']>> = { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'judge-m', repeats: 3, temperature: 0.4 };
const NLI: Full<NonNullable<EvaluatorSettings['nliModels']>> = { nli: 'nli@q8', reranker: 'ce@fp32' };
const RAGAS: Full<NonNullable<EvaluatorSettings['ragas']>> = { embedder: 'emb@q8' };
const FULL: Full<EvaluatorSettings> = { judge: JUDGE, nliModels: NLI, ragas: RAGAS };
/** Which settings each evaluator's scores depend on (RAGAS: one judge call per step, so no repeats). */
const { repeats: _repeats, ...RAGAS_JUDGE } = JUDGE;
const USES: Record<(typeof EVALUATOR_IDS)[number], Record<string, JsonValue>> = {
  lexical: {}, nli: { ...NLI }, llm: { ...JUDGE }, ragas: { ...RAGAS_JUDGE, ...RAGAS },
};
/** A value changed in every field. */
const other = (x: JsonValue): JsonValue => (typeof x === 'number' ? x + 1 : typeof x === 'string' ? `${x}-2` : x);

describe('RAGBench reports record every evaluator setting and the bootstrap', () => {
  it('each setting of the evaluator is under config.scoring, and the config diff shows it', () => {
    expect(Object.keys(USES).sort()).toEqual([...EVALUATOR_IDS].sort());
    for (const evaluator of EVALUATOR_IDS) {
      const changed: EvaluatorSettings = {
        judge: Object.fromEntries(Object.entries(JUDGE).map(([k, x]) => [k, other(x)])) as typeof JUDGE,
        nliModels: Object.fromEntries(Object.entries(NLI).map(([k, x]) => [k, other(x)])) as typeof NLI,
        ragas: { embedder: other(RAGAS.embedder) as string },
      };
      // The tab records its BenchConfig, the CLI its flags under the same names: the session adds the same keys to both.
      const tab = reportWith('ragbench-validate', sessionReportConfig({ evaluator, settings: FULL, report: { config: { mode: 'validate', evaluator }, environment: { runtime: 'browser', agent: 'x', models: [] }, source: 'hub' } }, 1000), 'settings-tab-1');
      const cli = reportWith('ragbench-validate', sessionReportConfig({ evaluator, settings: changed, report: { config: { mode: 'validate', evaluator, bootstrap: 200, concurrency: 4 }, environment: { runtime: 'node', agent: 'x', models: [] }, source: 'local' } }, 200), 'settings-cli-1');
      const flat = flatConfig(tab);
      const diff = new Map(configDiff([tab, cli]).map((d) => [d.path, d]));
      expect(flat.get('config.scoring.evaluator')).toBe(evaluator);
      for (const [key, value] of Object.entries(USES[evaluator])) {
        expect(flat.get(`config.scoring.${key}`), `${evaluator}: ${key}`).toBe(String(value));
        const row = diff.get(`config.scoring.${key}`)!;
        expect(row, `${evaluator}: ${key} in the diff`).toBeDefined();
        expect(row.differs && Object.values(row.values).every((x) => x !== '—'), `${evaluator}: ${key} shown on both sides`).toBe(true);
      }
      expect(diff.get('config.bootstrap')).toMatchObject({ values: { 'settings-tab-1': '1000', 'settings-cli-1': '200' }, differs: true });
    }
  });

  it('the judge temperature is recorded when left to its default, so a run with one given differs visibly', () => {
    const { temperature: _t, ...noTemperature } = JUDGE;
    expect(scoringRecord('llm', { judge: noTemperature })['temperature']).toBe(0);
    expect(scoringRecord('ragas', { judge: noTemperature, ragas: { embedder: null } })).toMatchObject({ temperature: 0, embedder: null });
  });

  it('a validate session writes the scoring settings and its bootstrap resamples into the report', async () => {
    const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
    const rows = parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows.slice(0, 6);
    const s = await runValidateSession({
      evaluator: 'lexical', settings: {}, deps: {}, subsets: [{ subset: 'emanual', rows }], store: new MemoryResultStore(), seed: 1, bootstrap: 50,
      report: { config: { mode: 'validate', evaluator: 'lexical' }, environment: { runtime: 'node', agent: 'test', models: [] }, source: 'local' },
    });
    expect(s.report!.config).toMatchObject({ mode: 'validate', bootstrap: 50, scoring: { evaluator: 'lexical' } });
  });
});
