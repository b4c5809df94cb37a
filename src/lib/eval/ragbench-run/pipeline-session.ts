/**
 * A RAGBench pipeline run from its rows to its result, for the bench worker and `eval-ragbench --mode pipeline`:
 * each subset's documents pooled into a knowledge base, dense vectors attached when the retrieval needs them (filed
 * under `ragbenchVectorKey`, by the shell's vector attacher), the token/cost estimate of the run before any call
 * (retrieval is local, so the prompts to be sent are known), then the benchmark session (ragbench-loops.ts) answering and
 * scoring N questions per subset.
 */
import { buildRagbenchKb, ragbenchKbVectorKey, type RagbenchKb } from '../../data/ragbench-kb.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import { addEstimates, type ResolvedPrice, type RunEstimate } from '../core/cost.ts';
import { estimatePipelineRun, pipelineQuestions, type PipelineEstimate } from '../ragbench/pipeline-mode.ts';
import { runPipelineSession, type PipelineSessionOptions, type PipelineSessionResult, type PipelineSessionSubset, type SessionSubset } from './ragbench-loops.ts';

/** A pipeline run's estimate summed over its subsets: answers, judge (null without an LLM judge) and both. */
export interface PipelineEstimateTotals {
  answers: RunEstimate;
  judge: RunEstimate | null;
  total: Omit<RunEstimate, 'outputTokensPerCall' | 'price'> & Partial<Pick<RunEstimate, 'outputTokensPerCall' | 'price'>>;
  questions: number;
  answerable: number;
  /** What the estimate leaves out (extra calls of a transform or agentic loop), each once. */
  notes: string[];
}

export function sumPipelineEstimates(estimates: readonly PipelineEstimate[]): PipelineEstimateTotals {
  const sum = (f: (e: PipelineEstimate) => RunEstimate | null): RunEstimate | null => {
    const xs = estimates.map(f).filter((x): x is RunEstimate => x !== null);
    if (xs.length === 0) return null;
    return xs.slice(1).reduce((acc, x) => ({ ...acc, ...addEstimates(acc, x) }), xs[0]!);
  };
  const answers = sum((e) => e.answers)!;
  const judge = sum((e) => e.judge);
  return {
    answers, judge, total: judge ? { ...addEstimates(answers, judge) } : answers,
    questions: estimates.reduce((x, e) => x + e.questions, 0),
    answerable: estimates.reduce((x, e) => x + e.answerable, 0),
    notes: [...new Set(estimates.flatMap((e) => e.notes))],
  };
}

/** Attaches dense vectors to a knowledge base, cached under `kbKey` (attachDense with the shell's embedder and store). */
export type VectorAttacher = (kb: KnowledgeBase, kbKey: string, subset: string) => Promise<void>;

export interface RagbenchPipelineOptions extends Omit<PipelineSessionOptions, 'subsets'> {
  subsets: readonly SessionSubset[];
  /** Dense retrieval: attaches each knowledge base's vectors (null or absent: sparse only). */
  attachVectors?: VectorAttacher | null;
  /** After each knowledge base is built (before its vectors). */
  onKb?: (kb: RagbenchKb, ms: number) => void;
  /** Estimate the run before any call: prices, and the judge's repeats when an LLM judge scores the answers. */
  estimate?: { price: ResolvedPrice; judge: { repeats: number } | null } | null;
  /** The estimate, before any call (may throw to stop the run). */
  onEstimate?: (e: PipelineEstimateTotals) => void;
}

export interface RagbenchPipelineResult extends PipelineSessionResult {
  estimate: PipelineEstimateTotals | null;
}

export async function runRagbenchPipelineSession(o: RagbenchPipelineOptions): Promise<RagbenchPipelineResult> {
  const subsets: PipelineSessionSubset[] = [];
  const estimates: PipelineEstimate[] = [];
  for (const { subset, rows } of o.subsets) {
    const t0 = performance.now();
    const rkb = buildRagbenchKb(rows, subset);
    o.onKb?.(rkb, performance.now() - t0);
    if (o.attachVectors) await o.attachVectors(rkb.kb, await ragbenchKbVectorKey(rkb), subset);
    subsets.push({ subset, rows, kb: rkb });
    if (o.estimate) {
      const { questions } = pipelineQuestions(rows, o.n, o.seed);
      estimates.push(await estimatePipelineRun(rkb, questions, o.rag, o.models, { price: o.estimate.price, judge: o.estimate.judge }));
    }
  }
  const estimate = o.estimate ? sumPipelineEstimates(estimates) : null;
  if (estimate) o.onEstimate?.(estimate);
  const { attachVectors: _a, onKb: _k, estimate: _e, onEstimate: _o, ...session } = o;
  const result = await runPipelineSession({ ...session, subsets });
  return { ...result, estimate };
}
