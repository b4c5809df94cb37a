/**
 * The text tables `rag-lab eval-ragbench` prints: validate mode's AUROC/RMSE table next to RAGBench's baselines (with
 * bootstrap intervals and small-sample warnings), pipeline mode's recall/predicted/gold table and its figures against
 * the questions' gold labels (pipeline-gold.ts, with intervals and warnings), each followed by the
 * RAGAS evaluator's table when it ran (ragas-summary.ts), and the judge-repeat lines (spread, verdict flips, parse
 * failures) of LLM-judge runs; each mode's whole text output, and the lines an API run prints before its calls (the
 * estimate) and a pipeline run as each knowledge base is built.
 */
import type { RagbenchKb } from '../../data/ragbench-kb.ts';
import type { RagConfig } from '../../rag/config.ts';
import { describeEstimate, type ApiAccount } from '../core/api-usage.ts';
import { formatInterval } from '../ragbench/bootstrap.ts';
import type { RunEstimate } from '../core/cost.ts';
import { TRACE_METRICS, type RepeatSummary } from '../ragbench/judge-runs.ts';
import { pipelineSettingsText } from '../core/pipeline-settings.ts';
import type { PipelineSubsetResult } from '../ragbench/pipeline-mode.ts';
import { GOLD_COMPARISON_NOTE, type GoldComparison } from '../ragbench/pipeline-gold.ts';
import type { PipelineEstimateTotals } from './pipeline-session.ts';
import { meanOver, type SubsetValidation } from '../ragbench/validate-mode.ts';
import { ragasTableLines } from '../metrics/ragas-summary.ts';

const fmt = (x: number, w = 7) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a').padStart(w);
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');
const int = (x: number) => Math.round(x).toLocaleString('en-US');

export function formatValidationTable(results: readonly SubsetValidation[], evaluator: string): string {
  const head = ['subset'.padEnd(11), 'n'.padStart(5), 'halluc'.padStart(6), '|',
    'AUROC:', 'ours'.padStart(6), 'ragas'.padStart(7), 'trulens'.padStart(7), 'gpt3'.padStart(7), '|',
    'RMSE rel:', 'ours'.padStart(5), 'ragas'.padStart(7), 'trulens'.padStart(7), 'gpt3'.padStart(7), '|',
    'RMSE util:', 'ours'.padStart(5), 'gpt35'.padStart(7), '|', 'RMSE compl'].join(' ');
  const row = (name: string, n: string, h: string, r: { auroc: number; ragas: number; trulens: number; gpt3: number; rr: number; rragas: number; rtrulens: number; rgpt3: number; ru: number; rugpt: number; rc: number }) =>
    [name.padEnd(11), n.padStart(5), h.padStart(6), '|', ''.padStart(6), fmt(r.auroc, 6), fmt(r.ragas), fmt(r.trulens), fmt(r.gpt3), '|',
      ''.padStart(9), fmt(r.rr, 5), fmt(r.rragas), fmt(r.rtrulens), fmt(r.rgpt3), '|', ''.padStart(10), fmt(r.ru, 5), fmt(r.rugpt), '|', fmt(r.rc, 10)].join(' ');
  const lines = results.map((r) => row(r.subset, String(r.n), String(r.hallucinations), {
    auroc: r.auroc, ragas: r.baselines.ragas.auroc, trulens: r.baselines.trulens.auroc, gpt3: r.baselines.gpt3.auroc,
    rr: r.rmse_relevance, rragas: r.baselines.ragas.rmse_relevance, rtrulens: r.baselines.trulens.rmse_relevance, rgpt3: r.baselines.gpt3.rmse_relevance,
    ru: r.rmse_utilization, rugpt: r.baselines.gpt3.rmse_utilization, rc: r.rmse_completeness,
  }));
  const m = (f: (r: SubsetValidation) => number) => meanOver(results, f);
  lines.push(row('mean', String(results.reduce((a, r) => a + r.n, 0)), String(results.reduce((a, r) => a + r.hallucinations, 0)), {
    auroc: m((r) => r.auroc), ragas: m((r) => r.baselines.ragas.auroc), trulens: m((r) => r.baselines.trulens.auroc), gpt3: m((r) => r.baselines.gpt3.auroc),
    rr: m((r) => r.rmse_relevance), rragas: m((r) => r.baselines.ragas.rmse_relevance), rtrulens: m((r) => r.baselines.trulens.rmse_relevance), rgpt3: m((r) => r.baselines.gpt3.rmse_relevance),
    ru: m((r) => r.rmse_utilization), rugpt: m((r) => r.baselines.gpt3.rmse_utilization), rc: m((r) => r.rmse_completeness),
  }));
  const ci = results.filter((r) => r.intervals).map((r) => `  ${r.subset}: ${figureLine(r, r.intervals!)}`);
  const warnings = results.flatMap((r) => (r.warnings ?? []).map((w) => `  warning: ${r.subset}: ${w}`));
  return [`RAGBench validate, evaluator ${evaluator}: hallucination AUROC (higher is better) and RMSE vs gold (lower is better)`,
    head, '-'.repeat(head.length), ...lines, ...(ci.length ? ['', '95% bootstrap intervals (percentile, rows resampled):', ...ci] : []),
    ...(warnings.length ? ['', ...warnings] : []), ...ragasTableLines(results)].join('\n');
}

/** "AUROC 0.750 [0.500, 1.000] · RMSE rel … · util … · compl …": the four figures against gold with their intervals. */
function figureLine(r: Pick<GoldComparison, 'auroc' | 'rmse_relevance' | 'rmse_utilization' | 'rmse_completeness'>, iv: GoldComparison['intervals']): string {
  const one = (name: string, x: number, c: [number, number] | null | undefined) => `${name} ${fmt(x, 5).trim()}${iv ? ` ${formatInterval(c, 3) || '[—]'}` : ''}`;
  return [one('AUROC', r.auroc, iv?.auroc), one('RMSE rel', r.rmse_relevance, iv?.rmse_relevance),
    one('util', r.rmse_utilization, iv?.rmse_utilization), one('compl', r.rmse_completeness, iv?.rmse_completeness)].join(' · ');
}

/** Pipeline mode's figures against the questions' gold labels, per subset, with intervals, warnings and what they mean. */
export function goldComparisonLines(results: readonly PipelineSubsetResult[]): string[] {
  if (results.length === 0) return [];
  const bootstrapped = results.some((r) => r.vsGold.intervals);
  return ['', `vs gold: hallucination AUROC (higher is better) and RMSE (lower is better) of the scores of our answers against the questions' gold labels${bootstrapped ? ' (95% bootstrap intervals)' : ''}:`,
    ...results.map((r) => `  ${r.subset}: n ${r.vsGold.n}, halluc ${r.vsGold.hallucinations} · ${figureLine(r.vsGold, r.vsGold.intervals)}`),
    ...results.flatMap((r) => r.vsGold.warnings.map((w) => `  warning: ${r.subset}: ${w}`)), GOLD_COMPARISON_NOTE];
}

export function formatPipelineTable(results: readonly PipelineSubsetResult[], title: string): string {
  const k = results[0]?.k ?? 0;
  const head = ['subset'.padEnd(11), 'n'.padStart(4), 'answered'.padStart(8), '|', `recall@${k}`.padStart(9), 'rel.docs'.padStart(8), '|',
    'predicted:', 'rel'.padStart(6), 'util'.padStart(6), 'adh'.padStart(6), 'compl'.padStart(6), '|',
    'gold (RAGBench):', 'rel'.padStart(6), 'util'.padStart(6), 'adh'.padStart(6), 'compl'.padStart(6)].join(' ');
  const line = (name: string, n: string, answered: string, v: number[]) =>
    [name.padEnd(11), n.padStart(4), answered.padStart(8), '|', fmt(v[0]!, 9), fmt(v[1]!, 8), '|', ''.padStart(10),
      fmt(v[2]!, 6), fmt(v[3]!, 6), fmt(v[4]!, 6), fmt(v[5]!, 6), '|', ''.padStart(16), fmt(v[6]!, 6), fmt(v[7]!, 6), fmt(v[8]!, 6), fmt(v[9]!, 6)].join(' ');
  const vals = (r: PipelineSubsetResult) => [r.recallAtK, r.relevantRecallAtK, r.predicted.relevance, r.predicted.utilization, r.predicted.adherence,
    r.predicted.completeness, r.gold.relevance, r.gold.utilization, r.gold.adherence, r.gold.completeness];
  const lines = results.map((r) => line(r.subset, String(r.n), String(r.statuses.answered ?? 0), vals(r)));
  if (results.length > 1) {
    const all = results.map(vals);
    const m = all[0]!.map((_, i) => { const xs = all.map((v) => v[i]!).filter(Number.isFinite); return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN; });
    lines.push(line('mean', String(results.reduce((a, r) => a + r.n, 0)), String(results.reduce((a, r) => a + (r.statuses.answered ?? 0), 0)), m));
  }
  const other = results.flatMap((r) => {
    const s = Object.entries(r.statuses).filter(([st]) => st !== 'answered');
    return s.length ? [`  ${r.subset}: ${s.map(([st, c]) => `${c} ${st}`).join(', ')}`] : [];
  });
  return [title, head, '-'.repeat(head.length), ...lines, ...goldComparisonLines(results), ...ragasTableLines(results),
    ...(other.length ? ['', 'not answered (no scores; recall still counted):', ...other] : []),
    '', `recall@${k}: share of each question's own RAGBench documents among the documents of the ${k} retrieved chunks (rel.docs: only those holding a gold relevant sentence).`,
    'gold: RAGBench\'s labels of its own answers to the same questions (a reference, not a target).'].join('\n');
}

export function repeatLines(name: string, s: RepeatSummary, labelOf: (key: string) => string): string[] {
  const short = { relevance: 'rel', utilization: 'util', adherence: 'adh', completeness: 'compl' } as const;
  const std = TRACE_METRICS.map((m) => `${short[m]} ${fmt(s.meanStd[m], 5).trim()}`).join(', ');
  const lines = [
    `  ${name}: ${s.rows} rows × ${s.repeats}; adherence flips in ${s.flippedRows}/${s.comparableRows} rows (${pct(s.flipRate)}); mean std ${std}`,
    `    parse failures: ${s.parseFailedCalls}/${s.calls} calls (${pct(s.callParseFailureRate)}), ${s.parseFailedRows}/${s.rows} rows (${pct(s.rowParseFailureRate)}); failed calls ${s.failedCalls}`,
  ];
  if (s.flipped.length) lines.push(`    flipped: ${s.flipped.slice(0, 10).map(labelOf).join(', ')}${s.flipped.length > 10 ? `, … (${s.flipped.length - 10} more)` : ''}`);
  return lines;
}


/** What a mode's text output shows of a run. */
export interface RunTextInput {
  evaluator: string;
  /** Judge calls per row. */
  repeats: number;
  /** The LLM judge's repeat trackers per subset (null: no judge). */
  judge: { trackers: ReadonlyMap<string, { summary(): RepeatSummary }> } | null;
  /** A row key in words. */
  labelOf: (key: string) => string;
}

/** Under the table of an LLM-judge run: the repeats (`head`), then each subset's repeat lines. */
const judgeLines = (o: RunTextInput, head: string): string[] =>
  o.judge ? ['', head, ...[...o.judge.trackers].flatMap(([s, t]) => repeatLines(s, t.summary(), o.labelOf))] : [];

/** Validate mode's text output: the table, then the judge's repeat lines. */
export function validateText(results: readonly SubsetValidation[], o: RunTextInput): string {
  const r = o.repeats;
  return [formatValidationTable(results, o.evaluator + (r > 1 ? ` (judge × ${r}, scores are means)` : '')),
    ...judgeLines(o, `judge repeats: ${r} per row${r > 1 ? ' (std: population standard deviation over the parsed replies of a row, averaged over rows)' : ''}`)].join('\n');
}

/** Pipeline mode's text output: the table under the pipeline's settings, then the judge's repeat lines. */
export function pipelineText(results: readonly PipelineSubsetResult[], config: RagConfig, o: RunTextInput): string {
  const title = `RAGBench pipeline over each subset's pooled documents: ${pipelineSettingsText(config)}; scored by ${o.evaluator}${o.repeats > 1 ? ` (judge × ${o.repeats}, means)` : ''}`;
  return [formatPipelineTable(results, title), ...judgeLines(o, `judge repeats: ${o.repeats} per answer`)].join('\n');
}

/** Before a validate run's judge calls: the estimate of judging its sampled rows `repeats` times. */
export const validateEstimateLines = (api: ApiAccount, planned: { rows: number; estimate: RunEstimate }, repeats: number): string[] =>
  describeEstimate(api, planned.estimate, `judge, ${int(planned.rows)} rows × ${repeats}`);

/** Before a pipeline run's calls: the answers' estimate, the judge's (with an LLM judge), then what they leave out. */
export const pipelineEstimateLines = (api: ApiAccount, e: PipelineEstimateTotals, repeats: number): string[] => [
  ...describeEstimate(api, e.answers, `answers, ${e.answerable} of ${e.questions} questions pass retrieval`),
  ...(e.judge ? describeEstimate(api, e.judge, `judge, ${e.answerable} answers × ${repeats}`) : []),
  ...e.notes.map((note) => `  note: ${note}`),
];

/** A pipeline run's line when a subset's knowledge base is built. */
export const kbLine = (r: RagbenchKb, ms: number): string =>
  `${r.subset}: knowledge base of ${int(r.docs.length)} documents (pooled from ${int(r.documentCount)}), ${int(r.kb.size)} chunks, built in ${ms.toFixed(0)} ms`;
