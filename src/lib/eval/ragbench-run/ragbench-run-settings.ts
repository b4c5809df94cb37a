/**
 * A RAGBench run's settings from plain options (the CLI's flags): the models it needs, named as `id@dtype`
 * (run-models.ts), the evaluator settings its scores depend on (the LLM judge's, the NLI models'), the config its
 * report keeps, under the Benchmark tab's BenchConfig names (so a report reads the same from either shell), and the
 * options both sessions take (session.ts runValidateSession, ragbench-pipeline-session.ts) but the evaluator's deps.
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { RagConfig } from '../../rag/config.ts';
import type { RunLimits } from '../core/api-usage.ts';
import { DEFAULT_MODELS } from '../../models/registry.ts';
import { EVALUATORS, type EvaluatorId } from '../score/evaluators.ts';
import { ragbenchPlan, type RagbenchRunConfig } from './ragbench-plan.ts';
import type { RunEnvironment } from '../ragbench/report-from-run.ts';
import { modelKey, namedRunModels, ragbenchModelNeeds, type ModelIds, type ModelNeeds, type NamedModels } from '../score/run-models.ts';
import type { ValidateSessionOptions } from './ragbench-loops.ts';

export interface RagbenchRunOptions {
  mode: 'validate' | 'pipeline';
  /** Each subset's rows, in run order. */
  data: ReadonlyMap<string, readonly RagbenchRow[]>;
  /** Rows (questions) per subset; undefined: all. */
  n: number | undefined;
  seed: number;
  evaluator: EvaluatorId;
  /** The LLM judge's calls per row and temperature (undefined: the judge's default). */
  repeats: number;
  temperature: number | undefined;
  /** The API run's provider, endpoint, model and rate limits (null: no API run). */
  api: { providerId: string; baseUrl: string | null; model: string; limits: RunLimits | null } | null;
  /** Pipeline mode's pipeline settings (null: validate mode). */
  rag: RagConfig | null;
  /** The local models' ids (absent: the registry's) and dtype, and the device they run on. */
  modelIds: ModelIds;
  device: string;
  bootstrap: number;
  concurrency: number;
  /** Where the run runs (the report's environment lists the models named here with it). */
  runtime: Omit<RunEnvironment, 'models'>;
  /** Where the rows came from (the report's data source). */
  source: string;
  withReport: boolean;
  /** The shell's key redaction of kept error messages. */
  redact: (message: string) => string;
}

/** What both sessions take from a run's settings. */
export type RagbenchSessionSettings = Pick<ValidateSessionOptions, 'evaluator' | 'settings' | 'subsets' | 'n' | 'seed' | 'concurrency' | 'bootstrap' | 'redact' | 'report' | 'withReport'>;

export interface RagbenchRunSettings {
  /** `dense`: the pipeline's retrieval embeds (its vectors are attached); `embedder` also when RAGAS embeds its questions. */
  needs: ModelNeeds & { search: boolean; dense: boolean };
  models: NamedModels;
  session: RagbenchSessionSettings;
}

/** The run's settings under the Benchmark tab's names (the rows come from local files: no hosts), then what only the CLI sets. */
export function ragbenchRunConfig(o: RagbenchRunOptions, nliModels: RagbenchRunConfig['nliModels'], ragasEmbedder: string | null): RagbenchRunConfig {
  const { api, evaluator } = o;
  const judge = EVALUATORS[evaluator].api && api ? {
    provider: api.providerId, baseUrl: api.baseUrl, model: api.model, repeats: o.repeats,
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}), rpm: api.limits?.rpm ?? null, tpm: api.limits?.tpm ?? null,
  } : null;
  const subsets = [...o.data.keys()];
  return {
    mode: o.mode, subsets, n: o.n ?? null, seed: o.seed, evaluator, judge, rag: o.rag ? (JSON.parse(JSON.stringify(o.rag)) as RagConfig) : null, nliModels,
    ...(EVALUATORS[evaluator].usesEmbedder ? { ragasEmbedder } : {}), localSubsets: [...subsets], bootstrap: o.bootstrap, concurrency: o.concurrency, datasetsHost: null, hubUrl: null,
  };
}

export function ragbenchRunSettings(o: RagbenchRunOptions): RagbenchRunSettings {
  const { evaluator } = o;
  const base = ragbenchModelNeeds(evaluator, o.rag);
  // RAGAS's answer relevancy embeds with dense retrieval's embedder, or the one named; none otherwise (absent, with a note).
  const ragasEmbedder = EVALUATORS[evaluator].usesEmbedder && (o.modelIds.embedder !== undefined || base.embedder)
    ? modelKey({ id: o.modelIds.embedder ?? DEFAULT_MODELS.embedder, dtype: o.modelIds.dtype }) : null;
  const needs = { ...base, embedder: base.embedder || ragasEmbedder !== null, dense: base.embedder };
  const models = namedRunModels(o.modelIds, needs, o.device);
  const nliModels = models.nli ? { nli: models.nli, reranker: models.reranker } : null;
  // The one translation of a run's settings, as the Benchmark tab's (ragbench-plan.ts).
  const plan = ragbenchPlan(ragbenchRunConfig(o, nliModels, ragasEmbedder), o.rag);
  return {
    needs, models,
    session: {
      evaluator, settings: plan.settings, subsets: [...o.data].map(([subset, rows]) => ({ subset, rows })),
      ...(plan.n !== undefined ? { n: plan.n } : {}), seed: plan.seed, concurrency: o.concurrency, bootstrap: o.bootstrap, redact: o.redact,
      report: { config: plan.reportConfig, environment: { ...o.runtime, models: models.loaded }, source: o.source, revision: null }, withReport: o.withReport,
    },
  };
}
