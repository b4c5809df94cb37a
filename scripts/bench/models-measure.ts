/**
 * The measurements of `npm run bench:models`, shared by Node (onnxruntime-node) and the Chromium Web Worker
 * (onnxruntime-web): the same code times the project's own model layer in both. No Node or DOM APIs here; the caller
 * configures the runtime (configureModels) first.
 *
 *  - start (when `start` is set): first thing in the runtime, the app's models session (ModelSession) with its
 *    warm-up ('warm': load, warm-up batch, first query: the app's path) or without ('cold'): loadMs, warmupMs, the
 *    first query embedding, the next 32 passages and the first rerank of `pairs` passages. In Chromium each
 *    configuration is a fresh worker, so warm and cold both start ONNX Runtime (in the embedder's loadMs); in Node
 *    the runtime is the process's, so only the first configuration does.
 *  - embedding: loadEmbedder with `embedBatch` texts per forward pass, one untimed warm-up pass, then `embed()` on
 *    calls of EMBED_CALL_SIZE chunks as the app embeds a knowledge base (dense-build.ts; the embedder groups each
 *    call by token count) until every chunk is embedded or the time budget is spent (at least 2 calls).
 *  - reranking: loadCrossEncoder, `warmup` untimed runs, then runs of score(query, `pairs` passages) until `runs`
 *    are timed or the budget is spent (at least 5). Run i takes query i and chunks [i·pairs, (i+1)·pairs) (mod).
 */
import { mean, percentile } from '../../src/lib/stats/summary.ts';
import { loadCrossEncoder } from '../../src/lib/models/cross-encoder.ts';
import { loadEmbedder } from '../../src/lib/models/embedder.ts';
import { ModelSession } from '../../src/lib/models/model-session.ts';
import { EMBED_CALL_SIZE } from '../../src/lib/retrieval/dense-build.ts';
import type { Device, Dtype } from '../../src/lib/models/types.ts';

export interface MeasurePlan {
  embedderId: string;
  rerankerId: string;
  dtype: Dtype;
  device: Device;
  chunks: readonly string[];
  queries: readonly string[];
  embedBatch: number;
  pairs: number;
  runs: number;
  warmup: number;
  /** Cross-encoder pairs per forward pass; null = loadCrossEncoder's default (what the app uses). */
  rerankBatch: number | null;
  embedBudgetMs: number;
  rerankBudgetMs: number;
  /** Measure the models session's start first, with its warm-up or without; null: not at all. */
  start: 'warm' | 'cold' | null;
}

/** One models-session start: load, the warm-up batch (null: none), the first query embedding and first rerank (ms). */
export interface StartTimes {
  warmup: boolean;
  /** firstPassagesMs: the next call, 32 chunks (one forward pass at the default batch size). */
  embedder: { loadMs: number; warmupMs: number | null; firstQueryMs: number; firstPassagesMs: number };
  reranker: { loadMs: number; warmupMs: number | null; firstRerankMs: number };
  /** Enable → first query vector: load + warm-up + first query embedding (the dense scan adds a few ms). */
  enableToFirstQueryMs: number;
}

export interface Summary { n: number; mean: number; p50: number; p95: number; min: number; max: number }

export interface MeasureResult {
  /** The models session's start (null unless plan.start). */
  start: StartTimes | null;
  embed: {
    loadMs: number;
    warmupMs: number;
    passages: number;
    /** embed() calls of `callSize` chunks (the last may be shorter). */
    calls: number;
    callSize: number;
    totalMs: number;
    passagesPerS: number;
    callMs: Summary;
    /** True when the time budget stopped the loop before every chunk was embedded. */
    budgetHit: boolean;
  };
  rerank: {
    loadMs: number;
    pairs: number;
    warmupMs: number[];
    ms: Summary;
    samples: number[];
    budgetHit: boolean;
  };
  /** Outputs of fixed inputs, to check that runtimes and dtypes run the same model. */
  /** The first embedding batch's vectors and the first rerank's scores: what agreement between dtypes compares. */
  probe: { embeddings: number[][]; scores: number[] };
}

const r2 = (x: number) => Math.round(x * 100) / 100;

export function summary(xs: readonly number[]): Summary {
  return { n: xs.length, mean: r2(mean(xs)), p50: r2(percentile(xs, 50)), p95: r2(percentile(xs, 95)), min: r2(Math.min(...xs)), max: r2(Math.max(...xs)) };
}

function checkVectors(v: Float32Array, dim: number, what: string): void {
  for (let r = 0; r < v.length / dim; r++) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += v[r * dim + j]! ** 2;
    if (!(Math.abs(Math.sqrt(s) - 1) < 1e-3)) throw new Error(`${what}: row ${r} has norm ${Math.sqrt(s)}, expected 1`);
  }
}

const NO_TRAINED = { meta: async () => null, verify: async (id: string) => { throw new Error(`${id}: no corpus-trained models here`); } };

async function startTimes(plan: MeasurePlan, warmup: boolean): Promise<StartTimes> {
  const session = new ModelSession(NO_TRAINED, { warmup });
  const spec = (id: string) => ({ id, dtype: plan.dtype, device: plan.device });
  const e = await session.load('embedder', spec(plan.embedderId));
  let t = performance.now();
  await session.embed([plan.queries[0]!], 'query');
  const firstQueryMs = performance.now() - t;
  t = performance.now();
  await session.embed(plan.chunks.slice(0, 32), 'passage');
  const firstPassagesMs = performance.now() - t;
  const c = await session.load('cross-encoder', spec(plan.rerankerId));
  t = performance.now();
  await session.rerank(plan.queries[1 % plan.queries.length]!, plan.chunks.slice(0, plan.pairs));
  const firstRerankMs = performance.now() - t;
  const ms = (x: number | null) => (x === null ? null : r2(x));
  return {
    warmup,
    embedder: { loadMs: r2(e.loadMs), warmupMs: ms(e.warmupMs), firstQueryMs: r2(firstQueryMs), firstPassagesMs: r2(firstPassagesMs) },
    reranker: { loadMs: r2(c.loadMs), warmupMs: ms(c.warmupMs), firstRerankMs: r2(firstRerankMs) },
    enableToFirstQueryMs: r2(e.loadMs + (e.warmupMs ?? 0) + firstQueryMs),
  };
}

/** Timed phases, announced through `mark` so a caller can sample CPU time around them. */
export type Phase = 'embed-start' | 'embed-end' | 'rerank-start' | 'rerank-end';

export async function measure(plan: MeasurePlan, log: (m: string) => void, mark: (p: Phase) => void = () => {}): Promise<MeasureResult> {
  if (plan.warmup < 1) throw new Error('measure: warmup must be >= 1 (the first run is the output probe)');
  const spec = (id: string) => ({ id, dtype: plan.dtype, device: plan.device });
  const now = () => performance.now();

  // The app's start (warm) or the same without its warm-up (cold), first in this runtime.
  let startResult: StartTimes | null = null;
  if (plan.start) {
    const st = await startTimes(plan, plan.start === 'warm');
    startResult = st;
    log(`  start (${plan.start}): load ${st.embedder.loadMs} + warm-up ${st.embedder.warmupMs ?? 0} + first query ${st.embedder.firstQueryMs} ms, ` +
      `next 32 passages ${st.embedder.firstPassagesMs} ms; cross-encoder load ${st.reranker.loadMs} + warm-up ${st.reranker.warmupMs ?? 0} + first rerank ${st.reranker.firstRerankMs} ms`);
  }

  // Embedding throughput.
  let t = now();
  const embedder = await loadEmbedder(spec(plan.embedderId), { batchSize: plan.embedBatch });
  const embedLoadMs = now() - t;
  const batches: string[][] = [];
  for (let i = 0; i < plan.chunks.length; i += EMBED_CALL_SIZE) batches.push(plan.chunks.slice(i, i + EMBED_CALL_SIZE));
  t = now();
  const first = await embedder.embed(plan.chunks.slice(0, plan.embedBatch), 'passage');
  const warmupMs = now() - t;
  checkVectors(first, embedder.dim, 'embedding');
  const probeEmbeddings = Array.from({ length: first.length / embedder.dim }, (_, i) => Array.from(first.subarray(i * embedder.dim, (i + 1) * embedder.dim)));
  const batchMs: number[] = [];
  let passages = 0;
  mark('embed-start');
  const start = now();
  for (const batch of batches) {
    if (batchMs.length >= 2 && now() - start > plan.embedBudgetMs) break;
    t = now();
    const v = await embedder.embed(batch, 'passage');
    batchMs.push(now() - t);
    passages += batch.length;
    checkVectors(v, embedder.dim, 'embedding');
  }
  const totalMs = now() - start;
  mark('embed-end');
  await embedder.dispose();
  log(`  embed: ${passages} passages in ${(totalMs / 1000).toFixed(1)} s = ${((passages * 1000) / totalMs).toFixed(1)}/s`);

  // Reranking latency.
  t = now();
  const reranker = await loadCrossEncoder(spec(plan.rerankerId), plan.rerankBatch ? { batchSize: plan.rerankBatch } : {});
  const rerankLoadMs = now() - t;
  const span = Math.max(1, plan.chunks.length - plan.pairs);
  const run = async (i: number): Promise<{ ms: number; scores: number[] }> => {
    const offset = (i * plan.pairs) % span;
    const passagesOf = plan.chunks.slice(offset, offset + plan.pairs);
    const t0 = now();
    const scores = await reranker.score(plan.queries[i % plan.queries.length]!, passagesOf);
    const ms = now() - t0;
    if (scores.length !== passagesOf.length || !scores.every(Number.isFinite)) throw new Error(`rerank run ${i}: bad scores ${scores.slice(0, 3)}`);
    return { ms, scores };
  };
  const warm: number[] = [];
  let probeScores: number[] = [];
  for (let i = 0; i < plan.warmup; i++) {
    const r = await run(i);
    warm.push(r2(r.ms));
    if (i === 0) probeScores = r.scores;
  }
  const samples: number[] = [];
  mark('rerank-start');
  const rStart = now();
  for (let i = 0; i < plan.runs; i++) {
    if (samples.length >= 5 && now() - rStart > plan.rerankBudgetMs) break;
    samples.push((await run(plan.warmup + i)).ms);
  }
  mark('rerank-end');
  await reranker.dispose();
  const s = summary(samples);
  log(`  rerank ${plan.pairs} pairs: mean ${s.mean} ms, p95 ${s.p95} ms over ${s.n} runs`);

  return {
    start: startResult,
    embed: {
      loadMs: r2(embedLoadMs),
      warmupMs: r2(warmupMs),
      passages,
      calls: batchMs.length,
      callSize: EMBED_CALL_SIZE,
      totalMs: r2(totalMs),
      passagesPerS: r2((passages * 1000) / totalMs),
      callMs: summary(batchMs),
      budgetHit: passages < plan.chunks.length,
    },
    rerank: { loadMs: r2(rerankLoadMs), pairs: plan.pairs, warmupMs: warm, ms: s, samples: samples.map(r2), budgetHit: samples.length < plan.runs },
    probe: { embeddings: probeEmbeddings, scores: probeScores },
  };
}
