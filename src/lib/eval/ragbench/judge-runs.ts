/**
 * Judge repeats: an LLM judge asked N times about the same answer does not always say the same thing (sampling at
 * temperature > 0, and nondeterministic serving even at 0). `judgeRepeated` asks N times and reports, per TRACe
 * metric, the mean and the spread over the replies that could be parsed; a row whose adherence verdict differs
 * between replies is flagged as a flip. `RepeatTracker` sums it up over rows: flip rate, mean spread, and the
 * parse-failure rate by call and by row.
 *
 *   mean  = Σ x / n over the parsed replies where the metric is a number (completeness is NaN when nothing is relevant)
 *   std   = √(Σ (x − mean)² / n)  — the population standard deviation of those n values (0 for n = 1)
 *   range = max − min
 *   flip  = the parsed replies include both adherence 1 (overall_supported) and 0
 *
 * A reply with no JSON object is a parse failure: it counts in the parse-failure rate and adds no value. A call
 * that throws (network, HTTP error after retries) is counted apart as a failed call; when every call of a row
 * throws, the first error is thrown (the row fails, as with one judge call). An abort is always rethrown.
 *
 * `repeatedJudgeRowEvaluator` is a `TraceEvaluator` (validate-mode.ts, resumable-rows.ts `runSubset`): its scores are
 * the means; the spread, flip and parse information of each row reaches the caller through `onResult`.
 * `sampledJudgeEstimate` is what judging a validate run's sampled rows costs (the CLI's and the tab's estimate).
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { ChatProvider, TokenUsage } from '../../llm/types.ts';
import { judgeTrace, type JudgeInput, type JudgeOptions, type JudgeResult } from '../metrics/judge.ts';
import { estimateJudgeRun, type Price, type RunEstimate } from '../core/cost.ts';
import { sampleRows, type TraceEvaluator } from './validate-mode.ts';
import type { TraceScores } from '../metrics/trace.ts';

export const TRACE_METRICS = ['relevance', 'utilization', 'adherence', 'completeness'] as const;
export type TraceMetric = (typeof TRACE_METRICS)[number];

export interface RepeatOptions extends Omit<JudgeOptions, 'signal'> {
  /** Judge calls per row (>= 1). */
  repeats: number;
}

export interface MetricSpread {
  /** NaN when no parsed reply gave a value. */
  mean: number;
  /** Population standard deviation; NaN when n = 0. */
  std: number;
  min: number;
  max: number;
  /** Parsed replies that gave a value. */
  n: number;
}

export interface RepeatedJudgeResult {
  repeats: number;
  /** Means over the parsed replies (NaN everywhere when none parsed). */
  scores: TraceScores;
  spread: Record<TraceMetric, MetricSpread>;
  /** Adherence verdict of each parsed reply, in call order (1 = supported). */
  verdicts: number[];
  /** The parsed replies disagree on adherence. */
  flipped: boolean;
  /** Calls that returned a reply. */
  results: JudgeResult[];
  /** Replies that held no parsable JSON object. */
  parseFailedCalls: number;
  /** Calls that threw, with their messages. */
  errors: string[];
  /** No reply could be parsed (the scores are NaN). */
  parseFailed: boolean;
  /** Tokens of every call that reported usage (null when none did). */
  usage: TokenUsage | null;
}

/** Mean, population std, min, max and n of the numbers among `xs` (NaN left out). */
export function spreadOf(xs: readonly number[]): MetricSpread {
  const v = xs.filter((x) => !Number.isNaN(x));
  const n = v.length;
  if (n === 0) return { mean: NaN, std: NaN, min: NaN, max: NaN, n: 0 };
  const mean = v.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / n);
  return { mean, std, min: Math.min(...v), max: Math.max(...v), n };
}

/** Combines the replies of one row's repeated judge calls. */
export function combineRepeats(results: readonly JudgeResult[], errors: readonly string[] = []): RepeatedJudgeResult {
  const parsed = results.filter((r) => !r.parseFailed);
  const spread = Object.fromEntries(TRACE_METRICS.map((m) => [m, spreadOf(parsed.map((r) => r.scores[m]))])) as Record<TraceMetric, MetricSpread>;
  const verdicts = parsed.map((r) => r.scores.adherence).filter((x) => !Number.isNaN(x));
  const reported = results.flatMap((r) => (r.usage ? [r.usage] : []));
  const usage: TokenUsage | null = reported.length === 0 ? null : {
    inputTokens: reported.reduce((a, u) => a + u.inputTokens, 0),
    outputTokens: reported.reduce((a, u) => a + u.outputTokens, 0),
  };
  return {
    repeats: results.length + errors.length,
    scores: { relevance: spread.relevance.mean, utilization: spread.utilization.mean, adherence: spread.adherence.mean, completeness: spread.completeness.mean },
    spread,
    verdicts,
    flipped: verdicts.includes(1) && verdicts.includes(0),
    results: [...results],
    parseFailedCalls: results.length - parsed.length,
    errors: [...errors],
    parseFailed: parsed.length === 0,
    usage,
  };
}

/** Asks the judge `opts.repeats` times, one call after the other, and combines the replies. */
export async function judgeRepeated(provider: ChatProvider, input: JudgeInput, opts: RepeatOptions, signal?: AbortSignal): Promise<RepeatedJudgeResult> {
  const repeats = Math.max(1, Math.floor(opts.repeats));
  const { repeats: _r, ...judgeOpts } = opts;
  void _r;
  const results: JudgeResult[] = [];
  const errors: string[] = [];
  let first: unknown = null;
  for (let i = 0; i < repeats; i++) {
    signal?.throwIfAborted();
    try {
      results.push(await judgeTrace(provider, input, { ...judgeOpts, ...(signal ? { signal } : {}) }));
    } catch (e) {
      if (signal?.aborted) throw e;
      first ??= e;
      errors.push(e instanceof Error ? e.message : String(e));
    }
  }
  if (results.length === 0) throw first;
  return combineRepeats(results, errors);
}

/** The judge input of a RAGBench row: its own sentence keys, as `judgeRowEvaluator` uses. */
export function rowJudgeInput(row: RagbenchRow): JudgeInput {
  return { question: row.question, documents: row.documents_sentences, response: row.response_sentences.map(([, t]) => t) };
}

/**
 * The calls, tokens and cost of judging a validate run, before it starts: each subset's seeded sample of `sample.n`
 * rows (all when undefined), judged `repeats` times. `rows`: the rows sampled.
 */
export function sampledJudgeEstimate(
  subsets: Iterable<{ rows: readonly RagbenchRow[] }>, sample: { n?: number | undefined; seed: number }, opts: { repeats: number; price: Price },
): { rows: number; estimate: RunEstimate } {
  const inputs = [...subsets].flatMap((s) => sampleRows(s.rows, sample.n, sample.seed).map(rowJudgeInput));
  return { rows: inputs.length, estimate: estimateJudgeRun(inputs, opts) };
}

/**
 * A TraceEvaluator asking the judge `opts.repeats` times per row; its scores are the means. `onResult` sees each
 * row's whole result (spread, flip, parse failures, usage).
 */
export function repeatedJudgeRowEvaluator(
  provider: ChatProvider,
  opts: RepeatOptions,
  onResult?: (row: RagbenchRow, r: RepeatedJudgeResult) => void,
): TraceEvaluator {
  return async (row, signal) => {
    const r = await judgeRepeated(provider, rowJudgeInput(row), opts, signal);
    onResult?.(row, r);
    return r.scores;
  };
}

// ------------------------------------------------------------------------------------------------ over rows

export interface RepeatSummary {
  repeats: number;
  /** Rows with at least one reply. */
  rows: number;
  /** Calls that returned a reply. */
  calls: number;
  parseFailedCalls: number;
  /** parseFailedCalls / calls (NaN without calls). */
  callParseFailureRate: number;
  /** Rows none of whose replies parsed. */
  parseFailedRows: number;
  /** parseFailedRows / rows. */
  rowParseFailureRate: number;
  /** Calls that threw. */
  failedCalls: number;
  /** Rows whose parsed replies disagree on adherence. */
  flippedRows: number;
  /** Rows with at least two adherence verdicts (the only ones that can flip). */
  comparableRows: number;
  /** flippedRows / comparableRows. */
  flipRate: number;
  /** Per metric: the mean, over rows with at least two values, of the row's std and of its range (max − min). */
  meanStd: Record<TraceMetric, number>;
  meanRange: Record<TraceMetric, number>;
  /** Keys of the flipped rows, in the order seen. */
  flipped: string[];
}

/** Collects repeated-judge results by row key (a later result for a key replaces the earlier one). */
export class RepeatTracker {
  readonly byKey = new Map<string, RepeatedJudgeResult>();

  constructor(readonly repeats: number) {}

  add(key: string, r: RepeatedJudgeResult): void {
    this.byKey.set(key, r);
  }

  summary(keys?: Iterable<string>): RepeatSummary {
    const entries = keys ? [...keys].flatMap((k) => (this.byKey.has(k) ? [[k, this.byKey.get(k)!] as const] : [])) : [...this.byKey.entries()];
    return summarizeRepeats(entries, this.repeats);
  }
}

export function summarizeRepeats(entries: readonly (readonly [string, RepeatedJudgeResult])[], repeats: number): RepeatSummary {
  const rs = entries.map(([, r]) => r);
  const calls = rs.reduce((a, r) => a + r.results.length, 0);
  const parseFailedCalls = rs.reduce((a, r) => a + r.parseFailedCalls, 0);
  const parseFailedRows = rs.filter((r) => r.parseFailed).length;
  const comparable = rs.filter((r) => r.verdicts.length >= 2);
  const flipped = entries.filter(([, r]) => r.flipped).map(([k]) => k);
  const meanOf = (xs: number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
  const per = (f: (s: MetricSpread) => number) =>
    Object.fromEntries(TRACE_METRICS.map((m) => [m, meanOf(rs.filter((r) => r.spread[m].n >= 2).map((r) => f(r.spread[m])))])) as Record<TraceMetric, number>;
  return {
    repeats,
    rows: rs.length,
    calls,
    parseFailedCalls,
    callParseFailureRate: calls === 0 ? NaN : parseFailedCalls / calls,
    parseFailedRows,
    rowParseFailureRate: rs.length === 0 ? NaN : parseFailedRows / rs.length,
    failedCalls: rs.reduce((a, r) => a + r.errors.length, 0),
    flippedRows: flipped.length,
    comparableRows: comparable.length,
    flipRate: comparable.length === 0 ? NaN : flipped.length / comparable.length,
    meanStd: per((s) => s.std),
    meanRange: per((s) => s.max - s.min),
    flipped,
  };
}
