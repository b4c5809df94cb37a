/**
 * TRACe from local models (a cross-encoder and an NLI classifier), no LLM:
 *
 *   relevance    = mean over the used chunks c of sigmoid(reranker(question, c))
 *   adherence    = P(entailment | premise = the whole context, hypothesis = the answer)
 *   utilization  = share of context sentences s with P(entailment | premise = the answer, hypothesis = s) > 0.5
 *   completeness = ROUGE-L F1(answer, gold answer); NaN without a gold answer
 *
 * The NLI classifier windows a long premise itself and keeps the most entailing window (models/nli.ts).
 * Model-independent: any `NliClassifier` / `PairScorer` (src/lib/models/types.ts).
 */
import { splitSentences } from '../../retrieval/chunk.ts';
import type { NliClassifier, PairScorer } from '../../models/types.ts';
import { rougeLF1 } from './rouge.ts';
import type { TraceScores } from './trace.ts';

export interface NliTraceInput {
  question: string;
  /** The chunks the answer was generated from, in order. */
  documents: readonly string[];
  answer: string;
  /** Context sentences for utilization; default: each document split with the sentence splitter. */
  contextSentences?: readonly string[];
  /** A reference answer, for completeness. */
  goldAnswer?: string | null;
}

export interface NliTraceModels {
  nli: NliClassifier;
  /** Without a reranker, relevance is NaN. */
  reranker?: PairScorer | null;
}

export interface NliTraceOptions {
  /** P(entailment) above which the answer is taken to use a sentence. Default 0.5. */
  threshold?: number;
  /** Separator between documents in the adherence premise. Default a blank line. */
  separator?: string;
  signal?: AbortSignal;
}

export interface NliTraceResult extends TraceScores {
  /** sigmoid(reranker logit) per document (empty without a reranker). */
  chunkRelevance: number[];
  /** P(answer ⊢ sentence) per context sentence. */
  sentenceEntailment: number[];
  contextSentences: string[];
}

const sigmoid = (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

export async function nliTrace(input: NliTraceInput, models: NliTraceModels, opts: NliTraceOptions = {}): Promise<NliTraceResult> {
  const threshold = opts.threshold ?? 0.5;
  const signal = opts.signal;
  signal?.throwIfAborted();

  let chunkRelevance: number[] = [];
  let relevance = NaN;
  if (models.reranker && input.documents.length > 0) {
    chunkRelevance = (await models.reranker.score(input.question, input.documents)).map(sigmoid);
    relevance = chunkRelevance.reduce((a, b) => a + b, 0) / chunkRelevance.length;
  }
  signal?.throwIfAborted();

  const premise = input.documents.join(opts.separator ?? '\n\n');
  const adherence = input.answer.trim() === '' || premise.trim() === '' ? NaN : (await models.nli.predict(premise, input.answer)).entailment;

  const contextSentences = input.contextSentences ? [...input.contextSentences] : input.documents.flatMap((d) => splitSentences(d).map((s) => s.text));
  const sentenceEntailment: number[] = [];
  for (const s of contextSentences) {
    signal?.throwIfAborted();
    sentenceEntailment.push(input.answer.trim() === '' ? 0 : (await models.nli.predict(input.answer, s)).entailment);
  }
  const utilization = contextSentences.length === 0 ? NaN : sentenceEntailment.filter((p) => p > threshold).length / contextSentences.length;
  const completeness = input.goldAnswer == null || input.goldAnswer.trim() === '' ? NaN : rougeLF1(input.answer, input.goldAnswer);
  return { relevance, utilization, adherence, completeness, chunkRelevance, sentenceEntailment, contextSentences };
}
