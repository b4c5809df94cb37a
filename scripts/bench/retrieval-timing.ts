/**
 * Timed builds and query loops of `npm run bench` (scripts/bench.ts): knowledge-base build times, query latency
 * (`telemetry.queryMs`, wall time, per stage), outcomes, candidates and retrieval rounds, as summaries.
 */
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { mean, percentile } from '../../src/lib/stats/summary.ts';
import { KnowledgeBase, type BuildStage, type KbOptions } from '../../src/lib/retrieval/knowledge-base.ts';
import { search, type QueryEncoder, type SearchOptions, type StageTiming } from '../../src/lib/retrieval/search.ts';

export const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
export const now = () => performance.now();
export const r3 = (x: number) => Math.round(x * 1000) / 1000;

export interface Summary { n: number; mean: number; p50: number; p95: number; max: number }

export function summary(xs: readonly number[]): Summary {
  return { n: xs.length, mean: r3(mean(xs)), p50: r3(percentile(xs, 50)), p95: r3(percentile(xs, 95)), max: r3(Math.max(...xs)) };
}

// ---------------------------------------------------------------------------------------------------------------
// Index build

interface BuildResult {
  kb: KnowledgeBase;
  items: number;
  totalMs: number;
  /** From the progress callbacks: chunk = until the last chunk report; index = until the first calibrate
   *  report (includes one CDF sample query); calibrate = the rest. */
  stagesMs: Record<BuildStage, number>;
}

function timedBuild(docs: readonly SourceDocument[], options: Partial<KbOptions>): BuildResult {
  const last: Partial<Record<BuildStage, number>> = {};
  const first: Partial<Record<BuildStage, number>> = {};
  const t0 = now();
  const kb = KnowledgeBase.build(docs, options, (stage) => {
    const t = now();
    first[stage] ??= t;
    last[stage] = t;
  });
  const t1 = now();
  const chunkEnd = last.chunk ?? t0;
  const indexEnd = first.calibrate ?? t1;
  return {
    kb,
    items: kb.size,
    totalMs: t1 - t0,
    stagesMs: { chunk: r3(chunkEnd - t0), index: r3(indexEnd - chunkEnd), calibrate: r3(t1 - indexEnd) },
  };
}

/** One warm-up build, then `reps` timed builds; returns the last knowledge base and the timings. */
export function benchBuild(label: string, docs: readonly SourceDocument[], options: Partial<KbOptions>, reps: number) {
  log(`${label}: warm-up build`);
  timedBuild(docs, options);
  const runs: BuildResult[] = [];
  for (let i = 0; i < reps; i++) runs.push(timedBuild(docs, options));
  const kb = runs[runs.length - 1]!.kb;
  const totals = runs.map((r) => r.totalMs);
  const avgStage = (s: BuildStage) => r3(mean(runs.map((r) => r.stagesMs[s])));
  const result = {
    items: kb.size,
    vocabulary: kb.bm25.vocabularySize,
    buildMs: { runs: totals.map(r3), mean: r3(mean(totals)), min: r3(Math.min(...totals)) },
    buildStagesMeanMs: { chunk: avgStage('chunk'), index: avgStage('index'), calibrate: avgStage('calibrate') },
  };
  log(`${label}: ${kb.size} items, build ${result.buildMs.mean.toFixed(0)} ms (mean of ${reps})`);
  return { kb, result };
}

// ---------------------------------------------------------------------------------------------------------------
// Query loops

type StageName = StageTiming['stage'];

export interface QueryLoopResult {
  queries: number;
  reps: number;
  queryMs: Summary;
  wallMs: Summary;
  stagesMs: Partial<Record<StageName, Summary>>;
  modelMs: { mean: number };
  outcomes: Record<string, number>;
  candidates: { sparse: number; dense: number; fused: number; returned: number };
  calibrationUsed?: { sparse: string | null; dense: string | null; note?: string };
  /** Retrieval rounds per query (first pass): > 1 when dedup left < top_k documents and the pool doubled, which
   *  reruns the sparse and dense searches with the larger pool. */
  rounds: { mean: number; max: number; queriesWithExtraRounds: number };
}

export async function benchQueries(
  kb: KnowledgeBase, queries: readonly string[], options: Partial<SearchOptions>, reps: number,
  encoder: QueryEncoder | null = null,
): Promise<QueryLoopResult> {
  const models = encoder ? { encoder } : {};
  for (const q of queries) await search(kb, q, options, models); // warm-up pass
  const queryMs: number[] = [], wallMs: number[] = [], modelMs: number[] = [];
  const stages = new Map<StageName, number[]>();
  const outcomes: Record<string, number> = {};
  const cand = { sparse: 0, dense: 0, fused: 0, returned: 0 };
  const rounds: number[] = [];
  let calibrationUsed: QueryLoopResult['calibrationUsed'];
  for (let rep = 0; rep < reps; rep++) {
    for (const q of queries) {
      const t0 = now();
      const out = await search(kb, q, options, models);
      const wall = now() - t0;
      wallMs.push(wall);
      if (rep === 0) outcomes[out.status] = (outcomes[out.status] ?? 0) + 1;
      const t = out.telemetry;
      if (!t) { queryMs.push(wall); continue; }
      queryMs.push(t.queryMs);
      modelMs.push(t.modelMs);
      for (const s of t.stages) {
        if (s.model) continue;
        let xs = stages.get(s.stage);
        if (!xs) stages.set(s.stage, (xs = []));
        xs.push(s.ms);
      }
      if (rep === 0) {
        rounds.push(t.stages.filter((s) => s.stage === 'fuse').length); // one fuse per round
        cand.sparse += t.candidates.sparse; cand.dense += t.candidates.dense;
        cand.fused += t.candidates.fused; cand.returned += t.candidates.returned;
        calibrationUsed ??= { sparse: t.calibration.sparse, dense: t.calibration.dense, ...(t.calibration.note ? { note: t.calibration.note } : {}) };
      }
    }
  }
  const n = queries.length;
  return {
    queries: n,
    reps,
    queryMs: summary(queryMs),
    wallMs: summary(wallMs),
    stagesMs: Object.fromEntries([...stages].map(([s, xs]) => [s, summary(xs)])),
    modelMs: { mean: r3(mean(modelMs)) },
    outcomes,
    candidates: {
      sparse: r3(cand.sparse / n), dense: r3(cand.dense / n), fused: r3(cand.fused / n), returned: r3(cand.returned / n),
    },
    ...(calibrationUsed ? { calibrationUsed } : {}),
    rounds: {
      mean: rounds.length ? r3(mean(rounds)) : 0,
      max: rounds.length ? Math.max(...rounds) : 0,
      queriesWithExtraRounds: rounds.filter((r) => r > 1).length,
    },
  };
}
