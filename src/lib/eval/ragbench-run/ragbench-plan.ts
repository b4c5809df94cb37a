/**
 * The one translation from a RAGBench run's settings (the Benchmark tab's BenchConfig; the CLI's flags build the
 * same) to what the sessions take: the evaluator settings its scores depend on and the config its report keeps.
 * `bench-session.ts` (the tab) and `ragbench-run-settings.ts` (`rag-lab eval-ragbench`) both call `ragbenchPlan`,
 * so the same settings give the same judge, models, hash and recorded config from either shell.
 */
import type { RagConfig } from '../../rag/config.ts';
import type { JsonValue } from '../../reports/format.ts';
import type { BenchConfig } from './ragbench-tab-config.ts';
import { EVALUATORS, type EvaluatorId, type EvaluatorSettings } from '../score/evaluators.ts';

/**
 * A run's settings under the BenchConfig names. The CLI's judge may carry a temperature and its provider is any
 * provider id; `bootstrap` and `concurrency` are the CLI's (the tab uses the sessions' defaults).
 */
export type RagbenchRunConfig = Omit<BenchConfig, 'judge' | 'datasetsHost' | 'hubUrl'> & {
  judge: (Omit<NonNullable<BenchConfig['judge']>, 'provider'> & { provider: string; temperature?: number }) | null;
  datasetsHost: string | null;
  hubUrl: string | null;
  bootstrap?: number;
  concurrency?: number;
};

export interface RagbenchPlan {
  evaluator: EvaluatorId;
  /** What the run's scores depend on (the validate hash and the rows' cache key come from these). */
  settings: EvaluatorSettings;
  /** Rows per subset (absent: all). */
  n?: number;
  seed: number;
  /** The settings as the report keeps them (they never hold a key). */
  reportConfig: Record<string, JsonValue>;
}

/**
 * The evaluator settings: the judge (an evaluator that calls one) is the run's judge settings when given (the tab's
 * validate mode, the CLI's API flags), else pipeline mode's answering model (its provider, endpoint and model);
 * RAGAS makes one call per step (repeats 1) and names the embedder its answer relevancy uses.
 */
function evaluatorSettingsOf(c: RagbenchRunConfig, rag: RagConfig | null): EvaluatorSettings {
  const { repeatable, usesEmbedder } = EVALUATORS[c.evaluator];
  const j = c.judge;
  const judge = !EVALUATORS[c.evaluator].api ? null
    : j ? { provider: j.provider, baseUrl: j.baseUrl, model: j.model, repeats: repeatable ? j.repeats : 1, ...(j.temperature !== undefined ? { temperature: j.temperature } : {}) }
      : c.mode === 'pipeline' && rag ? { provider: rag.llm.provider, baseUrl: rag.llm.baseUrl, model: rag.llm.model, repeats: 1 } : null;
  return { judge, nliModels: c.nliModels, ...(usesEmbedder ? { ragas: { embedder: c.ragasEmbedder ?? null } } : {}) };
}

/** The plan of a run; `rag`: pipeline mode's settings as validated (`parseRagConfig`), by default the config's own. */
export function ragbenchPlan(c: RagbenchRunConfig, rag: RagConfig | null = c.rag): RagbenchPlan {
  return {
    evaluator: c.evaluator, settings: evaluatorSettingsOf(c, rag), ...(c.n !== null ? { n: c.n } : {}), seed: c.seed,
    reportConfig: JSON.parse(JSON.stringify(c)) as Record<string, JsonValue>,
  };
}
