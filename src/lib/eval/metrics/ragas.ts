/**
 * RAGAS metrics (Es, James, Espinosa-Anke and Schockaert, "RAGAS: Automated Evaluation of Retrieval Augmented
 * Generation", 2023, arXiv:2309.15217; the ragas library's docs, docs.ragas.io, "Available metrics"): the formulas,
 * the judge's prompts and the checks of its replies. ragas-judge.ts asks the judge and puts them together.
 *
 *   faithfulness      = |statements supported by the contexts| / |statements|         (NaN without statements)
 *   answer relevancy  = (1/N) Σ_i cos(E(question), E(q_i)) over the N questions the judge writes from the answer,
 *                       0 when the judge calls the answer noncommittal (needs an embedder E; NaN without one)
 *   context precision = Σ_k precision@k · v_k / |{k : v_k = 1}|, v_k = 1 when context k was useful for the
 *                       reference answer (ragas' LLMContextPrecisionWithReference); 0 when no context is useful
 *   context recall    = |reference sentences attributable to the contexts| / |reference sentences|
 *
 * Each reply is one JSON object, parsed tolerantly (judge.ts `extractJson`) and checked with valibot: a reply that
 * is not JSON, misses its field, holds a verdict other than 0/1 (or true/false), or gives a different number of
 * verdicts than items asked about is a `RagasReplyError`, and the row fails (no scores; never averaged in).
 */
import * as v from 'valibot';
import type { ChatMessage } from '../../llm/types.ts';
import { extractJson, JUDGE_SYSTEM } from './judge.ts';
import type { TraceScores } from './trace.ts';

export const RAGAS_METRICS = ['faithfulness', 'answer_relevancy', 'context_precision', 'context_recall'] as const;
export type RagasMetric = (typeof RAGAS_METRICS)[number];

/** A row's RAGAS scores; NaN where a metric is absent (no statements, no embedder, no reference answer). */
export type RagasScores = Record<RagasMetric, number>;

/** What an evaluator returns for a row: the TRACe scores (NaN where it does not score them) and, for RAGAS, its own. */
export interface EvalScores extends TraceScores {
  ragas?: RagasScores;
}

/** The report's score field of a RAGAS metric: `ragas_faithfulness`, … (beside TRACe's, never in their place). */
export const ragasField = (m: RagasMetric): string => `ragas_${m}`;

/** Questions the judge writes per answer for answer relevancy (ragas' default `strictness`). */
export const RAGAS_QUESTIONS = 3;

// ------------------------------------------------------------------------------------------------ formulas

const share = (xs: readonly boolean[]) => (xs.length === 0 ? NaN : xs.filter(Boolean).length / xs.length);

/** faithfulness = |supported statements| / |statements|; NaN without statements. */
export const faithfulnessScore = (supported: readonly boolean[]): number => share(supported);

/** context recall = |attributable reference sentences| / |reference sentences|; NaN without sentences. */
export const contextRecallScore = (attributed: readonly boolean[]): number => share(attributed);

/** context precision = Σ_k precision@k · v_k / |relevant|, precision@k = |relevant in the top k| / k; 0 when none is relevant, NaN without contexts. */
export function contextPrecisionScore(useful: readonly boolean[]): number {
  if (useful.length === 0) return NaN;
  let hits = 0;
  let sum = 0;
  useful.forEach((u, i) => { if (u) { hits++; sum += hits / (i + 1); } });
  return hits === 0 ? 0 : sum / hits;
}

/** cos(a, b) = a·b / (‖a‖ ‖b‖); NaN when either is the zero vector or the lengths differ. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return NaN;
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i]! * b[i]!; na += a[i]! * a[i]!; nb += b[i]! * b[i]!; }
  return na === 0 || nb === 0 ? NaN : dot / Math.sqrt(na * nb);
}

/** answer relevancy = mean_i cos(E(question), E(q_i)), 0 when the answer is noncommittal; NaN without questions. */
export function answerRelevancyScore(question: ArrayLike<number>, generated: readonly ArrayLike<number>[], noncommittal: boolean): number {
  if (generated.length === 0) return NaN;
  if (noncommittal) return 0;
  return generated.reduce((a, g) => a + cosine(question, g), 0) / generated.length;
}

// ------------------------------------------------------------------------------------------------ prompts

const block = (text: string) => `"""\n${text.trim()}\n"""`;
const numbered = (items: readonly string[]) => items.map((t, i) => `${i + 1}. ${t.trim().replace(/\s+/g, ' ')}`).join('\n');
const contextsText = (contexts: readonly string[]) => contexts.map((c, i) => `Context ${i + 1}:\n${block(c)}`).join('\n\n');
const messages = (user: string): ChatMessage[] => [{ role: 'system', content: JUDGE_SYSTEM }, { role: 'user', content: user }];

/** Faithfulness, step 1: the answer as standalone statements. */
export function statementsPrompt(question: string, answer: string): ChatMessage[] {
  return messages(`Task: RAGAS statements.
Break the answer to the question into standalone statements: one fact each, understandable on its own (no pronouns that refer to other statements). Leave out nothing the answer claims; add nothing.

Question:
${block(question)}

Answer:
${block(answer)}

Reply with {"statements": [string]}.`);
}

/** Faithfulness, step 2: a verdict per statement against the contexts. */
export function faithfulnessPrompt(contexts: readonly string[], statements: readonly string[]): ChatMessage[] {
  return messages(`Task: RAGAS faithfulness.
For each numbered statement, decide whether it can be directly inferred from the contexts: 1 if it can, 0 if it cannot (not stated there, or contradicted).

${contextsText(contexts)}

Statements:
${numbered(statements)}

Reply with {"verdicts": [0 or 1, one per statement, in order]}.`);
}

/** Answer relevancy: N questions the answer answers, and whether it is noncommittal. */
export function answerRelevancyPrompt(answer: string, n = RAGAS_QUESTIONS): ChatMessage[] {
  return messages(`Task: RAGAS answer relevancy.
Write ${n} different questions that this answer answers: questions someone could have asked to get exactly this answer. Also say whether the answer is noncommittal (evasive, vague, or saying it does not know): 1 if it is, else 0.

Answer:
${block(answer)}

Reply with {"questions": [${n} strings], "noncommittal": 0 or 1}.`);
}

/** Context precision: a verdict per context (in retrieval order) on its use for the reference answer. */
export function contextPrecisionPrompt(question: string, reference: string, contexts: readonly string[]): ChatMessage[] {
  return messages(`Task: RAGAS context precision.
For each numbered context, decide whether it was useful in arriving at the reference answer to the question: 1 if it was, 0 if it was not.

Question:
${block(question)}

Reference answer:
${block(reference)}

${contextsText(contexts)}

Reply with {"verdicts": [0 or 1, one per context, in order]}.`);
}

/** Context recall: a verdict per reference sentence on whether the contexts support it. */
export function contextRecallPrompt(question: string, contexts: readonly string[], sentences: readonly string[]): ChatMessage[] {
  return messages(`Task: RAGAS context recall.
For each numbered sentence of the reference answer, decide whether it can be attributed to the contexts (the contexts state what it says): 1 if it can, 0 if it cannot.

Question:
${block(question)}

${contextsText(contexts)}

Reference answer, by sentence:
${numbered(sentences)}

Reply with {"attributed": [0 or 1, one per sentence, in order]}.`);
}

// ------------------------------------------------------------------------------------------------ replies

/** The judge step a reply answers, as messages name it. */
export type RagasStep = 'statements' | 'faithfulness' | 'answer relevancy' | 'context precision' | 'context recall';

/** A judge reply that cannot be used: not JSON, a missing or mistyped field, a verdict out of range, a wrong count. */
export class RagasReplyError extends Error {
  constructor(readonly step: RagasStep, reason: string) {
    super(`RAGAS ${step} reply: ${reason}`);
    this.name = 'RagasReplyError';
  }
}

/** A binary verdict: 0 / 1 or false / true; anything else is out of range. */
const Verdict = v.pipe(v.union([v.picklist([0, 1]), v.boolean()]), v.transform((x) => x === 1 || x === true));
const Verdicts = v.array(Verdict);
const Text = v.pipe(v.string(), v.trim(), v.minLength(1));

const SCHEMAS = {
  statements: v.object({ statements: v.pipe(v.array(v.string()), v.maxLength(200), v.transform((xs) => xs.map((s) => s.trim()).filter((s) => s !== ''))) }),
  verdicts: v.object({ verdicts: Verdicts }),
  attributed: v.object({ attributed: Verdicts }),
  questions: v.object({ questions: v.pipe(v.array(Text), v.minLength(1), v.maxLength(10)), noncommittal: Verdict }),
} as const;

function parse<K extends keyof typeof SCHEMAS>(step: RagasStep, kind: K, text: string): v.InferOutput<(typeof SCHEMAS)[K]> {
  const json = extractJson(text);
  if (json.error !== null) throw new RagasReplyError(step, json.error);
  const r = v.safeParse(SCHEMAS[kind], json.value);
  if (!r.success) {
    const issue = r.issues[0];
    const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    throw new RagasReplyError(step, `${path ? `${path}: ` : ''}${issue.message}`);
  }
  return r.output as v.InferOutput<(typeof SCHEMAS)[K]>;
}

/** The statements of a step-1 reply (possibly none). */
export const parseStatements = (text: string): string[] => parse('statements', 'statements', text).statements;

/** The verdicts of a faithfulness or context-precision reply: exactly `n` of them. */
export function parseVerdicts(step: 'faithfulness' | 'context precision', text: string, n: number): boolean[] {
  const { verdicts } = parse(step, 'verdicts', text);
  if (verdicts.length !== n) throw new RagasReplyError(step, `${verdicts.length} verdicts for ${n} ${step === 'faithfulness' ? 'statements' : 'contexts'}`);
  return verdicts;
}

/** The verdicts of a context-recall reply: exactly one per reference sentence. */
export function parseAttributed(text: string, n: number): boolean[] {
  const { attributed } = parse('context recall', 'attributed', text);
  if (attributed.length !== n) throw new RagasReplyError('context recall', `${attributed.length} verdicts for ${n} reference sentences`);
  return attributed;
}

/** The questions (1 to 10) and the noncommittal flag of an answer-relevancy reply. */
export const parseQuestions = (text: string): { questions: string[]; noncommittal: boolean } => parse('answer relevancy', 'questions', text);
