/**
 * Seed B's analysis of a retrieval report (multi-mode, rows `${mode}:${queryId}`, group = mode, per-query IR
 * metrics and the `qpp.*` predictor fields of qpp.ts):
 *   H1: every predictor vs per-query NDCG@10 of the retriever it reads (sparse → mode sparse, dense → mode dense,
 *       α → hybrid_calibrated): Pearson r and p, Spearman, Kendall τ-b, each with a bootstrap interval
 *       (correlationCi's resamples, computed by counts in correlation-boot.ts);
 *   H2: every pair of modes on per-query NDCG@10 with the Compare statistics (src/lib/stats/paired.ts:
 *       paired bootstrap, 10,000 resamples, seeded; randomization test; win/tie/loss).
 * Queries are paired by query id across modes; queries a mode lacks are left out of that pair, and said.
 * An old single-mode retrieval report (key = query id, group = dataset) reads as one mode named by its evaluator.
 */
import type { Report, ReportRow } from '../../reports/format.ts';
import { pairedTable, winTieLoss, type Column } from '../../stats/paired.ts';
import { COMPARE_DEFAULTS, COMPARE_MAX_DRAWS } from '../../reports/compare.ts';
import { MIN_ROWS } from '../../reports/summary-stats.ts';
import { kendallTauB, pearson, spearman } from '../../stats/correlation.ts';
import { correlationIntervals } from '../../stats/correlation-boot.ts';
import { parsePredictorField, predictorField, QPP_PREDICTORS, type PredictorKey, type QppRetriever } from './qpp.ts';
import { mean } from '../../stats/summary.ts';
import { hypothesisVerdicts, type HypothesisVerdicts } from './verdicts.ts';
import type { AnalysisOptions, AnalysisOutcome, DrawSource, H1Row, H2Row, RetrievalAnalysis } from './analysis-types.ts';

export type { AnalysisOptions, AnalysisOutcome, DrawSource, H1Row, H2Row, RetrievalAnalysis } from './analysis-types.ts';

export const ANALYSIS_DEFAULTS = { iterations: COMPARE_DEFAULTS.iterations, permutations: COMPARE_DEFAULTS.permutations, metric: 'ndcg@10' } as const;

/** The mode whose per-query metric a predictor of `retriever` is paired with. */
export const PREDICTOR_MODE: Readonly<Record<QppRetriever, string>> = Object.freeze({ sparse: 'sparse', dense: 'dense', fusion: 'hybrid_calibrated' });

const RETRIEVER_ORDER: readonly QppRetriever[] = ['sparse', 'dense', 'fusion'];
const CALIBRATION_ORDER: ReadonlyArray<string | null> = [null, 'raw', 'minmax', 'zscore', 'cdf'];

const finite = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const finitePair = (x: [number, number] | null): [number, number] | null => (x && Number.isFinite(x[0]) && Number.isFinite(x[1]) ? x : null);
const queriesWord = (n: number) => `${n} quer${n === 1 ? 'y' : 'ies'}`;

/** A report's rows by mode and query id, modes in the order the rows first name them. */
interface ModeTable {
  modes: string[];
  rows: Map<string, Map<string, ReportRow>>;
  /** Rows whose (mode, query) an earlier row already holds: left out. */
  repeated: number;
}

/**
 * Rows by mode: a multi-mode report (every key `${group}:${queryId}`) by group, an old single-mode one (key = query
 * id) as the one mode its evaluator names. The first row of a repeated (mode, query) is used.
 */
function modeTable(report: Report): ModeTable {
  const multi = report.rows.every((r) => r.key.startsWith(`${r.group}:`) && r.key.length > r.group.length + 1);
  const rows = new Map<string, Map<string, ReportRow>>();
  let repeated = 0;
  for (const r of report.rows) {
    const mode = multi ? r.group : report.evaluator;
    const query = multi ? r.key.slice(r.group.length + 1) : r.key;
    let m = rows.get(mode);
    if (!m) rows.set(mode, (m = new Map()));
    if (!m.has(query)) m.set(query, r); else repeated++;
  }
  return { modes: [...rows.keys()], rows, repeated };
}

/** Every `qpp.*` field any row carries, in H1's order: predictor, then retriever, then calibration. */
function predictorKeys(report: Report): PredictorKey[] {
  const seen = new Map<string, PredictorKey>();
  for (const r of report.rows) {
    for (const f of Object.keys(r.scores)) {
      if (seen.has(f) || !f.startsWith('qpp.')) continue;
      const k = parsePredictorField(f);
      if (k) seen.set(f, k);
    }
  }
  const rank = (k: PredictorKey) => [QPP_PREDICTORS.indexOf(k.predictor), RETRIEVER_ORDER.indexOf(k.retriever), CALIBRATION_ORDER.indexOf(k.calibration)];
  return [...seen.values()].sort((a, b) => {
    const ra = rank(a), rb = rank(b);
    return ra[0]! - rb[0]! || ra[1]! - rb[1]! || ra[2]! - rb[2]!;
  });
}

/** The (predictor, metric) pairs of one mode's rows, in row order; queries without either are left out. */
function pointsOf(rows: ReadonlyMap<string, ReportRow> | undefined, field: string, metric: string): { x: number[]; y: number[]; keys: string[] } {
  const out = { x: [] as number[], y: [] as number[], keys: [] as string[] };
  for (const [q, r] of rows ?? []) {
    const x = finite(r.scores[field]), y = finite(r.scores[metric]);
    if (x === null || y === null) continue;
    out.x.push(x); out.y.push(y); out.keys.push(q);
  }
  return out;
}

const isConstant = (xs: readonly number[]) => xs.every((x) => x === xs[0]);

/** One H1 row: the correlations of a predictor with the metric over its pairs, null (with a note) where undefined. */
function h1Row(k: PredictorKey, mode: string, pts: { x: number[]; y: number[] }, metric: string, ci: { iterations: number; seed: number }): H1Row {
  const { x, y } = pts;
  const row: H1Row = {
    predictor: k.predictor, retriever: mode, calibration: k.calibration, n: x.length,
    pearson_r: null, p_value: null, spearman: null, kendall: null, ci95: null, spearman_ci95: null, kendall_ci95: null,
    expected: k.predictor === 'entropy' || k.predictor === 'alpha' ? 'negative' : 'positive', note: null,
  };
  if (x.length < 3) return { ...row, note: `only ${queriesWord(x.length)} with both the predictor and ${metric}: a correlation needs at least 3` };
  if (isConstant(x)) return { ...row, note: `the predictor is the same on all ${x.length} queries: no correlation (n/a)` };
  if (isConstant(y)) return { ...row, note: `${metric} of ${mode} is the same on all ${x.length} queries: no correlation (n/a)` };
  const p = pearson(x, y);
  // correlationCi's resamples (the same seed), all three statistics from one pass of resample counts.
  const iv = ci.iterations > 0 ? correlationIntervals(x, y, ci) : { pearson: null, spearman: null, kendall: null };
  return {
    ...row,
    pearson_r: finite(p?.r), p_value: finite(p?.p), spearman: finite(spearman(x, y)), kendall: finite(kendallTauB(x, y)),
    ci95: finitePair(iv.pearson), spearman_ci95: finitePair(iv.spearman), kendall_ci95: finitePair(iv.kendall),
    note: x.length < MIN_ROWS ? `${queriesWord(x.length)}: the interval is wide`
      : few(offMode(y), y.length) ? `only ${queriesWord(offMode(y))} of ${y.length} have ${metric} off its most common value: r rests on them`
        : null,
  };
}

/** Too few to carry a correlation: fewer than MIN_ROWS and under a quarter of the n values. */
const few = (off: number, n: number) => off < MIN_ROWS && off * 4 < n;

/** How many values differ from the most common one (e.g. queries with NDCG@10 above 0 when most are 0). */
function offMode(ys: readonly number[]): number {
  const counts = new Map<number, number>();
  let top = 0;
  for (const y of ys) { const c = (counts.get(y) ?? 0) + 1; counts.set(y, c); if (c > top) top = c; }
  return ys.length - top;
}

function clampDraws(x: number | undefined, fallback: number): number {
  if (x === undefined || !Number.isFinite(x)) return fallback;
  return Math.max(0, Math.min(COMPARE_MAX_DRAWS, Math.floor(x)));
}

/** The bounds `config.resamples` (a seed-B protocol run's resample count) must be within to set the default draws. */
export const REPORT_RESAMPLES = { min: 100, max: 100_000 } as const;

/**
 * The report's `config.resamples` when it is an integer from 100 to 100,000 (the number of bootstrap resamples and
 * permutations its run asked for); null when absent; a warning in words when present but not such a number.
 */
export function reportResamples(report: Report): { resamples: number | null; warning: string | null } {
  const v = report.config['resamples'];
  if (v === undefined || v === null) return { resamples: null, warning: null };
  if (typeof v === 'number' && Number.isInteger(v) && v >= REPORT_RESAMPLES.min && v <= REPORT_RESAMPLES.max) return { resamples: v, warning: null };
  const shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v === 'number' ? String(v) : `a ${Array.isArray(v) ? 'list' : typeof v}`;
  return { resamples: null, warning: `The report's config.resamples is ${shown}, not an integer from ${REPORT_RESAMPLES.min} to ${REPORT_RESAMPLES.max.toLocaleString('en-US')}: the default draws are used.` };
}

/** Draws of one kind: the option when given, else the report's resamples, else the default. */
function draws(option: number | undefined, fromReport: number | null, fallback: number): { n: number; source: DrawSource } {
  if (option !== undefined && Number.isFinite(option)) return { n: clampDraws(option, fallback), source: 'option' };
  return fromReport !== null ? { n: fromReport, source: 'report' } : { n: fallback, source: 'default' };
}

/**
 * Where the settings' draws came from, in words, for the settings line: "draws: the default", "draws: the report's
 * config.resamples", or per kind ("resamples: --iterations, permutations: the default") with `asked` naming the options.
 */
export function drawsSourceText(s: RetrievalAnalysis['settings'], asked: { iterations: string; permutations: string } = { iterations: 'as asked', permutations: 'as asked' }): string {
  const word = (src: DrawSource, option: string) => (src === 'report' ? "the report's config.resamples" : src === 'default' ? 'the default' : option);
  const { iterations: i, permutations: p } = s.source;
  return i === p && i !== 'option' ? `draws: ${word(i, '')}` : `resamples: ${word(i, asked.iterations)}, permutations: ${word(p, asked.permutations)}`;
}

/** Each mode's mean metric over its queries with a number. */
function modeMeans(t: ModeTable, metric: string): RetrievalAnalysis['means'] {
  return t.modes.map((mode) => {
    const xs = [...t.rows.get(mode)!.values()].flatMap((r) => { const x = finite(r.scores[metric]); return x === null ? [] : [x]; });
    return { mode, n: xs.length, mean: xs.length ? finite(mean(xs)) : null };
  });
}

/** The reasons of summary.extra.skipped_modes ({mode: reason}, or [{mode, reason}]) as "mode (reason)". */
function skippedModes(report: Report): string[] {
  const s = report.summary.extra['skipped_modes'];
  if (Array.isArray(s)) {
    return s.flatMap((e) => (e && typeof e === 'object' && !Array.isArray(e) && typeof e['mode'] === 'string' ? [`${e['mode']} (${typeof e['reason'] === 'string' ? e['reason'] : 'no reason given'})`] : []));
  }
  if (s && typeof s === 'object') return Object.entries(s).map(([m, why]) => `${m} (${typeof why === 'string' ? why : 'no reason given'})`);
  return [];
}

/**
 * H2 of every pair (a, b), a before b in report order: Δ = mean(a) − mean(b) over the queries both have, with
 * `pairedTable` (b the baseline, so its Δ is a − b). The pairs sharing a baseline and the same queries go through one
 * table: the resamples and masks depend only on the seed and the number of rows, so each pair's numbers are those
 * of a table of that pair alone (and of Compare's on the same rows).
 */
function h2Rows(t: ModeTable, metric: string, settings: RetrievalAnalysis['settings']): H2Row[] {
  const values = new Map(t.modes.map((m) => {
    const v = new Map<string, number>();
    for (const [q, r] of t.rows.get(m)!) { const x = finite(r.scores[metric]); if (x !== null) v.set(q, x); }
    return [m, v];
  }));
  const out = new Map<string, H2Row>();
  t.modes.forEach((b, j) => {
    const vb = values.get(b)!;
    // The earlier modes by the queries they share with b.
    const groups = new Map<string, { queries: string[]; modes: string[] }>();
    for (const a of t.modes.slice(0, j)) {
      const va = values.get(a)!;
      const queries = [...va.keys()].filter((q) => vb.has(q));
      const key = queries.join('\u0000');
      const g = groups.get(key);
      if (g) g.modes.push(a); else groups.set(key, { queries, modes: [a] });
    }
    for (const { queries, modes } of groups.values()) {
      const col = (v: Map<string, number>): Column => ({ kind: 'mean', x: Float64Array.from(queries, (q) => v.get(q)!), defined: new Uint8Array(queries.length).fill(1), root: false });
      const bVals = queries.map((q) => vb.get(q)!);
      const table = queries.length ? pairedTable([...modes.map((a) => [col(values.get(a)!)]), [col(vb)]], modes.length, settings) : null;
      modes.forEach((a, i) => {
        const aVals = queries.map((q) => values.get(a)!.get(q)!);
        const cell = table?.[i]?.[0];
        const wtl = winTieLoss(bVals, aVals, true, COMPARE_DEFAULTS.tieEpsilon);
        const delta = queries.length ? finite(mean(aVals) - mean(bVals)) : null;
        out.set(`${a}\u0000${b}`, {
          a, b, metric, n: queries.length, delta,
          ci95: delta === null ? null : finitePair(cell?.deltaCi ?? null),
          p_value: delta === null ? null : finite(cell?.pBootstrap), p_randomization: delta === null ? null : finite(cell?.pRandomization),
          wins: wtl.win, ties: wtl.tie, losses: wtl.loss,
        });
      });
    }
  });
  const rows: H2Row[] = [];
  t.modes.forEach((a, i) => t.modes.slice(i + 1).forEach((b) => rows.push(out.get(`${a}\u0000${b}`)!)));
  return rows;
}

/** The analysis of a retrieval report; ok: false (a message) for another kind or a report with no rows. */
export function analyzeRetrievalReport(report: Report, opts: Partial<AnalysisOptions> = {}): AnalysisOutcome {
  if (report.kind !== 'retrieval') return { ok: false, message: `This is a ${report.kind} report: the H1 / H2 analysis reads retrieval reports (rag-lab eval-beir --report-out, or a retrieval run of the Benchmark tab).` };
  if (report.rows.length === 0) return { ok: false, message: 'This retrieval report has no rows: nothing to analyse.' };
  const metric = opts.metric ?? ANALYSIS_DEFAULTS.metric;
  const resamples = reportResamples(report);
  const iterations = draws(opts.iterations, resamples.resamples, ANALYSIS_DEFAULTS.iterations);
  const permutations = draws(opts.permutations, resamples.resamples, ANALYSIS_DEFAULTS.permutations);
  const settings: RetrievalAnalysis['settings'] = {
    iterations: iterations.n,
    permutations: permutations.n,
    seed: opts.seed !== undefined && Number.isFinite(opts.seed) ? Math.trunc(opts.seed) : report.seed,
    source: { iterations: iterations.source, permutations: permutations.source },
  };
  const t = modeTable(report);
  const judged = new Set<string>();
  for (const m of t.rows.values()) for (const [q, r] of m) if (finite(r.scores[metric]) !== null) judged.add(q);
  if (judged.size === 0) {
    const fields = [...new Set(report.rows.flatMap((r) => Object.keys(r.scores)))].filter((f) => !f.startsWith('qpp.'));
    return { ok: false, message: `No row of this report has a number for ${metric}${fields.length ? ` (its metrics: ${fields.slice(0, 12).join(', ')})` : ''}: nothing to analyse.` };
  }

  const warnings: string[] = [];
  if (resamples.warning && (iterations.source !== 'option' || permutations.source !== 'option')) warnings.push(resamples.warning);
  if (judged.size < MIN_ROWS) warnings.push(`Only ${queriesWord(judged.size)} with ${metric}: intervals are wide and tests have little power (fewer than ${MIN_ROWS}).`);
  if (t.repeated > 0) warnings.push(`${t.repeated} of ${report.rows.length} rows repeat a (mode, query) an earlier row already holds: only the first of each was used, so the analysis rests on ${queriesWord(judged.size)}.`);
  const skipped = skippedModes(report);
  if (skipped.length) warnings.push(`Modes that could not run (no rows, not in H1 / H2): ${skipped.join('; ')}.`);

  const keys = predictorKeys(report);
  const h1: H1Row[] = [];
  if (keys.length === 0) warnings.push('This report has no predictor fields (qpp.*): it was made before predictors were recorded, so H1 needs a run of this version.');
  const missing = new Map<string, string[]>();
  for (const k of keys) {
    const mode = PREDICTOR_MODE[k.retriever];
    const field = predictorField(k);
    if (!t.rows.has(mode)) { missing.set(mode, [...(missing.get(mode) ?? []), field]); continue; }
    h1.push(h1Row(k, mode, pointsOf(t.rows.get(mode), field, metric), metric, { iterations: settings.iterations, seed: settings.seed }));
  }
  for (const [mode, fields] of missing) warnings.push(`Mode ${mode} is not in the report: ${fields.join(', ')} left out of H1 (they pair with its ${metric}).`);

  if (t.modes.length < 2) warnings.push(`One mode (${t.modes[0]}): no pair of modes to compare, so no H2.`);
  for (const m of t.modes) {
    const lacks = [...judged].filter((q) => finite(t.rows.get(m)!.get(q)?.scores[metric]) === null).length;
    if (lacks && t.modes.length > 1) warnings.push(`Mode ${m} lacks ${metric} on ${queriesWord(lacks)} the others have: left out of its pairs.`);
  }
  if (settings.iterations === 0) warnings.push('Bootstrap iterations are 0: no intervals and no bootstrap p.');
  if (settings.permutations === 0) warnings.push('Permutations are 0: no randomization p.');

  return { ok: true, queries: judged.size, modes: t.modes, metric, means: modeMeans(t, metric), h1, h2: h2Rows(t, metric, settings), warnings, settings };
}

/** The points of one H1 row (x = predictor, y = metric, key = query id) for the scatter plot and its fit. */
export function h1Points(report: Report, row: Pick<H1Row, 'predictor' | 'retriever' | 'calibration'>, metric = 'ndcg@10'): { x: number[]; y: number[]; keys: string[] } {
  const retriever = (Object.keys(PREDICTOR_MODE) as QppRetriever[]).find((r) => PREDICTOR_MODE[r] === row.retriever);
  const key = retriever ? parsePredictorField(`qpp.${row.predictor}.${retriever}${row.calibration ? `.${row.calibration}` : ''}`) : null;
  if (!key) return { x: [], y: [], keys: [] };
  return pointsOf(modeTable(report).rows.get(row.retriever), predictorField(key), metric);
}

/** The JSON object `rag-lab analyze --json` prints on its last line (issue 13's shape, exactly those keys, and the verdicts). */
export function analysisJson(a: RetrievalAnalysis): {
  queries: number;
  h1: Array<{ predictor: string; retriever: string; calibration: string | null; pearson_r: number | null; p_value: number | null; spearman: number | null; kendall: number | null; ci95: [number, number] | null }>;
  h2: Array<{ a: string; b: string; metric: string; delta: number | null; ci95: [number, number] | null; p_value: number | null; wins: number; ties: number; losses: number }>;
  verdicts: HypothesisVerdicts;
} {
  return {
    queries: a.queries,
    h1: a.h1.map((r) => ({ predictor: r.predictor, retriever: r.retriever, calibration: r.calibration, pearson_r: r.pearson_r, p_value: r.p_value, spearman: r.spearman, kendall: r.kendall, ci95: r.ci95 })),
    h2: a.h2.map((r) => ({ a: r.a, b: r.b, metric: r.metric, delta: r.delta, ci95: r.ci95, p_value: r.p_value, wins: r.wins, ties: r.ties, losses: r.losses })),
    verdicts: hypothesisVerdicts(a),
  };
}
