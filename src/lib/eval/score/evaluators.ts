/**
 * The evaluators, in one registry: the TRACe evaluators (lexical, NLI, LLM judge) and RAGAS (its own four metrics by
 * an LLM judge and the loaded embedder; ragas.ts). How each is built from its settings and models / provider, its row
 * evaluator (validate: a RAGBench row's own response over its own documents) and its pipeline evaluator (our answer
 * over the contexts the model saw), what part of its settings decides scores (the result cache's config hash), its
 * label and what a run should be told about it, and what it needs and allows (an NLI model, the loaded embedder,
 * judge repeats): every shell asks the entry, never the id. The bench worker, the CLI, the benchmark session
 * (session.ts) and the tabs all choose an evaluator here, so they cannot drift. A new evaluator is one entry here
 * (and its row / pipeline evaluators).
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { ChatProvider } from '../../llm/types.ts';
import type { TextEmbedder } from '../../models/types.ts';
import { repeatedJudgeRowEvaluator, TRACE_METRICS, type RepeatedJudgeResult, type RepeatOptions } from '../ragbench/judge-runs.ts';
import { LexicalEvaluator } from '../metrics/lexical.ts';
import type { NliTraceModels } from '../metrics/nli-trace.ts';
import { judgePipelineEvaluator, lexicalPipelineEvaluator, nliPipelineEvaluator, type PipelineEvaluator } from '../ragbench/pipeline-mode.ts';
import { lexicalRowEvaluator, nliRowEvaluator, type TraceEvaluator } from '../ragbench/validate-mode.ts';
import { ragasPipelineEvaluator, ragasRowEvaluator } from './ragas-judge.ts';

export const EVALUATOR_IDS = ['lexical', 'nli', 'llm', 'ragas'] as const;
export type EvaluatorId = (typeof EVALUATOR_IDS)[number];

export const isEvaluatorId = (x: string): x is EvaluatorId => (EVALUATOR_IDS as readonly string[]).includes(x);

/** The evaluator a run, a link and the Ask tab's score start with. */
export const DEFAULT_EVALUATOR: EvaluatorId = 'lexical';

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
  /** What a picker shows (the Benchmark tab's evaluator, the Ask tab's score). */
  choice: string;
  /** What `--evaluator` help says of it. */
  help: string;
  /** Calls an API: rows may be scored concurrently and usage is metered. */
  api: boolean;
  /** What its judge is called when one is missing ("the LLM judge"); only with `api`. */
  judgeName?: string;
  /**
   * One judge call per row and repeat, so scores vary between calls: repeats per row and the judge temperature apply,
   * tokens and cost are estimated before a run, repeat spread and flips are reported, a failed row is a failed call.
   */
  repeatable: boolean;
  /** Scores with the NLI model (and the cross-encoder when loaded): they are loaded for it and named in its settings. */
  usesNli: boolean;
  /** Uses the loaded embedder (RAGAS answer relevancy), named in its settings (`ragas.embedder`). */
  usesEmbedder: boolean;
  /** Why it gives no value for `metric` when that is its own doing (not a metric of its kind, an input it lacks). */
  absent?(metric: string): string | null;
  /** What the Benchmark tab says of it in a mode, with the loaded embedder (`id@dtype`) or none. */
  modeNote?(mode: 'validate' | 'pipeline', embedder: string | null): string;
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

/** What RAGAS scores in validate mode with this embedder loaded (or none): answer relevancy needs one; no reference answer there. */
export function ragasValidateNote(embedder: string | null): string {
  const relevancy = embedder
    ? `answer relevancy embeds with the loaded embedder ${embedder}`
    : 'answer relevancy is absent: it needs an embedder (load one under Settings → Models)';
  return `RAGAS scores faithfulness and ${relevancy}. Context precision and recall need a reference answer other than the one scored, which validate mode does not have: they are absent. The judge makes 2 to 3 calls per row.`;
}

/** What RAGAS scores in pipeline mode with this embedder loaded (or none): RAGBench's answer is the reference there. */
export function ragasPipelineNote(embedder: string | null): string {
  const relevancy = embedder
    ? `answer relevancy with the loaded embedder ${embedder}`
    : 'not answer relevancy: it needs an embedder (load one under Settings → Models)';
  return `RAGAS scores faithfulness, context precision and recall (RAGBench's answer to the question as the reference) and ${relevancy}. The judge makes 1 to 5 calls per answer.`;
}

/** In the Benchmark tab's order (the pickers list them so); `EVALUATOR_IDS` is the CLI's. */
export const EVALUATORS: Record<EvaluatorId, EvaluatorDef> = {
  lexical: {
    id: 'lexical', label: 'lexical (offline)', choice: 'Offline lexical (no model, no network)', help: 'offline',
    api: false, repeatable: false, usesNli: false, usesEmbedder: false,
    hashSettings: () => ({}),
    build: () => {
      const ev = new LexicalEvaluator();
      return { row: lexicalRowEvaluator(ev), pipeline: lexicalPipelineEvaluator(ev) };
    },
  },
  llm: {
    id: 'llm', label: 'LLM judge', choice: 'LLM judge (your key)', help: 'LLM judge',
    api: true, judgeName: 'LLM judge', repeatable: true, usesNli: false, usesEmbedder: false,
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
  nli: {
    id: 'nli', label: 'NLI (local models)', choice: 'Local NLI model (in this browser)', help: 'local cross-encoder + NLI models',
    api: false, repeatable: false, usesNli: true, usesEmbedder: false,
    absent: (m) => (m === 'completeness' ? 'NLI needs a gold answer' : null),
    hashSettings: (s) => ({ ...(s.nliModels ?? {}) }),
    build: (_s, deps) => {
      if (!deps.nli) throw new Error('The NLI evaluator needs the NLI model: load it first.');
      return { row: nliRowEvaluator(deps.nli), pipeline: nliPipelineEvaluator(deps.nli) };
    },
  },
  ragas: {
    id: 'ragas', label: 'RAGAS (LLM judge)', choice: 'RAGAS metrics (LLM judge, your key)', help: 'docs/ragas.md',
    api: true, judgeName: 'RAGAS judge', repeatable: false, usesNli: false, usesEmbedder: true,
    absent: (m) => ((TRACE_METRICS as readonly string[]).includes(m) ? 'not a RAGAS metric' : null),
    modeNote: (mode, embedder) => (mode === 'validate' ? ragasValidateNote(embedder) : ragasPipelineNote(embedder)),
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

/** The ids of the evaluators that have a property (`repeatable`, `usesNli`…), e.g. for a message naming them. */
export const evaluatorsWith = (p: 'api' | 'repeatable' | 'usesNli' | 'usesEmbedder'): EvaluatorId[] => EVALUATOR_IDS.filter((id) => EVALUATORS[id][p]);

/** Why `--repeats` / `--temperature` do not apply to evaluator `id` (only to a repeatable one); null when they do or are not given. */
export function judgeFlagProblem(id: EvaluatorId, repeats: number, temperature: number | undefined): string | null {
  if (EVALUATORS[id].repeatable) return null;
  const judges = evaluatorsWith('repeatable').join('|');
  if (repeats > 1) return `--repeats needs --evaluator ${judges} (only an LLM judge varies between calls)`;
  return temperature !== undefined ? `--temperature is the judge temperature: it needs --evaluator ${judges}` : null;
}

/** Needs no model and no network (scores in a blink: no progress to show). */
export const runsOffline = (id: EvaluatorId): boolean => !EVALUATORS[id].api && !EVALUATORS[id].usesNli && !EVALUATORS[id].usesEmbedder;
