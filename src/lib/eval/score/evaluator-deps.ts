/**
 * What an evaluator needs besides its settings, built in one place for the bench worker and both `eval-ragbench`
 * modes: per evaluator id (as EVALUATORS is keyed) the models it loads through a model loader (the NLI classifier
 * and cross-encoder, RAGAS's embedder: the models worker in the browser, local files in the CLI) and the LLM judge's
 * provider (built by api-setup.ts). Also the judge's settings (provider, endpoint, model, repeats, temperature) as
 * every shell names them.
 */
import { ModelLoadError } from '../../models/errors.ts';
import type { ModelSpec, NliClassifier, PairScorer, TextEmbedder } from '../../models/types.ts';
import type { ChatProvider } from '../../llm/types.ts';
import { EVALUATORS, type EvaluatorDeps, type EvaluatorId, type EvaluatorSettings } from './evaluators.ts';
import type { NliTraceModels } from '../metrics/nli-trace.ts';

/** Where the NLI evaluator's models and RAGAS's embedder come from; throws a message naming what to load. */
export interface EvaluatorModelLoader {
  nliModels(): Promise<NliTraceModels>;
  /** The loaded embedder RAGAS's answer relevancy uses (null or absent: none). */
  embedder?(): Promise<TextEmbedder | null>;
}

/**
 * The NLI evaluator's models from loaders of one model each (the CLI's local files): the cross-encoder first, then
 * the NLI model of `spec`, whose load time `log` hears. A failed NLI load is `error`'s, its message naming the model.
 */
export function nliModelLoader(
  spec: ModelSpec,
  load: { reranker: () => Promise<PairScorer | null>; nli: (spec: ModelSpec) => Promise<NliClassifier> },
  hooks: { log: (message: string) => void; error: (message: string) => Error },
): EvaluatorModelLoader {
  return {
    async nliModels() {
      const reranker = await load.reranker();
      const t0 = performance.now();
      try {
        const nli = await load.nli(spec);
        hooks.log(`loaded NLI ${spec.id} (${spec.dtype}) in ${(performance.now() - t0).toFixed(0)} ms`);
        return { nli, reranker };
      } catch (e) {
        throw hooks.error(e instanceof ModelLoadError ? e.message : `could not load NLI model ${spec.id}: ${(e as Error).message}`);
      }
    },
  };
}

/** What building an evaluator's dependencies draws on. */
export interface EvaluatorDepSources {
  models?: EvaluatorModelLoader | null;
  /** The judge's provider (api-setup.ts; the CLI's pipeline mode shares its rate limiter with the answers). */
  judge?: ChatProvider | null;
}

type Deps = Omit<EvaluatorDeps, 'onJudge'>;

/** The models / judge provider evaluator `id` needs, as its entry in EVALUATORS declares them (NLI models, a judge, the embedder). */
export async function buildEvaluatorDeps(id: EvaluatorId, src: EvaluatorDepSources): Promise<Deps> {
  const def = EVALUATORS[id];
  if (def.usesNli && !src.models) throw new Error('The NLI evaluator needs the NLI model: load it first.');
  if (def.api && !src.judge) throw new Error(`Choose a provider and model for the ${def.judgeName ?? def.label}.`);
  return {
    ...(def.usesNli ? { nli: await src.models!.nliModels() } : {}),
    ...(def.api ? { judge: src.judge! } : {}),
    ...(def.usesEmbedder ? { embedder: src.models?.embedder ? await src.models.embedder() : null } : {}),
  };
}

/**
 * RAGAS's own settings (none for other evaluators): the embedder the run loads (`id@dtype`: the CLI's dense
 * retrieval's or the one --embedder names, the tab's loaded one) or null.
 */
export const ragasSettings = (id: EvaluatorId, embedder: string | null): Pick<EvaluatorSettings, 'ragas'> => (EVALUATORS[id].usesEmbedder ? { ragas: { embedder } } : {});

/** The judge settings of an evaluator (null unless it calls a judge: the LLM judge, RAGAS): temperature only when given. */
export function judgeSettings(
  id: EvaluatorId,
  j: { provider: string; baseUrl: string | null; model: string; repeats?: number; temperature?: number | undefined } | null,
): EvaluatorSettings['judge'] {
  if (!EVALUATORS[id].api || !j) return null;
  return { provider: j.provider, baseUrl: j.baseUrl, model: j.model, repeats: j.repeats ?? 1, ...(j.temperature !== undefined ? { temperature: j.temperature } : {}) };
}
