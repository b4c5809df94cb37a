/**
 * A RAGBench question with its gold labels and RAGBench's own response (the gold answer): what the Ask tab shows
 * beside the pipeline's answer and its scores (seed A's single-question view). It comes from a benchmark report row
 * (the UI checks those on the way in) or from the rows of a RAGBench subset opened as a knowledge base.
 */
import type { RagbenchRow } from './ragbench.ts';

export interface GoldQuestion {
  subset: string;
  question: string;
  /** RAGBench's response; null when the source does not carry it (a pipeline report row holds the pipeline's answer). */
  response: string | null;
  relevance: number | null;
  utilization: number | null;
  completeness: number | null;
  /** false: RAGBench's response is a hallucination; null: not annotated. */
  adherence: boolean | null;
}

/** At most this many questions of a subset are offered (RAGBench's seven test subsets have 132–423 rows). */
export const MAX_GOLD_QUESTIONS = 5000;
/** A question longer than this cannot be asked (the Ask tab's limit). */
export const MAX_GOLD_QUESTION_CHARS = 4000;

const label = (x: number | null): number | null => (x !== null && Number.isFinite(x) && x >= 0 && x <= 1 ? x : null);

/** One row as a gold question (a label outside [0, 1] counts as not annotated). */
export function goldOfRow(row: RagbenchRow, subset: string): GoldQuestion {
  return {
    subset, question: row.question.trim(), response: row.response,
    relevance: label(row.relevance_score), utilization: label(row.utilization_score), completeness: label(row.completeness_score),
    adherence: row.adherence_score,
  };
}

/** The subset's questions, in row order: blank or over-long ones left out, a repeated question kept once (its first row). */
export function goldQuestionsOf(rows: readonly RagbenchRow[], subset: string): GoldQuestion[] {
  const seen = new Set<string>();
  const out: GoldQuestion[] = [];
  for (const row of rows) {
    const g = goldOfRow(row, subset);
    if (g.question === '' || g.question.length > MAX_GOLD_QUESTION_CHARS || seen.has(g.question)) continue;
    seen.add(g.question);
    out.push(g);
    if (out.length === MAX_GOLD_QUESTIONS) break;
  }
  return out;
}
