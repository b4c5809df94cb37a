/** ragbench-run-settings.ts: a RAGBench run's evaluator settings, report config and session options from plain options. */
import { describe, expect, it } from 'vitest';
import type { RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { ragbenchRunSettings, type RagbenchRunOptions } from '../../src/lib/eval/ragbench-run/ragbench-run-settings.ts';
import { DEFAULT_MODELS } from '../../src/lib/models/registry.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }) as unknown as RagbenchRow);
const data = new Map([['hagrid', rows(3)], ['covidqa', rows(2)]]);
const base: RagbenchRunOptions = {
  mode: 'validate', data, n: undefined, seed: 4, evaluator: 'lexical', repeats: 1, temperature: undefined, api: null, rag: null,
  modelIds: { dtype: 'fp32' }, device: 'cpu', bootstrap: 1000, concurrency: 2, runtime: { runtime: 'node', agent: 'node test' },
  source: 'local', withReport: true, redact: (m) => m.replace('secret', '[redacted]'),
};

describe('ragbenchRunSettings', () => {
  it('lexical validate: no judge, no models; the report config under the BenchConfig names, in order', () => {
    const r = ragbenchRunSettings(base);
    expect(r.session.settings).toEqual({ judge: null, nliModels: null });
    expect(r.models.loaded).toEqual([]);
    expect('n' in r.session).toBe(false);
    expect(r.session.subsets.map((s) => [s.subset, s.rows.length])).toEqual([['hagrid', 3], ['covidqa', 2]]);
    expect(r.session).toMatchObject({ evaluator: 'lexical', seed: 4, concurrency: 2, bootstrap: 1000, withReport: true });
    expect(r.session.redact!('a secret')).toBe('a [redacted]');
    const report = r.session.report;
    expect(report).toMatchObject({ source: 'local', revision: null, environment: { runtime: 'node', agent: 'node test', models: [] } });
    expect(JSON.stringify(report.config)).toBe(JSON.stringify({
      mode: 'validate', subsets: ['hagrid', 'covidqa'], n: null, seed: 4, evaluator: 'lexical', judge: null, rag: null, nliModels: null,
      localSubsets: ['hagrid', 'covidqa'], bootstrap: 1000, concurrency: 2, datasetsHost: null, hubUrl: null,
    }));
  });

  it('the LLM judge: its provider, endpoint, model, repeats and temperature; the report adds the rate limits', () => {
    const api = { providerId: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', limits: { rpm: 30 } };
    const r = ragbenchRunSettings({ ...base, evaluator: 'llm', n: 5, repeats: 3, temperature: 0.7, api });
    expect(r.session.settings.judge).toEqual({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', repeats: 3, temperature: 0.7 });
    expect(r.session.n).toBe(5);
    expect(r.session.report.config['judge']).toEqual({ provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', repeats: 3, temperature: 0.7, rpm: 30, tpm: null });
    // An API run whose evaluator is not the judge (pipeline mode, lexical scores) has no judge settings.
    expect(ragbenchRunSettings({ ...base, mode: 'pipeline', rag: cloneConfig(DEFAULT_RAG_CONFIG), api }).session.settings.judge).toBeNull();
  });

  it('the NLI evaluator: its models as id@dtype in the settings, and in the report\'s environment on the device', () => {
    const r = ragbenchRunSettings({ ...base, evaluator: 'nli', modelIds: { nli: 'x/nli', dtype: 'q8' } });
    expect(r.session.settings.nliModels).toEqual({ nli: 'x/nli@q8', reranker: `${DEFAULT_MODELS['cross-encoder']}@q8` });
    expect(r.session.report.config['nliModels']).toEqual(r.session.settings.nliModels);
    expect(r.session.report.environment.models.map((m) => `${m.task} ${m.id} ${m.device}`)).toEqual([`cross-encoder ${DEFAULT_MODELS['cross-encoder']} cpu`, 'nli x/nli cpu']);
  });

  it('pipeline: the pipeline settings copied into the report, the models its retrieval needs', () => {
    const rag = cloneConfig(DEFAULT_RAG_CONFIG);
    rag.retrieval.mode = 'dense';
    const r = ragbenchRunSettings({ ...base, mode: 'pipeline', rag, modelIds: { embedder: 'e/1', dtype: 'fp32' } });
    expect(r.needs).toEqual({ embedder: true, reranker: false, nli: false, search: true, dense: true });
    expect(r.session.report.config['rag']).toEqual(JSON.parse(JSON.stringify(rag)));
    expect(r.session.report.config['rag']).not.toBe(rag);
    expect(r.session.report.environment.models).toEqual([{ task: 'embedder', id: 'e/1', dtype: 'fp32', device: 'cpu' }]);
  });

  const api = { providerId: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', limits: null };
  it("RAGAS: answer relevancy's embedder is dense retrieval's or the one named, loaded without attaching vectors; none otherwise", () => {
    const sparse = cloneConfig(DEFAULT_RAG_CONFIG);
    const named = ragbenchRunSettings({ ...base, evaluator: 'ragas', mode: 'pipeline', rag: sparse, api, modelIds: { embedder: 'e/1', dtype: 'q8' } });
    expect(named.session.settings.ragas).toEqual({ embedder: 'e/1@q8' });
    expect(named.needs).toMatchObject({ embedder: true, dense: false, search: false });
    expect(named.session.report.environment.models.map((m) => m.task)).toEqual(['embedder']);
    const none = ragbenchRunSettings({ ...base, evaluator: 'ragas', mode: 'pipeline', rag: sparse, api });
    expect(none.session.settings.ragas).toEqual({ embedder: null });
    expect(none.needs).toMatchObject({ embedder: false, dense: false });
    const dense = cloneConfig(DEFAULT_RAG_CONFIG);
    dense.retrieval.mode = 'dense';
    expect(ragbenchRunSettings({ ...base, evaluator: 'ragas', mode: 'pipeline', rag: dense, api }).session.settings.ragas).toEqual({ embedder: `${DEFAULT_MODELS.embedder}@fp32` });
    expect(ragbenchRunSettings({ ...base, evaluator: 'lexical' }).session.settings).not.toHaveProperty('ragas');
  });
});
