/**
 * The Ask tab's scored answer (seed A's single-question view): per metric its name, what it means, the evaluator's
 * value (or why there is none: absent is not 0) and the RAGBench question's gold label beside it; and the gold
 * question a Benchmark row opens in Ask, checked on the way in.
 */
import { EVALUATORS, type EvaluatorId } from '../../lib/eval/score/evaluators.ts';
import type { AnswerScore } from '../../lib/eval/score/score-answer.ts';
import { RAGAS_METRICS, type RagasMetric } from '../../lib/eval/metrics/ragas.ts';
import type { TraceScores } from '../../lib/eval/metrics/trace.ts';
import type { ReportRow } from '../../lib/reports/format.ts';
import { MAX_GOLD_QUESTION_CHARS, type GoldQuestion } from '../../lib/data/ragbench-gold.ts';

type Trace = keyof TraceScores;
const TRACE: readonly Trace[] = ['relevance', 'utilization', 'completeness', 'adherence'];

/** What each metric says, in a line. */
export const METRIC_MEANINGS: Record<Trace | RagasMetric, string> = {
  relevance: 'share of the sources that is relevant to the question',
  utilization: 'share of the sources the answer uses',
  completeness: 'share of the relevant source text the answer uses',
  adherence: 'the answer is supported by the sources (1) or not (0: a hallucination)',
  faithfulness: 'share of the answer’s statements the sources support',
  answer_relevancy: 'how well questions written from the answer match the question (cosine)',
  context_precision: 'whether the sources useful for the reference answer are ranked first',
  context_recall: 'share of the reference answer’s sentences the sources support',
};

export type { GoldQuestion };

/** "Open in Ask" of a RAGBench report row (validate or pipeline): null when opened, else why it cannot be. */
export type OpenInAsk = (row: ReportRow, kind: 'ragbench-validate' | 'ragbench-pipeline') => string | null;

export interface ScoreLine {
  metric: Trace | RagasMetric;
  meaning: string;
  /** The value to 3 decimals, or why there is none. */
  value: string;
  /** The gold label (TRACe only, with a gold question). */
  gold: string | null;
}

const fixed = (x: number) => x.toFixed(3);

/** Why an evaluator gave no value for a metric (NaN). */
function absent(evaluator: EvaluatorId, m: Trace | RagasMetric): string {
  const own = EVALUATORS[evaluator].absent?.(m);
  if (own) return `— (${own})`;
  if (m === 'completeness') return '— (nothing in the sources is relevant)';
  if (m === 'answer_relevancy') return '— (needs an embedder: load one under Settings → Models)';
  if (m === 'context_precision' || m === 'context_recall') return '— (needs a reference answer: open a RAGBench question)';
  if (m === 'faithfulness') return '— (the answer makes no statement)';
  return '— (not scored)';
}

const goldOf = (g: GoldQuestion, m: Trace): string => {
  const x = g[m];
  if (x === null) return 'N/A';
  if (typeof x === 'boolean') return x ? '1 (supported)' : '0 (hallucinated)';
  return fixed(x);
};

/** The gold labels of a RAGBench question, in the order of the score's lines. */
export const goldLabels = (g: GoldQuestion): Array<{ metric: Trace; value: string }> => TRACE.map((m) => ({ metric: m, value: goldOf(g, m) }));

/** The lines of a score: TRACe's four, then RAGAS's four when RAGAS scored. */
export function scoreLines(s: AnswerScore, gold: GoldQuestion | null): ScoreLine[] {
  const line = (m: Trace | RagasMetric, x: number, g: string | null): ScoreLine => ({
    metric: m, meaning: METRIC_MEANINGS[m], value: Number.isFinite(x) ? fixed(x) : absent(s.evaluator, m), gold: g,
  });
  const out = TRACE.map((m) => line(m, s.scores[m], gold ? goldOf(gold, m) : null));
  if (s.ragas) for (const m of RAGAS_METRICS) out.push(line(m, s.ragas[m], null));
  return out;
}

/** The bounds of a gold question (the Ask tab's question limit; RAGBench's responses are far shorter). */
const MAX_QUESTION = MAX_GOLD_QUESTION_CHARS;
const MAX_RESPONSE = 40_000;

const label = (x: unknown): number | null | undefined =>
  x === null ? null : typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1 ? x : undefined;

/**
 * A RAGBench report row as a gold question (its group is the subset, its gold the labels; a validate row's answer is
 * RAGBench's response, a pipeline row's the pipeline's own, so a pipeline row brings no response), or a message
 * saying what is wrong with it: report rows come from saved, synced or shared reports.
 */
export function goldQuestion(row: { group: unknown; question: unknown; answer: unknown; gold: Readonly<Record<string, unknown>> }, kind: 'ragbench-validate' | 'ragbench-pipeline' = 'ragbench-validate'): { ok: true; gold: GoldQuestion } | { ok: false; message: string } {
  const { group: subset, question } = row;
  const response = kind === 'ragbench-validate' ? row.answer : null;
  if (typeof subset !== 'string' || typeof question !== 'string' || (kind === 'ragbench-validate' && typeof response !== 'string')) return { ok: false, message: 'This row has no question to open.' };
  const q = question.trim();
  if (q === '' || q.length > MAX_QUESTION) return { ok: false, message: `This row's question is empty or over ${MAX_QUESTION} characters: it cannot be asked.` };
  if (typeof response === 'string' && response.length > MAX_RESPONSE) return { ok: false, message: `This row's response is over ${MAX_RESPONSE} characters.` };
  const [relevance, utilization, completeness] = [label(row.gold.relevance), label(row.gold.utilization), label(row.gold.completeness)];
  const adherence = row.gold.adherence;
  if (relevance === undefined || utilization === undefined || completeness === undefined || (adherence !== null && typeof adherence !== 'boolean')) {
    return { ok: false, message: 'This row\'s gold labels are not scores in [0, 1].' };
  }
  return { ok: true, gold: { subset, question: q, response: typeof response === 'string' ? response : null, relevance, utilization, completeness, adherence } };
}

/**
 * The gold question to show beside the question `question`: the one opened from a report row while the field holds
 * it (a pipeline row's missing response filled in from the open subset's own row), else the open knowledge base's
 * own question of that text (`own`, by question), else none.
 */
export function shownGold(question: string, opened: GoldQuestion | null, own: ReadonlyMap<string, GoldQuestion>): GoldQuestion | null {
  const q = question.trim();
  const mine = own.get(q) ?? null;
  const row = opened && opened.question === q ? opened : null;
  if (!row) return mine;
  return row.response === null && mine && mine.subset === row.subset ? { ...row, response: mine.response } : row;
}
