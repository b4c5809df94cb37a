/**
 * What an evaluator needs besides its settings, built in one place for the bench worker and both `eval-ragbench`
 * modes: per evaluator id (as EVALUATORS is keyed) the models it loads through a model loader (the NLI classifier
 * and cross-encoder, RAGAS's embedder: the models worker in the browser, local files in the CLI) and the LLM judge's
 * provider (created here from a provider spec, rate-limited when limits are given). Also the judge's settings
 * (provider, endpoint, model, repeats, temperature) as every shell names them.
 */
import { createProvider } from '../llm/registry.ts';
import { wrapProvider, type LimiterOptions, type RateLimiter, type RateLimits } from '../llm/rate-limit.ts';
import type { ChatProvider, RemoteProviderId } from '../llm/types.ts';
import type { TextEmbedder } from '../models/types.ts';
import { EVALUATORS, type EvaluatorDeps, type EvaluatorId, type EvaluatorSettings } from './evaluators.ts';
import type { NliTraceModels } from './nli-trace.ts';

/** Where the NLI evaluator's models and RAGAS's embedder come from; throws a message naming what to load. */
export interface EvaluatorModelLoader {
  nliModels(): Promise<NliTraceModels>;
  /** The loaded embedder RAGAS's answer relevancy uses (null or absent: none). */
  embedder?(): Promise<TextEmbedder | null>;
}

/** An API endpoint and model (never logged: it holds the key), with client-side rate limits when given. */
export interface ApiSpec {
  provider: string;
  baseUrl?: string | null | undefined;
  model: string;
  apiKey?: string | null | undefined;
  /** Or a function giving them, called after the provider is created (so its errors come first). */
  limits?: RateLimits | null | (() => RateLimits | null);
  onWait?: LimiterOptions['onWait'];
}

export interface ApiProvider {
  provider: ChatProvider;
  /** The limiter in front of `provider` (null without limits). */
  limiter: RateLimiter | null;
}

/** The provider of `spec`, behind a rate limiter when it has limits (null: none). */
export function apiProvider(spec: ApiSpec): ApiProvider {
  const base = createProvider({
    provider: spec.provider as RemoteProviderId,
    baseUrl: spec.baseUrl ?? undefined, model: spec.model, apiKey: spec.apiKey ?? undefined,
  });
  const limits = typeof spec.limits === 'function' ? spec.limits() : spec.limits;
  if (!limits) return { provider: base, limiter: null };
  const wrapped = wrapProvider(base, limits, spec.onWait ? { onWait: spec.onWait } : {});
  return { provider: wrapped, limiter: wrapped.limiter };
}

/** What building an evaluator's dependencies draws on. */
export interface EvaluatorDepSources {
  models?: EvaluatorModelLoader | null;
  /** The judge's provider: one already built (the CLI shares its rate limiter with the answers) or a spec. */
  judge?: ChatProvider | ApiSpec | null;
}

type Deps = Omit<EvaluatorDeps, 'onJudge'>;
const isSpec = (x: ChatProvider | ApiSpec): x is ApiSpec => typeof (x as ApiSpec).model === 'string' && typeof (x as ApiSpec).provider === 'string';

/** Per evaluator: how its dependencies are built. */
export const EVALUATOR_DEPS: Record<EvaluatorId, (src: EvaluatorDepSources) => Promise<Deps>> = {
  lexical: async () => ({}),
  nli: async (src) => {
    if (!src.models) throw new Error('The NLI evaluator needs the NLI model: load it first.');
    return { nli: await src.models.nliModels() };
  },
  llm: async (src) => {
    if (!src.judge) throw new Error('Choose a provider and model for the LLM judge.');
    return { judge: isSpec(src.judge) ? apiProvider(src.judge).provider : src.judge };
  },
  ragas: async (src) => {
    if (!src.judge) throw new Error('Choose a provider and model for the RAGAS judge.');
    const embedder = src.models?.embedder ? await src.models.embedder() : null;
    return { judge: isSpec(src.judge) ? apiProvider(src.judge).provider : src.judge, embedder };
  },
};

/** The models / judge provider evaluator `id` needs. */
export function buildEvaluatorDeps(id: EvaluatorId, src: EvaluatorDepSources): Promise<Deps> {
  return EVALUATOR_DEPS[id](src);
}

/**
 * RAGAS's own settings (none for other evaluators): the embedder the run loads (`id@dtype`: the CLI's dense
 * retrieval's or the one --embedder names, the tab's loaded one) or null.
 */
export const ragasSettings = (id: EvaluatorId, embedder: string | null): Pick<EvaluatorSettings, 'ragas'> => (id === 'ragas' ? { ragas: { embedder } } : {});

/** The judge settings of an evaluator (null unless it calls a judge: the LLM judge, RAGAS): temperature only when given. */
export function judgeSettings(
  id: EvaluatorId,
  j: { provider: string; baseUrl: string | null; model: string; repeats?: number; temperature?: number | undefined } | null,
): EvaluatorSettings['judge'] {
  if (!EVALUATORS[id].api || !j) return null;
  return { provider: j.provider, baseUrl: j.baseUrl, model: j.model, repeats: j.repeats ?? 1, ...(j.temperature !== undefined ? { temperature: j.temperature } : {}) };
}
