/**
 * The Tune panel's session on a small generated corpus (no browser): test sets imported and made from pseudo-queries,
 * stored with the knowledge base's content hash (stale after it changes), exported as BEIR files; a tune on one,
 * its winner as Search settings with their diff; one tune at a time; bad budgets and foreign test sets refused. And
 * the search's own BM25 (bm25-variant.ts): the same scores as a knowledge base built with those k1 / b.
 */
import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { withSearchBm25 } from '../../src/lib/retrieval/bm25-variant.ts';
import type { KbInfo } from '../../src/lib/rag/kb-contract.ts';
import { SEARCH_DEFAULTS } from '../../src/lib/settings/search.ts';
import { memoryTestSetStore } from '../../src/lib/store/test-set-store.ts';
import { memoryReplyCache } from '../../src/lib/tune/llm-test-set.ts';
import { adoptOf, TuneTabSession } from '../../src/lib/tune/tune-tab-session.ts';
import { RUN_DEFAULTS, type RunFlat } from '../../src/lib/settings/retrieval-run.ts';
import type { TuneResult } from '../../src/lib/tune/tune-session.ts';
import { attachKbVectors } from '../../src/lib/rag/kb-vectors.ts';
import type { TextEmbedder } from '../../src/lib/models/types.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';
import type { RetrievalRowCache } from '../../src/lib/eval/retrieval/retrieval-bench.ts';
import type { ReportRow } from '../../src/lib/reports/format.ts';

const docs = topicCorpus(12, 3);
const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
const info = (corpusHash: string): KbInfo => ({
  corpusId: 'local:topics', descriptor: { id: 'local:topics', title: 'Topics', description: '', fields: [], examples: [], placeholder: '', source: { kind: 'local', name: 'topics' } },
  facets: [], documents: docs.length, items: kb.size, source: 'built', cacheNote: null, buildMs: 0, revisionSha: null, dense: null, corpusHash, artifactEmbedder: null, notes: [],
});

function session(hash = { value: 'h1' }, cache: RetrievalRowCache | null = null, store = memoryTestSetStore()) {
  return new TuneTabSession({
    context: () => ({ kb, info: info(hash.value), models: {}, embedder: null, reranker: null }),
    store, replies: memoryReplyCache(), cache, runtime: { runtime: 'node', agent: 'test' },
  });
}
/** The row cache as IndexedDB keeps it across a reload: a map, counting what was read back and what was computed. */
function rowCache() {
  const rows = new Map<string, ReportRow>();
  const c = { hits: 0, put: [] as string[], rows };
  const cache: RetrievalRowCache = {
    get: async (h, k) => { const r = rows.get(`${h}|${k}`); if (r) c.hits++; return r && structuredClone(r); },
    put: async (h, k, r) => { c.put.push(`${h}|${k}`); rows.set(`${h}|${k}`, structuredClone(r)); },
  };
  return { c, cache };
}
// A question per document: its title's two words and two of its body's, judged by its id.
const jsonl = docs.map((d) => JSON.stringify({ question: `${d.title} ${d.text.split(' ').slice(2, 4).join(' ')}`, doc_id: d.id })).join('\n');

describe('the search\'s own BM25', () => {
  it('scores as a knowledge base built with those k1 and b; null keeps the knowledge base itself; the variant is made once', async () => {
    const built = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0, bm25: { k1: 1.7, b: 0.3 } });
    const q = 'river flood delta';
    const viaOptions = await search(kb, q, { mode: 'sparse', topK: 10, k1: 1.7, b: 0.3 });
    const direct = await search(built, q, { mode: 'sparse', topK: 10 });
    expect(viaOptions.hits.map((h) => [h.id, h.score])).toEqual(direct.hits.map((h) => [h.id, h.score]));
    expect((await search(kb, q, { mode: 'sparse', topK: 10 })).hits.map((h) => h.score)).not.toEqual(direct.hits.map((h) => h.score));
    expect(withSearchBm25(kb, null, null)).toBe(kb);
    expect(withSearchBm25(kb, kb.options.bm25.k1, null)).toBe(kb);
    expect(withSearchBm25(kb, 1.7, 0.3)).toBe(withSearchBm25(kb, 1.7, 0.3));
  });
});

describe('the Tune panel session', () => {
  it('imports a test set, keeps its provenance, says when the knowledge base changed, and exports BEIR files', async () => {
    const hash = { value: 'h1' };
    const s = session(hash);
    const set = await s.importTestSet('mine.jsonl', jsonl);
    expect(set).toMatchObject({ kind: 'imported', queries: docs.length, stale: false, provenance: { file: 'mine.jsonl' } });
    expect((await s.testSets()).sets.map((x) => x.id)).toEqual([set.id]);
    hash.value = 'h2';
    expect((await s.testSets()).sets[0]!.stale).toBe(true);
    const beir = await s.exportTestSet(set.id);
    expect(beir.queries.trim().split('\n')).toHaveLength(docs.length);
    expect(JSON.parse(beir.queries.split('\n')[0]!)).toEqual({ _id: expect.any(String), text: expect.stringContaining(docs[0]!.title) });
    expect(beir.qrels.split('\n')[0]).toBe('query-id\tcorpus-id\tscore');
    expect(beir.qrels).toContain(`\t${docs[0]!.id}\t1`);
    await s.deleteTestSet(set.id);
    expect((await s.testSets()).sets).toEqual([]);
    await expect(s.importTestSet('mine.txt', jsonl)).rejects.toThrow(/\.csv .* or \.jsonl/);
  });

  it('tunes on a test set: every trial a config hash, the winner as Search settings with its diff', async () => {
    const s = session();
    const set = await s.importTestSet('mine.jsonl', jsonl);
    const search = { ...SEARCH_DEFAULTS, k1: 0 };
    const progress: string[] = [];
    const r = await s.tune({ testSetId: set.id, search, modes: ['sparse'], budget: 6 }, [], (p) => { progress.push(p.phase); });
    expect(r.result.trials).toHaveLength(6);
    expect(r.result.trials.every((t) => /^[0-9a-f]{16,}$/.test(t.configHash))).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p === 'tune')).toBe(true);
    expect(r.result.split.tuning + r.result.split.heldOut).toBe(docs.length);
    // The current settings were k1 0 (the search's own): every trial has a k1 of the space, so Adopt changes it.
    const w = r.result.winnerSettings.settings;
    expect(r.adopt.settings).toMatchObject({ mode: 'sparse', k1: w.k1 });
    expect(r.adopt.changes.find((c) => c.setting === 'k1')).toMatchObject({ from: 0, to: w.k1 });
    // b: null when the winner kept the knowledge base's own, else the winner's.
    expect(r.adopt.settings.b).toBe(w.b === kb.options.bm25.b ? null : w.b);
    expect(r.testSet).toMatchObject({ id: set.id, kind: 'imported', stale: false });
    // The draft report: a row per distinct trial, the test set's provenance, what it ran on.
    expect(r.report).toMatchObject({ kind: 'tune', draft: true, data: { dataset: 'Topics', kb: 'local:topics', source: 'local' } });
    expect(r.report.config).toMatchObject({ budget: 6, modes: ['sparse'], testSet: { label: 'mine.jsonl', kind: 'imported', provenance: { file: 'mine.jsonl' } } });
    expect(r.report.rows.find((x) => x.status === 'winner')?.question).toBe(r.result.trials[r.result.winner]!.label);
  });

  it('refuses a second tune while one runs, bad budgets and a test set of another knowledge base; Cancel says what is kept', async () => {
    const s = session();
    const set = await s.importTestSet('mine.jsonl', jsonl);
    const req = { testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['sparse' as const], budget: 6 };
    const first = s.tune(req, [], () => s.cancelTune());
    await expect(s.tune(req, [], () => {})).rejects.toThrow(/being made already/);
    await expect(first).rejects.toThrow(/Cancelled: the trials that ran are cached/);
    for (const budget of [0, 1e9, 2.5]) await expect(s.tune({ ...req, budget }, [], () => {})).rejects.toThrow(/budget \(trials\) must be a whole number from 1 to 500/);
    await expect(s.tune({ ...req, testSetId: 'nope' }, [], () => {})).rejects.toThrow(/not one of this knowledge base/);
    await expect(s.tune({ ...req, modes: [] }, [], () => {})).rejects.toThrow(/at least one mode/);
  });

  it('narrows the space as the panel gives it (each value checked as its setting reads it) and takes the objective', async () => {
    const s = session();
    const set = await s.importTestSet('mine.jsonl', jsonl);
    const req = { testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['sparse' as const], budget: 20 };
    const r = await s.tune({ ...req, space: { k1: ' 0.6, 1.5', b: '0.4', alpha: '' }, objective: 'mrr@10' }, [], () => {});
    expect(r.result.objective).toBe('mrr@10');
    expect(r.result.space.dimensions.find((d) => d.key === 'k1')!.values).toEqual([0.6, 1.5]);
    for (const t of r.result.trials.slice(1)) expect([0.6, 1.5]).toContain(t.values.k1);
    expect(r.result.trials.every((t) => t.values.b === undefined || t.values.b === 0.4 || t.values.b === kb.options.bm25.b)).toBe(true);
    await expect(s.tune({ ...req, space: { alpha: '2' } }, [], () => {})).rejects.toThrow(/^The space: alpha: "2" is not a value of alpha/);
    await expect(s.tune({ ...req, space: { depth: '10' } }, [], () => {})).rejects.toThrow(/The space: depth=10: give a dimension and its values/);
  });

  it('Cancel, reload and tune again: the trials that ran are read back, the rest computed; the result is the uninterrupted one', async () => {
    const store = memoryTestSetStore();
    const { c, cache } = rowCache();
    const first = session(undefined, cache, store);
    const set = await first.importTestSet('mine.jsonl', jsonl);
    const req = { testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['sparse' as const], budget: 8 };
    let events = 0;
    await expect(first.tune(req, [], () => { if (++events === 3) first.cancelTune(); })).rejects.toThrow(/Cancelled: the trials that ran are cached/);
    const before = new Set(c.put), ran = c.put.length;
    expect(ran).toBeGreaterThan(0);
    // A reload: a new session over the same stores (IndexedDB's test sets and rows).
    const again = await session(undefined, cache, store).tune(req, [], () => {});
    const after = c.put.slice(ran);
    // Nothing the cancelled tune computed was computed again; something was left to compute.
    expect(after.filter((k) => before.has(k))).toEqual([]);
    expect(after.length).toBeGreaterThan(0);
    expect(c.hits).toBeGreaterThan(0);
    // An uninterrupted tune: the same trials and figures.
    const whole = await session(undefined, rowCache().cache, store).tune(req, [], () => {});
    expect(again.result.trials.map((t) => [t.label, t.configHash, t.score])).toEqual(whole.result.trials.map((t) => [t.label, t.configHash, t.score]));
    expect(again.result.winner).toBe(whole.result.winner);
  });

  it('checks a test set against another of the knowledge base: hand-labelled questions are the reference; a pseudo winner adopts only when they agree', async () => {
    const s = session();
    const labelled = await s.importTestSet('mine.jsonl', jsonl);
    const pseudo = await s.pseudoTestSet(30, 1);
    const r = await s.tune({ testSetId: pseudo.id, search: SEARCH_DEFAULTS, modes: ['sparse'], budget: 6, agreeWithId: labelled.id }, [], () => {});
    const a = r.result.agreement!;
    expect(a).toMatchObject({ settings: 6, reference: 'mine.jsonl', other: 'pseudo-queries: biased toward lexical matching' });
    expect(r.result.adoptable).toBe(a.passes);
    // The check's figures come with the report too.
    expect(r.report.summary.extra['agreement']).toMatchObject({ tau: a.tau, regret: a.regret, passes: a.passes });
    // Against a second pseudo set, even a passing check does not make a pseudo winner adoptable.
    const pseudo2 = await s.pseudoTestSet(30, 2);
    expect((await s.tune({ testSetId: pseudo.id, search: SEARCH_DEFAULTS, modes: ['sparse'], budget: 6, agreeWithId: pseudo2.id }, [], () => {})).result.adoptable).toBe(false);
    await expect(s.tune({ testSetId: pseudo.id, search: SEARCH_DEFAULTS, modes: ['sparse'], budget: 6, agreeWithId: pseudo.id }, [], () => {})).rejects.toThrow(/not another test set of this knowledge base/);
  });

  it('builds the knowledge base again for chunking and the analyzer when asked (each once), not otherwise', async () => {
    const s = session();
    const set = await s.importTestSet('mine.jsonl', jsonl);
    const req = { testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['sparse' as const], budget: 40 };
    const plain = await s.tune(req, [], () => {});
    expect(plain.result.space.dimensions.map((d) => d.key)).not.toContain('chunked');
    const rebuilt = await s.tune({ ...req, rebuild: true }, [], () => {});
    expect(rebuilt.result.space.dimensions.map((d) => d.key)).toEqual(expect.arrayContaining(['chunked', 'chunkSize', 'analyzer']));
    expect(rebuilt.result.trials.some((t) => /--chunk\b/.test(t.label))).toBe(true);
    expect(rebuilt.result.trials.some((t) => /--analyzer plain/.test(t.label))).toBe(true);
    // The settings a trial names are the settings it ran: distinct labels, distinct config hashes.
    const byLabel = new Map(rebuilt.result.trials.map((t) => [t.label, t.configHash]));
    expect(new Set(byLabel.values()).size).toBe(byLabel.size);
  });

  it('builds again with a dense side: each chunking\'s items embedded by the dense side\'s embedder, the hybrid trials on them', async () => {
    // A hashed bag of words (16-d): enough for dense search to rank by shared words.
    const calls: number[] = [];
    const vec = (t: string) => { const v = new Float32Array(16); for (const w of t.toLowerCase().split(/\W+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)]! += 1; return v; };
    const fake: TextEmbedder = { spec: { id: 'fake/bag', dtype: 'fp32', device: 'wasm' }, dim: 16, embed: async (ts: readonly string[]) => { calls.push(ts.length); const out = new Float32Array(ts.length * 16); ts.forEach((t, i) => out.set(vec(t), i * 16)); return out; } };
    const dkb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
    await attachKbVectors(dkb, null, fake, { kbKey: async () => 'topics-bag' });
    const s = new TuneTabSession({
      context: () => ({ kb: dkb, info: info('h1'), models: { encoder: { embedQuery: async (q: string) => vec(q) } }, embedder: fake.spec, reranker: null, passages: fake }),
      store: memoryTestSetStore(), replies: memoryReplyCache(), cache: null, runtime: { runtime: 'node', agent: 'test' },
    });
    const set = await s.importTestSet('mine.jsonl', jsonl);
    const before = calls.length;
    const r = await s.tune({ testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['hybrid_fixed'], budget: 12, rebuild: true }, [], () => {});
    const chunked = r.result.trials.filter((t) => /--chunk\b/.test(t.label));
    expect(chunked.length).toBeGreaterThan(0);
    expect(chunked.every((t) => Number.isFinite(t.score))).toBe(true);
    // Each chunking's items were embedded (once per chunking and analyzer built).
    expect(calls.length).toBeGreaterThan(before);
    expect(r.result.identity.embedder).toBe('fake/bag@fp32');
  });

  it('compares other embedders in the dense modes: each loaded for the tune, the items embedded by it, freed after; bad ids refused', async () => {
    const bag = (seed: number) => (t: string) => { const v = new Float32Array(16); for (const w of t.toLowerCase().split(/\W+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, seed)]! += 1; return v; };
    const embedderOf = (id: string, seed: number, calls: number[]): TextEmbedder => ({
      spec: { id, dtype: 'fp32', device: 'wasm' }, dim: 16,
      embed: async (ts: readonly string[]) => { calls.push(ts.length); const out = new Float32Array(ts.length * 16); ts.forEach((t, i) => out.set(bag(seed)(t), i * 16)); return out; },
    });
    const own = embedderOf('fake/bag', 7, []);
    const dkb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
    await attachKbVectors(dkb, null, own, { kbKey: async () => 'topics-bag' });
    const otherCalls: number[] = [], loads: string[] = [], disposed: string[] = [];
    const s = new TuneTabSession({
      context: () => ({ kb: dkb, info: info('h1'), models: { encoder: { embedQuery: async (q: string) => bag(7)(q) } }, embedder: own.spec, reranker: null, passages: own }),
      store: memoryTestSetStore(), replies: memoryReplyCache(), cache: null, runtime: { runtime: 'node', agent: 'test' },
      loadEmbedder: async (spec) => {
        loads.push(`${spec.id}@${spec.dtype}`);
        if (spec.id === 'fake/missing') throw new Error('404 from the Hub');
        return { ...embedderOf(spec.id, 3, otherCalls), spec, dispose: async () => { disposed.push(spec.id); } };
      },
    });
    const set = await s.importTestSet('mine.jsonl', jsonl);
    const phases = new Set<string>();
    const req = { testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['sparse' as const, 'dense' as const], budget: 20, space: { k1: '0.9', b: '0.4', index: 'auto' } };
    const r = await s.tune({ ...req, embedders: [' fake/other '] }, [], (p) => { phases.add(p.phase); });
    expect(loads).toEqual(['fake/other@fp32']);
    expect(r.result.trials.map((t) => t.label)).toEqual(['sparse', 'dense', 'dense --embedder fake/other@fp32']);
    expect(r.result.trials[2]!.embedder).toBe('fake/other@fp32');
    expect(otherCalls.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(dkb.size); // every item embedded by it
    expect(phases).toEqual(new Set(['embed', 'tune']));
    expect(disposed).toEqual(['fake/other']);
    expect(r.report.environment.models.map((m) => m.id)).toEqual(['fake/bag', 'fake/other']);
    // A corpus-trained other embedder names what it was trained on (a model belongs to its corpus), as a benchmark run does.
    const withTrained = new TuneTabSession({
      context: () => ({ kb: dkb, info: info('h1'), models: { encoder: { embedQuery: async (q: string) => bag(7)(q) } }, embedder: own.spec, reranker: null, passages: own }),
      store: memoryTestSetStore(), replies: memoryReplyCache(), cache: null, runtime: { runtime: 'node', agent: 'test' },
      trained: async () => [{ id: 'corpus/manuals-lsi', kbTitle: 'Holdout manuals', corpusHash: 'f'.repeat(64) }],
      loadEmbedder: async (spec) => ({ ...embedderOf(spec.id, 5, []), spec }),
    });
    const tset = await withTrained.importTestSet('mine.jsonl', jsonl);
    const t = await withTrained.tune({ ...req, testSetId: tset.id, embedders: ['corpus/manuals-lsi'] }, [], () => {});
    expect(t.result.notes).toContain('other embedders in the space (dense): corpus/manuals-lsi@fp32 (trained on Holdout manuals, another corpus than this dataset)');
    expect(t.result.identity.embedderCorpus).toBeNull(); // the loaded one is pretrained
    const foreign = t.result.trials.find((x) => x.embedder === 'corpus/manuals-lsi@fp32')!;
    const plainRun = await new TuneTabSession({
      context: () => ({ kb: dkb, info: info('h1'), models: { encoder: { embedQuery: async (q: string) => bag(7)(q) } }, embedder: own.spec, reranker: null, passages: own }),
      store: memoryTestSetStore(), replies: memoryReplyCache(), cache: null, runtime: { runtime: 'node', agent: 'test' },
      loadEmbedder: async (spec) => ({ ...embedderOf(spec.id, 5, []), spec }),
    });
    const pset = await plainRun.importTestSet('mine.jsonl', jsonl);
    const unknown = (await plainRun.tune({ ...req, testSetId: pset.id, embedders: ['corpus/manuals-lsi'] }, [], () => {})).result;
    // not in this browser: "an unknown corpus", and another config hash (what it was trained on is part of the run)
    expect(unknown.notes).toContain('other embedders in the space (dense): corpus/manuals-lsi@fp32 (trained on an unknown corpus (the model is not in this browser), another corpus than this dataset)');
    expect(unknown.trials.find((x) => x.embedder === 'corpus/manuals-lsi@fp32')!.configHash).not.toBe(foreign.configHash);
    // Cancel while another embedder embeds the items: the tune stops, and the model is freed.
    await expect(s.tune({ ...req, embedders: ['fake/third'] }, [], (p) => { if (p.phase === 'embed') s.cancelTune(); })).rejects.toThrow(/^Cancelled/);
    expect(disposed).toEqual(['fake/other', 'fake/third']);
    // refused before any work
    await expect(s.tune({ ...req, embedders: ['fake/bag'] }, [], () => {})).rejects.toThrow(/fake\/bag@fp32 is the embedder loaded now/);
    await expect(s.tune({ ...req, embedders: ['not an id'] }, [], () => {})).rejects.toThrow(/"not an id" is not a model id/);
    await expect(s.tune({ ...req, embedders: ['fake/x@fp64'] }, [], () => {})).rejects.toThrow(/fp64 is not a dtype/);
    await expect(s.tune({ ...req, embedders: ['fake/missing'] }, [], () => {})).rejects.toThrow(/fake\/missing@fp32 did not load: 404 from the Hub/);
    const plain = session();
    const plainSet = await plain.importTestSet('x.jsonl', jsonl);
    await expect(plain.tune({ ...req, testSetId: plainSet.id, modes: ['sparse'], embedders: ['fake/other'] }, [], () => {})).rejects.toThrow(/load an embedder in the Models panel first/);
  });

  it('Adopt says what a search cannot take: a winner\'s chunking, analyzer or vector index that is not the knowledge base\'s', () => {
    const winner = (over: Partial<RunFlat>) => ({ winnerSettings: { mode: 'sparse' as const, settings: { ...RUN_DEFAULTS, k1: 0.9, b: 0.4, ...over } } }) as unknown as TuneResult;
    expect(adoptOf(winner({}), kb, SEARCH_DEFAULTS).notApplied).toEqual([]);
    expect(adoptOf(winner({ chunked: true, chunkSize: 400, overlap: 60, analyzer: 'plain' }), kb, SEARCH_DEFAULTS).notApplied).toEqual([
      'chunking: chunks of 400 characters (overlap 60) (the knowledge base has whole documents)',
      'BM25 analyzer: plain (the knowledge base has english)',
    ]);
    // the vector index kind is the knowledge base's (built with it): named, not applied
    expect(adoptOf(winner({ index: 'hnsw' }), kb, SEARCH_DEFAULTS).notApplied).toEqual(['vector index: hnsw (the knowledge base has none)']);
    const other = { winnerSettings: { mode: 'dense', settings: { ...RUN_DEFAULTS, k1: 0.9, b: 0.4 }, embedder: 'fake/other@fp32' } } as unknown as TuneResult;
    expect(adoptOf(other, kb, SEARCH_DEFAULTS).notApplied).toEqual([expect.stringMatching(/^embedder: fake\/other@fp32 \(load it in the Models panel/)]);
  });

  it('makes pseudo-queries, always labelled; their winner is not adoptable without an agreement check', async () => {
    const s = session();
    const set = await s.pseudoTestSet(30, 1);
    expect(set.label).toMatch(/pseudo-queries: biased toward lexical matching/);
    expect(set.kind).toBe('pseudo');
    const r = await s.tune({ testSetId: set.id, search: SEARCH_DEFAULTS, modes: ['sparse'], budget: 4 }, [], () => {});
    expect(r.result.adoptable).toBe(false);
    expect(r.result.testSetLabel).toMatch(/pseudo-queries/);
    await expect(s.pseudoTestSet(0, 1)).rejects.toThrow(/from 1 to 5000/);
  });
});
