/**
 * The RAG pipeline's retrieval settings: the search settings (search.ts) with the pipeline's bounds and defaults
 * (at most 50 passages; the sparse mode's rejection threshold; dedup), from which `DEFAULT_RAG_CONFIG.retrieval`
 * and `RagConfigSchema`'s retrieval block derive (rag/config.ts).
 */
import { DEFAULT_REJECT_THRESHOLDS } from '../retrieval/rejection.ts';
import { DEFAULT_SEARCH } from '../retrieval/search-types.ts';
import { bool, defaultsOf, int, num, type SettingsOf } from './schema.ts';
import { SEARCH_SETTINGS } from './search.ts';

export const RAG_RETRIEVAL_SETTINGS = Object.freeze({
  ...SEARCH_SETTINGS,
  topK: int({ ...SEARCH_SETTINGS.topK, default: SEARCH_SETTINGS.topK.default, min: 1, max: 50, describe: 'passages given to the model (before reranking)' }),
  rejectThreshold: num({
    default: DEFAULT_REJECT_THRESHOLDS[DEFAULT_SEARCH.mode], min: 0, max: 1, url: 'thr', flag: 'reject-threshold',
    describe: "refuse to answer when the best passage's confidence is below this (0 disables)",
  }),
  dedup: bool({ default: DEFAULT_SEARCH.dedup, url: 'dedup', describe: 'at most one passage per document' }),
});

export type RagRetrievalSettings = SettingsOf<typeof RAG_RETRIEVAL_SETTINGS>;
export const RAG_RETRIEVAL_DEFAULTS: Readonly<RagRetrievalSettings> = Object.freeze(defaultsOf(RAG_RETRIEVAL_SETTINGS));
