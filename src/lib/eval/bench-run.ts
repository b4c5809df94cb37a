/**
 * Resumable benchmark runs: every row's scores are cached by (config hash, row key) as soon as they are computed,
 * so a re-run, a reload or a crash mid-run only evaluates the rows still missing. Errors are never cached: a failed
 * row is listed with its reason and retried by the next run.
 */
import { ragbenchRowKey, type RagbenchRow } from '../data/ragbench.ts';
import { sha256Hex } from '../store/checksum.ts';
import { baselineScores, sampleRows, traceMetrics, type SubsetValidation, type TraceEvaluator } from './ragbench-validate.ts';
import type { TraceScores } from './trace.ts';

/** What determines a row's scores (not which rows are sampled: n and seed may change and rows are reused). */
export interface ScoringConfig {
  evaluator: 'lexical' | 'nli' | 'llm';
  /** Evaluator settings that change scores (model ids, provider/model, repeats…). Never a key. */
  settings: Record<string, unknown>;
  mode: 'validate';
  /** Bump when an evaluator's code changes its outputs. */
  version: number;
}

export interface ResultStore {
  getAll(configHash: string): Promise<Map<string, TraceScores>>;
  put(configHash: string, rowKey: string, scores: TraceScores): Promise<void>;
  clear(configHash: string): Promise<void>;
}

export class MemoryResultStore implements ResultStore {
  private readonly data = new Map<string, Map<string, TraceScores>>();
  async getAll(h: string) { return new Map(this.data.get(h) ?? []); }
  async put(h: string, k: string, s: TraceScores) {
    let m = this.data.get(h);
    if (!m) this.data.set(h, (m = new Map()));
    m.set(k, s);
  }
  async clear(h: string) { this.data.delete(h); }
}

export async function configHash(c: ScoringConfig): Promise<string> {
  return (await sha256Hex(JSON.stringify([c.evaluator, c.mode, c.version, sortKeys(c.settings)]))).slice(0, 24);
}

function sortKeys(o: Record<string, unknown>): unknown {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export type RowState = 'pending' | 'done' | 'failed' | 'cached';

export interface RunProgress {
  subset: string;
  total: number;
  done: number;
  /** Of `done`, how many came from the cache. */
  cached: number;
  failed: number;
  pending: number;
  /** Estimated ms left, from the rows computed in this run (null until one is). */
  etaMs: number | null;
}

export interface RowFailure { subset: string; key: string; reason: string }

export interface RunOptions {
  n?: number;
  seed?: number;
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  onRow?: (subset: string, key: string, state: RowState) => void;
  /** Rows scored at once (API judges). Default 1. */
  concurrency?: number;
}

export interface SubsetRun {
  validation: SubsetValidation;
  /** Rows that failed (left out of the metrics), with reasons. */
  failures: RowFailure[];
  /** Rows scored in this run (not from the cache). */
  computed: number;
  /** Rows scored but not saved in the cache (e.g. quota exceeded): a new run would score them again. */
  uncached: { rows: number; reason: string } | null;
}

/**
 * Scores the sampled rows of one subset, using and filling the cache, then compares with gold and baselines over
 * the rows that have scores. Aborting keeps every finished row in the cache.
 */
export async function runSubset(
  rows: readonly RagbenchRow[], subset: string, evaluate: TraceEvaluator, store: ResultStore, hash: string, opts: RunOptions = {},
): Promise<SubsetRun> {
  const sample = sampleRows(rows, opts.n, opts.seed ?? 0);
  const cached = await store.getAll(hash);
  const scores = new Map<string, TraceScores>();
  const failures: RowFailure[] = [];
  let cachedCount = 0;
  for (const r of sample) {
    const k = ragbenchRowKey(r);
    const hit = cached.get(k);
    if (hit) { scores.set(k, hit); cachedCount++; opts.onRow?.(subset, k, 'cached'); }
  }
  const todo = sample.filter((r) => !scores.has(ragbenchRowKey(r)));
  const started = Date.now();
  let computed = 0;
  let uncached = 0;
  let cacheError: string | null = null;
  const report = () => {
    const done = scores.size;
    const perRow = computed > 0 ? (Date.now() - started) / computed : null;
    const pending = sample.length - done - failures.length;
    opts.onProgress?.({ subset, total: sample.length, done, cached: cachedCount, failed: failures.length, pending, etaMs: perRow === null ? null : perRow * pending });
  };
  report();
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      opts.signal?.throwIfAborted();
      const row = todo[next++]!;
      const k = ragbenchRowKey(row);
      try {
        const s = await evaluate(row, opts.signal);
        scores.set(k, s);
        computed++;
        try {
          await store.put(hash, k, s);
        } catch (e) {
          // A full quota costs resumability, not the result: the row counts, and the run says it was not saved.
          uncached++;
          cacheError ??= (e as Error)?.name === 'QuotaExceededError' ? 'the browser storage quota is full' : (e as Error)?.message || String(e);
        }
        opts.onRow?.(subset, k, 'done');
      } catch (e) {
        if (opts.signal?.aborted) throw e;
        failures.push({ subset, key: k, reason: (e as Error).message || String(e) });
        opts.onRow?.(subset, k, 'failed');
      }
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 1, todo.length)) }, worker));
  opts.signal?.throwIfAborted();
  const scored = sample.filter((r) => scores.has(ragbenchRowKey(r)));
  const preds = scored.map((r) => scores.get(ragbenchRowKey(r))!);
  return {
    validation: {
      subset,
      n: scored.length,
      ...traceMetrics(scored, preds),
      baselines: baselineScores(scored),
      hallucinations: scored.filter((r) => r.adherence_score === false).length,
      predictions: preds,
      rows: scored,
    },
    failures,
    computed,
    uncached: uncached > 0 ? { rows: uncached, reason: cacheError ?? 'unknown' } : null,
  };
}
