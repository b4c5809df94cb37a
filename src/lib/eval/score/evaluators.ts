/**
 * The evaluators, in one registry: the TRACe evaluators (lexical, NLI, LLM judge) and RAGAS (its own four metrics by
 * an LLM judge and the loaded embedder; ragas.ts). How each is built from its settings and models / provider, its row
 * evaluator (validate: a RAGBench row's own response over its own documents) and its pipeline evaluator (our answer
 * over the contexts the model saw), what part of its settings decides scores (the result cache's config hash), its
 * label and what a run should be told about it. The bench worker, the CLI and the benchmark session (ragbench-loops.ts) all
 * choose an evaluator here, so they cannot drift.
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { ChatProvider } from '../../llm/types.ts';
import type { TextEmbedder } from '../../models/types.ts';
import { repeatedJudgeRowEvaluator, type RepeatedJudgeResult, type RepeatOptions } from '../ragbench/judge-runs.ts';
import { LexicalEvaluator } from '../metrics/lexical.ts';
import type { NliTraceModels } from '../metrics/nli-trace.ts';
import { judgePipelineEvaluator, lexicalPipelineEvaluator, nliPipelineEvaluator, type PipelineEvaluator } from '../ragbench/pipeline-mode.ts';
import { lexicalRowEvaluator, nliRowEvaluator, type TraceEvaluator } from '../ragbench/validate-mode.ts';
import { ragasPipelineEvaluator, ragasRowEvaluator } from './ragas-judge.ts';

export const EVALUATOR_IDS = ['lexical', 'nli', 'llm', 'ragas'] as const;
export type EvaluatorId = (typeof EVALUATOR_IDS)[number];

export const isEvaluatorId = (x: string): x is EvaluatorId => (EVALUATOR_IDS as readonly string[]).includes(x);

/** What an evaluator's scores depend on (never a key): the settings a run names. */
export interface EvaluatorSettings {
  /** NLI evaluator: the models (`id@dtype`). */
  nliModels?: { nli: string; reranker: string | null } | null;
  /** LLM judge (and RAGAS's judge): provider, base URL, model, calls per row and (when set) temperature. */
  judge?: { provider: string; baseUrl: string | null; model: string; repeats: number; temperature?: number } | null;
  /** RAGAS: the embedder answer relevancy uses (`id@dtype`); null: none loaded, answer relevancy is absent. */
  ragas?: { embedder: string | null } | null;
}

/** What building an evaluator needs besides its settings. */
export interface EvaluatorDeps {
  /** NLI evaluator: the NLI classifier and (optionally) the cross-encoder. */
  nli?: NliTraceModels | null;
  /** LLM judge: the provider to call (metered and rate-limited by the caller). */
  judge?: ChatProvider | null;
  /** RAGAS: the loaded embedder (the one `EvaluatorSettings.ragas.embedder` names). */
  embedder?: TextEmbedder | null;
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
  /** What a run of these settings should say (what is absent and why, what an estimate leaves out); none when absent. */
  notes?(s: EvaluatorSettings): string[];
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
  ragas: {
    id: 'ragas', label: 'RAGAS (LLM judge)', api: true,
    // One call per step and row (ragas-judge.ts): repeats do not apply; the embedder decides answer relevancy.
    hashSettings: (s) => (s.judge ? {
      provider: s.judge.provider, baseUrl: s.judge.baseUrl, model: s.judge.model,
      ...(s.judge.temperature !== undefined ? { temperature: s.judge.temperature } : {}), embedder: s.ragas?.embedder ?? null,
    } : {}),
    build: (s, deps) => {
      if (!s.judge || !deps.judge) throw new Error('Choose a provider and model for the RAGAS judge.');
      const named = s.ragas?.embedder ?? null;
      if (named !== null && !deps.embedder) throw new Error(`RAGAS answer relevancy needs the embedder ${named}: load it first.`);
      const embedder = named === null ? null : deps.embedder!;
      const opts = { model: s.judge.model, ...(s.judge.temperature !== undefined ? { temperature: s.judge.temperature } : {}) };
      return { row: ragasRowEvaluator(deps.judge, embedder, opts), pipeline: ragasPipelineEvaluator(deps.judge, embedder, opts) };
    },
    notes: (s) => [
      s.ragas?.embedder
        ? `RAGAS answer relevancy: cosine similarity of the question and the judge's questions, embedded by the loaded embedder ${s.ragas.embedder}.`
        : 'RAGAS answer relevancy is absent (not 0): it needs an embedder and none is loaded.',
      'No token or cost estimate counts the RAGAS judge: it makes 1 to 5 calls per answer (statements, their verdicts, questions for answer relevancy, context precision, context recall).',
      'RAGAS context precision and recall use RAGBench\'s answer of the question as the reference (pipeline mode); validate mode scores that answer itself and has no reference, so they are absent there.',
    ],
  },
};
