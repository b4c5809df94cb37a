/**
 * Pipeline flags shared by `ask` and `eval-ragbench --mode pipeline`: how many passages, which query transform,
 * the sentence window, reranking and the agentic loop. Each is checked here; the whole config by `parseRagConfig`.
 */
import { TRANSFORMS, type QueryTransform, type RagConfig } from '../src/lib/rag/config.ts';
import { CliError, numberArg } from './args.ts';

export const RAG_FLAG_ARGS = {
  'top-k': { type: 'string' },
  transform: { type: 'string' },
  window: { type: 'string' },
  rerank: { type: 'string' },
  agentic: { type: 'boolean', default: false },
} as const;

export const RAG_FLAG_HELP = `  --top-k N          passages given to the model (recall is @N in eval-ragbench)
  --transform T      query transform: ${TRANSFORMS.join(', ')} (default none)
  --window W         sentence window ± W around each passage
  --rerank N         rerank with the cross-encoder and keep N passages (needs a reranker model)
  --agentic          rewrite → retrieve → grade → generate → reflect (at most one extra round)`;

export interface RagFlagValues {
  'top-k'?: string | undefined;
  transform?: string | undefined;
  window?: string | undefined;
  rerank?: string | undefined;
  agentic?: boolean | undefined;
}

/** Applies the flags given to `config` (in place); flags not given leave the config's values. */
export function applyRagFlags(config: RagConfig, values: RagFlagValues): RagConfig {
  config.retrieval.topK = numberArg('top-k', values['top-k'], (n) => Number.isInteger(n) && n >= 1 && n <= 50, 'an integer in [1, 50]') ?? config.retrieval.topK;
  if (values.transform !== undefined) {
    if (!(TRANSFORMS as readonly string[]).includes(values.transform)) throw new CliError(`--transform must be one of ${TRANSFORMS.join(', ')}, got "${values.transform}"`);
    config.transform.kind = values.transform as QueryTransform;
  }
  config.window = numberArg('window', values.window, (n) => Number.isInteger(n) && n >= 0 && n <= 10, 'a whole number in [0, 10]') ?? config.window;
  const rerank = numberArg('rerank', values.rerank, (n) => Number.isInteger(n) && n > 0, 'a whole number > 0');
  if (rerank !== undefined) config.rerank = { enabled: true, topN: rerank };
  if (values.agentic) config.agentic = true;
  return config;
}
