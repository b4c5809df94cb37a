/**
 * "Score this answer" in the Ask tab: the chosen evaluator scores the answer over the sources it was given, in the
 * models worker (src/lib/eval/score/score-answer.ts); a judge is the Ask tab's own provider, endpoint and model, its key
 * got as asking gets it (AskState.requestKey). Also the RAGBench question shown beside the score while the question
 * field holds it: one a report row (Benchmark or Reports tab) opened here, or one of the open knowledge base's own
 * questions when that is a RAGBench subset (KbInfo.goldQuestions, which also fills in the response a pipeline row
 * lacks).
 */
import type { RagAnswer } from '../../lib/rag/answer.ts';
import type { AnswerScore, ScoreRequest } from '../../lib/eval/score/score-answer.ts';
import { DEFAULT_EVALUATOR, type EvaluatorId } from '../../lib/eval/score/evaluators.ts';
import { redactSecrets } from '../../lib/llm/redact.ts';
import { kbIdOf } from '../../lib/data/kb-registry.ts';
import { EVALUATOR_CHOICES, isEvaluatorChoice } from '../bench/bench-evaluators.ts';
import { goldQuestion, shownGold, type GoldQuestion } from '../ask/answer-score.ts';
import type { AskState } from './ask.svelte.ts';

export type ScoreAnswer = (request: ScoreRequest, apiKey: string | null) => Promise<AnswerScore>;

/** What the open knowledge base says about gold questions: its id, and its own questions (a RAGBench subset's). */
export interface GoldKb { corpusId: string | null; questions: readonly GoldQuestion[] }

const NO_KB: GoldKb = { corpusId: null, questions: [] };

export class AskScoreState {
  evaluator = $state<EvaluatorId>(DEFAULT_EVALUATOR);
  running = $state(false);
  /** The last score or failure, with the answer it is of (a newer answer hides it). */
  private last = $state.raw<{ answer: RagAnswer; score: AnswerScore | null; error: string | null } | null>(null);
  private gold = $state.raw<GoldQuestion | null>(null);

  constructor(private readonly ask: AskState, private readonly score: ScoreAnswer, private readonly kb: () => GoldKb = () => NO_KB) {}

  /** The open knowledge base's questions by their text. */
  private readonly kbQuestions = $derived.by(() => new Map(this.kb().questions.map((g) => [g.question, g])));

  /** The score of the answer shown (null: none yet, or it failed). */
  get result(): AnswerScore | null {
    return this.last && this.last.answer === this.ask.result ? this.last.score : null;
  }

  /** Why scoring the answer shown failed (never a 0 in its place). */
  get error(): string | null {
    return this.last && this.last.answer === this.ask.result ? this.last.error : null;
  }

  /** The RAGBench question opened here, while the question field still holds it. */
  get goldShown(): GoldQuestion | null {
    return this.goldOf(this.ask.question);
  }

  private goldOf(question: string): GoldQuestion | null {
    return shownGold(question, this.gold, this.kbQuestions);
  }

  /** The gold question shown is its subset's, and that subset is the open knowledge base (answers come from its documents). */
  get fromOwnSubset(): boolean {
    const g = this.goldShown;
    return g !== null && this.kb().corpusId === kbIdOf({ kind: 'ragbench', subset: g.subset });
  }

  /** The answer shown can be scored: it was answered and nothing is running. */
  get canScore(): boolean {
    return this.ask.result?.status === 'answered' && !this.ask.running && !this.running;
  }

  setEvaluator(raw: string): void {
    if (isEvaluatorChoice(raw)) this.evaluator = raw;
  }

  /** A RAGBench report row's question and gold labels (a validate row's response too) into Ask (an error message when the row cannot be). */
  openRagbench(row: Parameters<typeof goldQuestion>[0], kind: Parameters<typeof goldQuestion>[1] = 'ragbench-validate'): string | null {
    const g = goldQuestion(row, kind);
    if (!g.ok) return g.message;
    this.gold = g.gold;
    this.ask.setQuestion(g.gold.question);
    return null;
  }

  async run(): Promise<void> {
    const answer = this.ask.result;
    if (!answer || !this.canScore) return;
    const id = this.evaluator;
    const judge = EVALUATOR_CHOICES[id].judge;
    const { provider, baseUrl, model } = this.ask.config.llm;
    let key: string | null = null;
    if (judge) {
      const k = await this.ask.requestKey(provider, baseUrl);
      if (!k.ok) { this.last = { answer, score: null, error: k.message }; return; }
      key = k.key;
    }
    this.running = true;
    try {
      const score = await this.score({
        evaluator: id,
        judge: judge ? { provider, baseUrl, model } : null,
        input: { question: this.ask.asked, answer: answer.answer, contexts: answer.contexts.map((c) => c.text), reference: this.goldOf(this.ask.asked)?.response ?? null },
      }, key);
      this.last = { answer, score, error: null };
    } catch (e) {
      this.last = { answer, score: null, error: redactSecrets((e as Error).message || String(e), [key]) };
    } finally {
      this.running = false;
    }
  }
}
