/**
 * The retrieval benchmark session (src/lib/eval/retrieval/retrieval-bench.ts) on a toy knowledge base: modes in MODE_IDS
 * order, a mode that cannot run listed with its reason and no rows, unjudged queries counted, the row cache (a
 * second run takes every row from it, identical), cancel, the notes of a failing cache, one embedding per query,
 * and the multi-mode report (groups = modes, seed B's mode × metric table in the summary).
 */
import { describe, expect, test } from 'vitest';
import type { BeirQuery, Qrels } from '../../src/lib/data/beir.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { irScores, meanScores } from '../../src/lib/stats/ir-metrics.ts';
import { queryPredictors } from '../../src/lib/eval/analysis/qpp.ts';
import { sampleRows } from '../../src/lib/eval/ragbench/validate-mode.ts';
import {
  endToEnd, InvalidCachedRow, LATENCY_STAGES, QUERY_MS, stageField, TOTAL_MS, retrievalReport, retrievalRowKey, runRetrievalBenchmark, type RetrievalBenchInput, type RetrievalProgress, type RetrievalRowCache,
} from '../../src/lib/eval/retrieval/retrieval-bench.ts';
import { parseReport, type ReportRow } from '../../src/lib/reports/format.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { NO_RERANKER } from '../../src/lib/retrieval/modes.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { MemoryRetrievalRowCache } from '../../src/lib/eval/retrieval/retrieval-cache.ts';

const TEXTS = [
  'river boat on the water', 'mountain climbing in winter', 'boat engine repair guide', 'winter river ice fishing',
  'the history of mountain railways', 'fishing boats and nets', 'snow and ice on the mountain', 'water quality of rivers',
];
const DOCS: SourceDocument[] = TEXTS.map((text, i) => ({ id: `d${i}`, title: '', text, meta: {} }));
const QUERIES: BeirQuery[] = [
  { id: 'q1', text: 'river boat' }, { id: 'q2', text: 'mountain winter' }, { id: 'q3', text: 'fishing on ice' },
  { id: 'q4', text: 'unjudged boat question' }, { id: 'q5', text: 'water rivers' },
];
const QRELS: Qrels = new Map([
  ['q1', new Map([['d0', 1], ['d2', 1]])], ['q2', new Map([['d1', 1]])], ['q3', new Map([['d3', 2], ['d5', 1]])], ['q5', new Map([['d7', 1]])],
]);
const DIM = 3;

/** A 3-d vector of a text: counts of letters a–h, i–p, q–z, unit length (meaningless, but deterministic). */
function vec(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const c of text.toLowerCase()) { if (c >= 'a' && c <= 'h') v[0]!++; else if (c >= 'i' && c <= 'p') v[1]!++; else if (c >= 'q' && c <= 'z') v[2]!++; }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

function toyKb(): KnowledgeBase {
  const kb = KnowledgeBase.build(DOCS, { chunking: false, cdfQueries: 0, indexTitle: false });
  const all = new Float32Array(kb.size * DIM);
  for (let i = 0; i < kb.size; i++) all.set(vec(TEXTS[i]!), i * DIM);
  kb.dense = new ExactDenseIndex(all, DIM);
  return kb;
}

/** An encoder that counts its calls per text. */
function countingEncoder() {
  const calls = new Map<string, number>();
  return { calls, embedQuery: async (t: string) => { calls.set(t, (calls.get(t) ?? 0) + 1); return vec(t); } };
}

const QPP_READY = (() => {
  try { queryPredictors(toyKb(), ['river'], { sparse: [], dense: null }); return true; } catch (e) { return !/not implemented/.test(String(e)); }
})();

function input(over: Partial<RetrievalBenchInput> = {}): RetrievalBenchInput {
  return {
    kb: toyKb(), queries: QUERIES, qrels: QRELS, dataset: 'toy', modes: ['sparse', 'dense'], models: { encoder: countingEncoder() },
    depth: 5, predictors: false, configHash: 'h1', ...over,
  };
}

const irOf = (row: ReportRow) => Object.fromEntries(['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100'].map((k) => [k, row.scores[k]]));

describe('runRetrievalBenchmark', () => {
  test('modes in MODE_IDS order; unjudged counted; a mode without its model is skipped with the reason and no rows', async () => {
    const run = await runRetrievalBenchmark(input({ modes: ['hybrid_calibrated_rerank', 'dense', 'sparse', 'hybrid_calibrated'] }));
    expect(run).toMatchObject({ dataset: 'toy', judged: 4, unjudged: 1 });
    expect(run.modes.map((m) => m.mode)).toEqual(['sparse', 'dense', 'hybrid_calibrated']);
    expect(run.skipped).toEqual([{ mode: 'hybrid_calibrated_rerank', reason: NO_RERANKER }]);
    expect(run.rows.map((r) => r.key)).toEqual(['sparse', 'dense', 'hybrid_calibrated'].flatMap((m) => ['q1', 'q2', 'q3', 'q5'].map((q) => `${m}:${q}`)));
    expect(run.rows.some((r) => r.group === 'hybrid_calibrated_rerank')).toBe(false);
    // Each row's IR scores are those of search() with the benchmark's settings, on document ids.
    const kb = toyKb();
    for (const row of run.rows) {
      const [mode, qid] = row.key.split(':') as [RetrievalBenchInput['modes'][number], string];
      const out = await search(kb, QUERIES.find((q) => q.id === qid)!.text, { mode, topK: 5, candidateK: 5, dedup: true, rejectThreshold: 0 }, { encoder: countingEncoder() });
      const ranked = out.hits.map((h) => h.docId);
      expect(row.group).toBe(mode);
      expect(row.retrieved).toEqual(ranked.slice(0, 10));
      expect(irOf(row)).toEqual(irScores(ranked, QRELS.get(qid)!));
      expect(typeof row.scores[QUERY_MS]).toBe('number');
      // end to end = the sum of its stages
      const stages = LATENCY_STAGES.map((k) => row.scores[stageField(k)] as number);
      expect(row.scores[TOTAL_MS]).toBeCloseTo(stages.reduce((a, b) => a + b, 0), 9);
    }
    for (const m of run.modes) {
      const rows = run.rows.filter((r) => r.group === m.mode);
      expect(m.queries).toBe(4);
      expect(m.cached).toBe(0);
      expect(m.means).toEqual(meanScores(rows.map((r) => irOf(r) as never)));
      expect(m.mean_ms).toBeGreaterThanOrEqual(0);
    }
  });

  test('endToEnd: the stages summed, the embed stage charged the one embedding of the query', () => {
    const st = (stage: string, ms: number, model = false) => ({ stage, ms, ...(model ? { model } : {}) }) as never;
    const stages = [st('analyze', 1), st('sparse', 2), st('embed', 0.01, true), st('dense', 3), st('fuse', 4), st('rerank', 10, true), st('dedup', 0.5), st('reject', 0.5)];
    // total = analyze 1 + sparse 2 + embed 7 (the query's one embedding, not this call's 0.01) + dense 3 + fuse 4 + rerank 10 + dedup 0.5 + reject 0.5 = 28
    expect(endToEnd(stages, 7)).toEqual({ total: 28, stages: { embed: 7, sparse: 2, dense: 3, fuse: 4, rerank: 10, other: 2 } });
    // a mode without an embed stage is not charged one
    expect(endToEnd([st('analyze', 1), st('sparse', 2)], 7)).toEqual({ total: 3, stages: { embed: 0, sparse: 2, dense: 0, fuse: 0, rerank: 0, other: 1 } });
  });

  test('a dense query is embedded once, and each dense mode is charged that embedding', async () => {
    let calls = 0;
    const slow = { embedQuery: async (t: string) => { calls++; const t0 = performance.now(); while (performance.now() - t0 < 2); return countingEncoder().embedQuery(t); } };
    const run = await runRetrievalBenchmark(input({ models: { encoder: slow }, modes: ['sparse', 'dense', 'hybrid_calibrated'] }));
    expect(calls).toBe(4);
    for (const q of ['q1', 'q2', 'q3', 'q5']) {
      const embed = (mode: string) => run.rows.find((r) => r.key === `${mode}:${q}`)!.scores['ms.embed'] as number;
      expect(embed('sparse')).toBe(0);
      expect(embed('dense')).toBeGreaterThanOrEqual(2);
      expect(embed('hybrid_calibrated')).toBe(embed('dense'));
    }
  });

  test('the report: one file, groups = modes, the summary per group is the mode × metric table, notes and extra as the contract', async () => {
    const run = await runRetrievalBenchmark(input({ modes: ['sparse', 'dense', 'hybrid_calibrated_rerank'] }));
    const report = retrievalReport(run, {
      config: { modes: ['sparse', 'dense'] }, configHash: 'abcdef0123', data: { dataset: 'toy', revision: null, subsets: ['test'], source: 'local', kb: null },
      environment: { app: 'test', runtime: 'node', agent: 'vitest', models: [], llm: null, judge: null }, seed: 3,
    });
    const parsed = parseReport(JSON.parse(JSON.stringify(report)));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(report).toMatchObject({ kind: 'retrieval', evaluator: 'modes', seed: 3 });
    for (const m of run.modes) {
      for (const [k, v] of Object.entries(m.means)) {
        const fig = report.summary.metrics.find((x) => x.id === k && x.group === m.mode)!;
        expect(fig.value, `${m.mode} ${k}`).toBeCloseTo(v, 12);
        expect(fig.n).toBe(4);
      }
    }
    expect(report.summary.extra).toEqual({
      queries: 4, unjudged: 1,
      modes: run.modes.map((m) => ({ mode: m.mode, queries: 4, mean_ms: m.mean_ms, p95_ms: m.p95_ms, latency: 'end-to-end', stages: m.stages })),
      skipped_modes: { hybrid_calibrated_rerank: NO_RERANKER },
    });
    expect(report.summary.notes).toEqual(expect.arrayContaining(['1 queries without judgements were skipped', `hybrid_calibrated_rerank: skipped: ${NO_RERANKER}`]));
    // One mode: the evaluator is the mode.
    const one = await runRetrievalBenchmark(input({ modes: ['sparse'] }));
    expect(retrievalReport(one, { config: {}, configHash: 'abcdef0123', data: report.data, environment: report.environment }).evaluator).toBe('sparse');
  });

  test('the progress carries the ETA of the whole run: known from the first computed query, 0 at the end', async () => {
    const progress: RetrievalProgress[] = [];
    await runRetrievalBenchmark(input({ modes: ['sparse', 'dense'], onProgress: (p) => progress.push(p) }));
    expect(progress.map((p) => [p.mode, p.done])).toEqual([['sparse', 1], ['sparse', 2], ['sparse', 3], ['sparse', 4], ['dense', 1], ['dense', 2], ['dense', 3], ['dense', 4]]);
    for (const p of progress.slice(0, -1)) expect(p.etaMs).toBeGreaterThanOrEqual(0);
    expect(progress.at(-1)!.etaMs).toBe(0);
  });

  test('a second run with the same cache takes every row from it: identical rows, cached counts, no embedding', async () => {
    const cache = new MemoryRetrievalRowCache();
    const first = await runRetrievalBenchmark(input({ cache, modes: ['sparse', 'dense', 'hybrid_calibrated'] }));
    expect(cache.size).toBe(12);
    const enc = countingEncoder();
    const progress: RetrievalProgress[] = [];
    const second = await runRetrievalBenchmark(input({ cache, modes: ['sparse', 'dense', 'hybrid_calibrated'], models: { encoder: enc }, onProgress: (p) => progress.push(p) }));
    expect(second.rows).toEqual(first.rows);
    expect(second.modes.map((m) => m.cached)).toEqual([4, 4, 4]);
    expect(second.modes.map((m) => m.means)).toEqual(first.modes.map((m) => m.means));
    expect(enc.calls.size).toBe(0);
    // Nothing computed: no ETA (eval/core/eta.ts) until the end.
    expect(progress.filter((p) => p.mode === 'dense')).toEqual([1, 2, 3, 4].map((done) => ({ mode: 'dense', done, total: 4, cached: done, etaMs: null })));
    expect(progress.at(-1)!.etaMs).toBe(0);
    // Another config hash shares nothing.
    const other = await runRetrievalBenchmark(input({ cache, configHash: 'h2' }));
    expect(other.modes.map((m) => m.cached)).toEqual([0, 0]);
  });

  test('an invalid cached row is computed again with a note; a cache that cannot read or write costs notes, not the run', async () => {
    const good = await runRetrievalBenchmark(input());
    const broken: RetrievalRowCache = {
      get: async (_h, key) => { if (key === retrievalRowKey('sparse', 'q2')) throw new InvalidCachedRow('the cached row does not match its checksum'); if (key.startsWith('dense')) throw new Error('database closed'); return undefined; },
      put: async () => { throw new Error('quota full'); },
    };
    const run = await runRetrievalBenchmark(input({ cache: broken }));
    // timings differ run to run: every latency field is a number
    const timed = (k: string) => k.endsWith('_ms') || k.startsWith('ms.');
    expect(run.rows).toEqual(good.rows.map((r) => ({ ...r, scores: Object.fromEntries(Object.entries(r.scores).map(([k, v]) => [k, timed(k) ? expect.any(Number) : v])) })));
    expect(run.notes).toEqual([
      '1 cached rows failed their checks and were computed again (first: sparse:q2: the cached row does not match its checksum)',
      '4 cached rows could not be read and were computed again (first: database closed)',
      '8 rows could not be cached (the run is complete; a rerun computes them again) (first: quota full)',
    ]);
  });

  test('abort stops the run between rows', async () => {
    const ctl = new AbortController();
    const progress: RetrievalProgress[] = [];
    const p = runRetrievalBenchmark(input({ signal: ctl.signal, onProgress: (x) => { progress.push(x); if (x.done === 2) ctl.abort(); } }));
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(progress.map((x) => x.done)).toEqual([1, 2]);
  });

  test('each query is embedded once for all dense modes; maxQueries takes the seeded sample of the judged queries', async () => {
    const enc = countingEncoder();
    const run = await runRetrievalBenchmark(input({ models: { encoder: enc }, modes: ['dense', 'hybrid_fixed', 'rrf', 'hybrid_calibrated'], maxQueries: 2, seed: 4 }));
    const sample = sampleRows(QUERIES.filter((q) => QRELS.has(q.id)), 2, 4);
    expect(run.judged).toBe(2);
    expect([...new Set(run.rows.map((r) => r.key.split(':')[1]))]).toEqual(sample.map((q) => q.id));
    expect([...enc.calls.entries()]).toEqual(sample.map((q) => [q.text, 1]));
  });

  test.skipIf(!QPP_READY)('predictors: the same qpp fields on every mode row of a query; α.cdf (the run calibration) on a hybrid_calibrated row is the α it fused with', async () => {
    const enc = countingEncoder();
    const run = await runRetrievalBenchmark(input({ predictors: true, models: { encoder: enc }, modes: ['sparse', 'dense', 'hybrid_calibrated'] }));
    expect(run.notes).toEqual([]);
    const kb = toyKb();
    for (const q of ['q1', 'q2', 'q3', 'q5']) {
      const rows = run.rows.filter((r) => r.key.endsWith(`:${q}`));
      const qpp = (r: ReportRow) => Object.fromEntries(Object.entries(r.scores).filter(([k]) => k.startsWith('qpp.')));
      expect(Object.keys(qpp(rows[0]!)).length).toBeGreaterThan(10);
      for (const r of rows) expect(qpp(r)).toEqual(qpp(rows[0]!));
      const text = QUERIES.find((x) => x.id === q)!.text;
      const out = await search(kb, text, { mode: 'hybrid_calibrated', topK: 5, candidateK: 5, dedup: true, rejectThreshold: 0 }, { encoder: countingEncoder() });
      const hc = rows.find((r) => r.group === 'hybrid_calibrated')!;
      expect(hc.scores['qpp.alpha.fusion.cdf']).toBeCloseTo(out.telemetry!.alpha!, 12);
      expect(enc.calls.get(text)).toBe(1);
    }
  });
});
