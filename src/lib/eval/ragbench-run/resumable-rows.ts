/**
 * Resumable benchmark runs: every row's scores are cached by (config hash, row key) as soon as they are computed,
 * so a re-run, a reload or a crash mid-run only evaluates the rows still missing. Errors are never cached: a failed
 * row is listed with its reason and retried by the next run. Cached scores are validated (`CachedScoresSchema`; the
 * IndexedDB store also checks a checksum): a bad record is never averaged in, its row is scored again and the run
 * reports how many were (`invalidCached`).
 */
import * as v from 'valibot';
import { ragbenchRowKey, type RagbenchRow } from '../../data/ragbench.ts';
import { sha256Hex } from '../../checksum.ts';
import { remainingMs } from '../core/eta.ts';
import { baselineScores, sampleRows, traceMetrics, withRagas, type SubsetValidation, type TraceEvaluator } from '../ragbench/validate-mode.ts';
import type { EvaluatorId } from '../score/evaluators.ts';
import type { EvalScores } from '../metrics/ragas.ts';

/** A TRACe score as the evaluators produce it: a finite number in [0, 1], or NaN where it is undefined for the row. */
const Score = v.union([v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1)), v.nan()]);
/** Answer relevancy is a mean of cosines: in [−1, 1]. */
const Cosine = v.union([v.pipe(v.number(), v.finite(), v.minValue(-1), v.maxValue(1)), v.nan()]);
/**
 * The scores of one cached row: the four TRACe scores and, for the RAGAS evaluator, its four (other fields an
 * evaluator returned are not cached).
 */
export const CachedScoresSchema = v.object({
  relevance: Score, utilization: Score, adherence: Score, completeness: Score,
  ragas: v.optional(v.object({ faithfulness: Score, answer_relevancy: Cosine, context_precision: Score, context_recall: Score })),
});

/** The scores when `x` is a valid cached row, else null. */
export function validCachedScores(x: unknown): EvalScores | null {
  const r = v.safeParse(CachedScoresSchema, x);
  if (!r.success) return null;
  const { ragas, ...trace } = r.output;
  return ragas ? { ...trace, ragas } : trace;
}

/** The user-facing note for rows whose cached record was invalid. */
export function invalidCacheNote(subset: string, rows: number): string {
  return `${subset}: ${rows} cached row${rows === 1 ? ' was' : 's were'} invalid (edited or corrupted) and ${rows === 1 ? 'was' : 'were'} recomputed.`;
}

/** What determines a row's scores (not which rows are sampled: n and seed may change and rows are reused). */
export interface ScoringConfig {
  evaluator: EvaluatorId;
  /** Evaluator settings that change scores (model ids, provider/model, repeats…). Never a key. */
  settings: Record<string, unknown>;
  mode: 'validate';
  /** Bump when an evaluator's code changes its outputs. */
  version: number;
}

/** What a store holds for one config hash. */
export interface CachedRows {
  /** Row key → scores of the records that passed the store's own checks (runSubset validates them again). */
  scores: Map<string, EvalScores>;
  /** Row keys whose records failed them (checksum, format version, shape): never used, scored again. */
  invalid: Set<string>;
}

export interface ResultStore {
  getAll(configHash: string): Promise<CachedRows>;
  put(configHash: string, rowKey: string, scores: EvalScores): Promise<void>;
  clear(configHash: string): Promise<void>;
}

export class MemoryResultStore implements ResultStore {
  private readonly data = new Map<string, Map<string, EvalScores>>();
  async getAll(h: string): Promise<CachedRows> { return { scores: new Map(this.data.get(h) ?? []), invalid: new Set() }; }
  async put(h: string, k: string, s: EvalScores) {
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
  /** Sampled rows whose cached record was invalid and that are scored again. */
  invalid: number;
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
  /** Of the sampled rows, how many had an invalid cached record (dropped and scored again). */
  invalidCached: number;
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
  const scores = new Map<string, EvalScores>();
  const failures: RowFailure[] = [];
  let cachedCount = 0;
  let invalidCount = 0;
  for (const r of sample) {
    const k = ragbenchRowKey(r);
    const raw = cached.scores.get(k);
    const hit = raw === undefined ? null : validCachedScores(raw);
    if (hit) { scores.set(k, hit); cachedCount++; opts.onRow?.(subset, k, 'cached'); }
    else if (raw !== undefined || cached.invalid.has(k)) invalidCount++;
  }
  const todo = sample.filter((r) => !scores.has(ragbenchRowKey(r)));
  const started = Date.now();
  let computed = 0;
  let uncached = 0;
  let cacheError: string | null = null;
  const report = () => {
    const done = scores.size;
    const pending = sample.length - done - failures.length;
    opts.onProgress?.({ subset, total: sample.length, done, cached: cachedCount, invalid: invalidCount, failed: failures.length, pending, etaMs: remainingMs(Date.now() - started, computed, pending) });
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
      ...withRagas(scored, preds),
    },
    failures,
    computed,
    invalidCached: invalidCount,
    uncached: uncached > 0 ? { rows: uncached, reason: cacheError ?? 'unknown' } : null,
  };
}
