/**
 * A retrieval benchmark never silently uses an embedder trained on another corpus (issue 32): the decision
 * (run-embedder.ts chooseRunEmbedder) on hand-made cases, then the Benchmark tab's session with a fake models
 * service: another corpus's loaded model skips the dense modes with the reason and the report names no embedder; a
 * model of this browser trained on the dataset is loaded and recorded with its corpus and hash; another corpus's
 * model picked explicitly runs and is labelled "trained on <corpus>" in the notes, config and environment.
 */
import { describe, expect, test } from 'vitest';
import type { BeirFileEntry } from '../../src/lib/data/beir-folder.ts';
import type { RetrievalBenchConfig } from '../../src/lib/eval/retrieval/retrieval-tab-config.ts';
import { BenchRetrievalSession } from '../../src/lib/eval/retrieval/retrieval-tab-session.ts';
import { MemoryRetrievalRowCache } from '../../src/lib/eval/retrieval/retrieval-cache.ts';
import type { ModelService } from '../../src/lib/eval/retrieval/retrieval-request.ts';
import { chooseRunEmbedder, datasetCorpusHash, type TrainedRef } from '../../src/lib/eval/retrieval/run-embedder.ts';
import { buildRunKb, runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { parseCorpus } from '../../src/lib/data/beir.ts';
import { corpusHashOf } from '../../src/lib/models/corpus-embedder/corpus-hash.ts';
import type { ModelSpec } from '../../src/lib/models/types.ts';
import { MemoryLocalKbStore } from '../../src/lib/store/local-kb-store.ts';

const H = 'a'.repeat(64), OTHER = 'b'.repeat(64);
const holdout: TrainedRef = { id: 'corpus/holdout-manuals-lsi256', kbTitle: 'Holdout manuals', corpusHash: OTHER };
const own: TrainedRef = { id: 'corpus/bench-toy-lsi256', kbTitle: 'toy', corpusHash: H };

describe('chooseRunEmbedder', () => {
  test('automatic: a pretrained loaded embedder runs; one trained on another corpus never does', () => {
    expect(chooseRunEmbedder({ loaded: 'Xenova/all-MiniLM-L6-v2', trained: [holdout], datasetHash: H, pick: 'auto' }))
      .toEqual({ kind: 'loaded', id: 'Xenova/all-MiniLM-L6-v2', corpus: null });
    const none = chooseRunEmbedder({ loaded: holdout.id, trained: [holdout], datasetHash: H, pick: 'auto' });
    expect(none.kind).toBe('none');
    expect(none.kind === 'none' && none.reason).toContain('corpus/holdout-manuals-lsi256 was trained on Holdout manuals, not on this dataset');
    // a trained id whose record is gone is not known to belong here either
    expect(chooseRunEmbedder({ loaded: holdout.id, trained: [], datasetHash: H, pick: 'auto' }).kind).toBe('none');
    // nothing loaded (the tab did not load another corpus's model for its knowledge base): that model is still named
    const unloaded = chooseRunEmbedder({ loaded: null, trained: [holdout], datasetHash: H, pick: 'auto' });
    expect(unloaded).toEqual({ kind: 'none', reason: expect.stringContaining('train a corpus embedder on this dataset') });
    expect(unloaded.kind === 'none' && unloaded.reason).toContain('corpus/holdout-manuals-lsi256 was trained on Holdout manuals, not on this dataset, so it is not used');
    expect(chooseRunEmbedder({ loaded: null, trained: [], datasetHash: H, pick: 'auto' }))
      .toEqual({ kind: 'none', reason: expect.stringMatching(/^no embedding model is loaded and none was trained on this dataset/) });
  });

  test('automatic: the dataset\'s own trained model is used, loaded when another is loaded', () => {
    expect(chooseRunEmbedder({ loaded: own.id, trained: [holdout, own], datasetHash: H, pick: 'auto' }))
      .toEqual({ kind: 'loaded', id: own.id, corpus: { title: 'toy', corpusHash: H, thisDataset: true } });
    expect(chooseRunEmbedder({ loaded: holdout.id, trained: [holdout, own], datasetHash: H, pick: 'auto' }))
      .toEqual({ kind: 'load', id: own.id, corpus: { title: 'toy', corpusHash: H, thisDataset: true } });
  });

  test('picked explicitly: another corpus\'s model runs, labelled with that corpus', () => {
    expect(chooseRunEmbedder({ loaded: holdout.id, trained: [holdout, own], datasetHash: H, pick: { id: holdout.id } }))
      .toEqual({ kind: 'loaded', id: holdout.id, corpus: { title: 'Holdout manuals', corpusHash: OTHER, thisDataset: false } });
    expect(chooseRunEmbedder({ loaded: null, trained: [holdout], datasetHash: H, pick: { id: holdout.id } }).kind).toBe('load');
    expect(chooseRunEmbedder({ loaded: null, trained: [], datasetHash: H, pick: { id: 'x/y' } }).kind).toBe('none');
  });
});

const corpus = ['{"_id":"d1","title":"Alpha","text":"alpha particles decay"}', '{"_id":"d2","title":"Beta","text":"beta waves in sleep"}', '{"_id":"d3","title":"Gamma","text":"gamma rays from stars"}'].join('\n');
const entries = (files: Record<string, string>): BeirFileEntry[] => Object.entries(files).map(([path, text]) => ({ path, read: async () => text }));
const folder = entries({
  'toy/corpus.jsonl': corpus,
  'toy/queries.jsonl': ['{"_id":"q1","text":"alpha decay"}', '{"_id":"q2","text":"sleep waves"}'].join('\n'),
  'toy/qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n',
});
const unused = () => { throw new Error('not used'); };
const never = new AbortController().signal;
const config = (over: Partial<RetrievalBenchConfig> = {}): RetrievalBenchConfig => ({ source: { kind: 'files' }, modes: ['sparse', 'dense'], split: 'test', maxQueries: null, seed: 0, predictors: false, ...over });

/** A models service holding `loaded` as its embedder: letter counts as vectors; `loadEmbedder` swaps it. */
function fakeModels(loaded: string | null) {
  const state = { id: loaded, loads: [] as string[] };
  const vec = (t: string) => { const v = new Float32Array(4); for (const ch of t) v[ch.charCodeAt(0) % 4]! += 1; return v; };
  const m: ModelService = {
    loaded: async () => (state.id ? [{ task: 'embedder', spec: { id: state.id, dtype: 'q8', device: 'wasm' } satisfies ModelSpec, dim: 4 }] : []),
    embed: async (texts) => { const out = new Float32Array(texts.length * 4); texts.forEach((t, i) => out.set(vec(t), i * 4)); return out; },
    rerank: async (_q, ps) => ps.map(() => 0),
    loadEmbedder: async (spec) => { state.id = spec.id; state.loads.push(spec.id); },
  };
  return { m, state };
}

async function sessionWith(trained: TrainedRef[]) {
  const s = new BenchRetrievalSession({
    artifacts: { hubSource: unused, openArtifact: unused }, localKbs: () => new MemoryLocalKbStore(), cache: new MemoryRetrievalRowCache(),
    runtime: { runtime: 'node', agent: 'test' }, trained: async () => trained,
  });
  await s.loadFolder(folder);
  return s;
}

describe('the Benchmark session and a corpus-trained embedder', () => {
  test('the dataset\'s training texts are the run\'s items, so their hash is what a model trained on them records', async () => {
    const s = await sessionWith([]);
    const t = await s.trainingTexts(config(), null, () => {});
    expect(t.texts).toHaveLength(3);
    expect(t.kbId).toBe('bench:toy');
    const kb = buildRunKb(parseCorpus(corpus, 'corpus.jsonl'), runSettings('default'));
    expect(await corpusHashOf(t.texts)).toBe(await datasetCorpusHash(kb));
    // seed B's protocol trains on its chunks: another corpus, another id
    expect((await s.trainingTexts(config({ protocol: 'seed-b' }), null, () => {})).kbId).toBe('bench:toy:c800-120');
  });

  test('another corpus\'s loaded model is not used: dense skipped with the reason, the report names no embedder', async () => {
    const s = await sessionWith([holdout]);
    const { m, state } = fakeModels(holdout.id);
    const r = await s.run(config(), null, m, never, () => {});
    expect(r.modes.map((x) => x.mode)).toEqual(['sparse']);
    expect(r.skipped).toEqual([{ mode: 'dense', reason: expect.stringContaining('trained on Holdout manuals, not on this dataset') }]);
    expect(r.embedder).toBeNull();
    expect(r.report.environment.models).toEqual([]);
    expect(r.report.config['embedder']).toBeNull();
    expect(state.loads).toEqual([]);
  });

  test('a model trained on this dataset is loaded for the run and recorded with its corpus and hash', async () => {
    const kb = buildRunKb(parseCorpus(corpus, 'corpus.jsonl'), runSettings('default'));
    const mine: TrainedRef = { id: 'corpus/bench-toy-lsi256', kbTitle: 'toy', corpusHash: await datasetCorpusHash(kb) };
    const s = await sessionWith([holdout, mine]);
    const { m, state } = fakeModels(holdout.id);
    const r = await s.run(config(), null, m, never, () => {});
    expect(state.loads).toEqual([mine.id]);
    expect(r.modes.map((x) => x.mode)).toEqual(['sparse', 'dense']);
    expect(r.embedder).toEqual({ id: `${mine.id}@q8`, corpus: { title: 'toy', corpusHash: mine.corpusHash, thisDataset: true } });
    expect(r.report.environment.models).toEqual([{ task: 'embedder', id: mine.id, dtype: 'q8', device: 'wasm', trainedOn: 'toy', corpusSha256: mine.corpusHash, thisDataset: true }]);
    expect(r.report.config['embedderTrainedOn']).toEqual({ title: 'toy', corpusSha256: mine.corpusHash, thisDataset: true });
  });

  test('another corpus\'s model picked explicitly runs, labelled "trained on <corpus>"', async () => {
    const s = await sessionWith([holdout]);
    const { m } = fakeModels(holdout.id);
    const r = await s.run(config({ embedder: { id: holdout.id } }), null, m, never, () => {});
    expect(r.modes.map((x) => x.mode)).toEqual(['sparse', 'dense']);
    expect(r.notes).toContain('the dense modes use corpus/holdout-manuals-lsi256, trained on Holdout manuals, another corpus than this dataset (chosen explicitly)');
    expect(r.report.environment.models[0]).toMatchObject({ id: holdout.id, trainedOn: 'Holdout manuals', corpusSha256: OTHER, thisDataset: false });
    expect(r.report.config['embedderTrainedOn']).toEqual({ title: 'Holdout manuals', corpusSha256: OTHER, thisDataset: false });
  });
});
