/**
 * The TRACe evaluators, in one registry: how each is built from its settings and models / provider, its row
 * evaluator (validate: a RAGBench row's own response over its own documents) and its pipeline evaluator (our answer
 * over the contexts the model saw), what part of its settings decides scores (the result cache's config hash) and its
 * label. The bench worker, the CLI and the benchmark session (session.ts) all choose an evaluator here, so they cannot
 * drift.
 */
import type { RagbenchRow } from '../data/ragbench.ts';
import type { ChatProvider } from '../llm/types.ts';
import { repeatedJudgeRowEvaluator, type RepeatedJudgeResult, type RepeatOptions } from './judge-runs.ts';
import { LexicalEvaluator } from './lexical.ts';
import type { NliTraceModels } from './nli-trace.ts';
import { judgePipelineEvaluator, lexicalPipelineEvaluator, nliPipelineEvaluator, type PipelineEvaluator } from './ragbench-pipeline.ts';
import { lexicalRowEvaluator, nliRowEvaluator, type TraceEvaluator } from './ragbench-validate.ts';

export const EVALUATOR_IDS = ['lexical', 'nli', 'llm'] as const;
export type EvaluatorId = (typeof EVALUATOR_IDS)[number];

export const isEvaluatorId = (x: string): x is EvaluatorId => (EVALUATOR_IDS as readonly string[]).includes(x);

/** What an evaluator's scores depend on (never a key): the settings a run names. */
export interface EvaluatorSettings {
  /** NLI evaluator: the models (`id@dtype`). */
  nliModels?: { nli: string; reranker: string | null } | null;
  /** LLM judge: provider, base URL, model, calls per row and (when set) temperature. */
  judge?: { provider: string; baseUrl: string | null; model: string; repeats: number; temperature?: number } | null;
}

/** What building an evaluator needs besides its settings. */
export interface EvaluatorDeps {
  /** NLI evaluator: the NLI classifier and (optionally) the cross-encoder. */
  nli?: NliTraceModels | null;
  /** LLM judge: the provider to call (metered and rate-limited by the caller). */
  judge?: ChatProvider | null;
  /** Each judged row's whole result (spread, flips, parse failures, usage), keyed by `ragbenchRowKey`. */
  onJudge?: (row: RagbenchRow, r: RepeatedJudgeResult) => void;
}

export interface BuiltEvaluator {
  row: TraceEvaluator;
  pipeline: PipelineEvaluator;
}

export interface EvaluatorDef {
  id: EvaluatorId;
  label: string;
  /** Calls an API: rows may be scored concurrently and usage is metered. */
  api: boolean;
  /** The settings that decide scores (the `settings` of the scoring config hash). */
  hashSettings(s: EvaluatorSettings): Record<string, unknown>;
  /** Throws a message naming what is missing (a model, a provider). */
  build(s: EvaluatorSettings, deps: EvaluatorDeps): BuiltEvaluator;
}

const judgeOptions = (j: NonNullable<EvaluatorSettings['judge']>): RepeatOptions => ({
  model: j.model, repeats: Math.max(1, j.repeats), ...(j.temperature !== undefined ? { temperature: j.temperature } : {}),
});

export const EVALUATORS: Record<EvaluatorId, EvaluatorDef> = {
  lexical: {
    id: 'lexical', label: 'lexical (offline)', api: false,
    hashSettings: () => ({}),
    build: () => {
      const ev = new LexicalEvaluator();
      return { row: lexicalRowEvaluator(ev), pipeline: lexicalPipelineEvaluator(ev) };
    },
  },
  nli: {
    id: 'nli', label: 'NLI (local models)', api: false,
    hashSettings: (s) => ({ ...(s.nliModels ?? {}) }),
    build: (_s, deps) => {
      if (!deps.nli) throw new Error('The NLI evaluator needs the NLI model: load it first.');
      return { row: nliRowEvaluator(deps.nli), pipeline: nliPipelineEvaluator(deps.nli) };
    },
  },
  llm: {
    id: 'llm', label: 'LLM judge', api: true,
    // Rate limits change how fast rows are scored, not their scores: they stay out of the hash.
    hashSettings: (s) => (s.judge ? {
      provider: s.judge.provider, baseUrl: s.judge.baseUrl, model: s.judge.model, repeats: s.judge.repeats,
      ...(s.judge.temperature !== undefined ? { temperature: s.judge.temperature } : {}),
    } : {}),
    build: (s, deps) => {
      if (!s.judge || !deps.judge) throw new Error('Choose a provider and model for the LLM judge.');
      const opts = judgeOptions(s.judge);
      const provider = deps.judge;
      return {
        row: repeatedJudgeRowEvaluator(provider, opts, deps.onJudge),
        pipeline: judgePipelineEvaluator(provider, opts, deps.onJudge ? (input, r) => deps.onJudge!(input.row, r) : undefined),
      };
    },
  },
};
