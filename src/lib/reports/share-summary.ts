/**
 * The report a share link carries: the same summary, config, data and environment as the full report, and only
 * the rows that say most about it — those with the largest error or the lowest score by the kind's first metric
 * (REPORT_METRICS: validate's AUROC ranks rows by 1 − |predicted − gold adherence|, pipeline by relevance,
 * retrieval by nDCG@10, every mode in turn; a tune's trials best first: winner, front, finalists) — with long texts cut. `truncated.rows` keeps the full report's row
 * count. Its figures are the report's per pipeline (pipelines.ts): a multi-mode report's link carries no pooled one.
 *
 * The summary shrinks step by step (SHARE_STEPS: contexts cut, then dropped, then shorter texts, then fewer rows,
 * then none) until its link fits the budget; when even the summary without rows does not fit, it says so and
 * gives no link.
 */
import type { Report, ReportRow } from './format.ts';
import { REPORT_METRICS } from './metrics.ts';
import { groupsArePipelines, pipelineWarnings, rowPipeline } from './pipelines.ts';
import { encodeReportFragment, SHARE_LINK_LIMITS } from './share-link.ts';
import { tuneRowsRanked } from './tune-extra.ts';

export interface ShareStep {
  /** Rows kept (the worst first). */
  rows: number;
  /** Characters kept of each question, answer and error. */
  text: number;
  /** Contexts kept per row (0: dropped) and characters of each. */
  contexts: number;
  contextText: number;
}

/** The order a summary shrinks in: contexts go first, then text length, then rows. */
export const SHARE_STEPS: readonly ShareStep[] = [
  { rows: 20, text: 400, contexts: 2, contextText: 300 },
  { rows: 20, text: 400, contexts: 0, contextText: 0 },
  { rows: 20, text: 200, contexts: 0, contextText: 0 },
  { rows: 10, text: 200, contexts: 0, contextText: 0 },
  { rows: 5, text: 120, contexts: 0, contextText: 0 },
  { rows: 0, text: 0, contexts: 0, contextText: 0 },
];

/** The report's own notes are cut to this in a link (the full report keeps them). */
const NOTES_CHARS = 2000;
/** Retrieved ids kept per row. */
const RETRIEVED = 10;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, Math.max(0, n - 1))}…` : s);

/**
 * The rows of `report`, worst first by the kind's first metric (the largest error, or the lowest score); rows
 * without a value of it come last, in their report order. A multi-mode retrieval report's modes take turns (each
 * mode's worst, then each mode's second worst, …), so a summary shows every mode, not the weakest one alone. A
 * tune's rows are settings, not questions: the winner, the front and the finalists say most (tune-extra.ts).
 */
export function worstRows(report: Report): ReportRow[] {
  if (report.kind === 'tune') return tuneRowsRanked(report.rows);
  const m = REPORT_METRICS[report.kind][0]!;
  const scored = report.rows.map((row, i) => ({ row, i, v: m.perRow(row) }));
  // Badness: a score where higher is better ranks low-first; an error where lower is better ranks high-first.
  const bad = (v: number) => (m.higherIsBetter ? -v : v);
  scored.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
    return bad(b.v) - bad(a.v) || a.i - b.i;
  });
  if (!groupsArePipelines(report)) return scored.map((s) => s.row);
  // Modes in the report's order, each with its rows worst first.
  const byMode = new Map<string | null, ReportRow[]>();
  for (const row of report.rows) { const p = rowPipeline(report, row).pipeline; if (!byMode.has(p)) byMode.set(p, []); }
  for (const { row } of scored) {
    const p = rowPipeline(report, row).pipeline;
    byMode.get(p)!.push(row);
  }
  const lists = [...byMode.values()];
  const out: ReportRow[] = [];
  for (let k = 0; out.length < report.rows.length; k++) for (const l of lists) if (k < l.length) out.push(l[k]!);
  return out;
}

function shrinkRow(row: ReportRow, step: ShareStep): ReportRow {
  const out: ReportRow = { ...row, question: cut(row.question, step.text), answer: cut(row.answer, step.text) };
  if (row.error !== undefined) out.error = cut(row.error, step.text);
  if (row.contexts && step.contexts > 0) out.contexts = row.contexts.slice(0, step.contexts).map((c) => cut(c, step.contextText));
  else delete out.contexts;
  if (row.retrieved) out.retrieved = row.retrieved.slice(0, RETRIEVED);
  return out;
}

/**
 * `report` as a summary at one step of SHARE_STEPS (the worst rows, texts cut), marked truncated. A multi-mode
 * retrieval report's summary carries its per-mode figures only: the pooled ones an older report holds are dropped.
 */
export function summaryAt(report: Report, step: ShareStep, ranked: readonly ReportRow[] = worstRows(report)): Report {
  const pooledOut = groupsArePipelines(report);
  return {
    ...report,
    ...(pooledOut ? { summary: { ...report.summary, metrics: report.summary.metrics.filter((m) => m.group !== null), warnings: pipelineWarnings(report) } } : {}),
    notes: cut(report.notes, NOTES_CHARS),
    rows: ranked.slice(0, step.rows).map((r) => shrinkRow(r, step)),
    truncated: { rows: report.truncated?.rows ?? report.rows.length },
  };
}

export type ShareSummary =
  | { ok: true; report: Report; fragment: string; chars: number; step: number }
  | { ok: false; message: string; chars: number };

/**
 * The largest summary of `report` whose link fragment (`#r=v1.…`) has at most `budget` characters (default 8,000),
 * trying SHARE_STEPS in order; `ok: false` with the size of the smallest when none fits.
 */
export async function shareSummary(report: Report, opts: { budget?: number } = {}): Promise<ShareSummary> {
  const budget = opts.budget ?? SHARE_LINK_LIMITS.budget;
  const ranked = worstRows(report);
  let chars = 0;
  for (let i = 0; i < SHARE_STEPS.length; i++) {
    const step = SHARE_STEPS[i]!;
    const summary = summaryAt(report, step, ranked);
    const fragment = await encodeReportFragment(summary);
    chars = fragment.length + 1; // with the '#'
    if (chars <= budget) return { ok: true, report: summary, fragment, chars, step: i };
  }
  return {
    ok: false, chars,
    message: `The report is too large for a link (${Math.ceil(chars / 1024)} KB even without rows, the budget is ${Math.ceil(budget / 1024)} KB).`,
  };
}
