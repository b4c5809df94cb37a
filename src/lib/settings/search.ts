/**
 * The search settings, declared once: the Search tab's inputs and link parameters, `rag-lab search`'s flags and
 * their ranges, the request a search is sent with, and the RAG pipeline's retrieval defaults all derive from
 * SEARCH_SETTINGS. The values' defaults are the core's (`DEFAULT_SEARCH`, retrieval/search-types.ts, where each
 * option is used). A new search setting: its option in SearchOptions and DEFAULT_SEARCH (its use), and one entry here.
 */
import { CALIBRATIONS } from '../retrieval/calibrate.ts';
import { ENTROPY_BASES } from '../retrieval/entropy.ts';
import { MODE_IDS } from '../retrieval/modes.ts';
import { DEFAULT_SEARCH, type SearchOptions } from '../retrieval/search-types.ts';
import * as v from 'valibot';
import { defaultsOf, int, num, oneOf, pickSettings, valueSchema, type Setting, type SettingsOf } from './schema.ts';

const D = DEFAULT_SEARCH;
/** Seed A's separate k's: unset, each is candidate_k. */
const K_MAX = 1000;

export const SEARCH_SETTINGS = Object.freeze({
  mode: oneOf(MODE_IDS, { default: D.mode, url: 'mode', flag: 'mode', meta: 'MODE', label: 'mode', describe: 'retrieval mode' }),
  topK: int({ default: D.topK, min: 1, max: 100, url: 'k', flag: 'top-k', describe: 'results per query' }),
  candidateK: int({ default: D.candidateK, min: 1, max: K_MAX, url: 'ck', flag: 'candidate-k', describe: 'candidates per retriever before fusion' }),
  bm25K: int({ default: D.bm25K, nullMeans: 'candidate_k', min: 1, max: K_MAX, url: 'bk', flag: 'bm25-k', describe: "BM25's candidates (seed A's bm25_k)" }),
  denseK: int({ default: D.denseK, nullMeans: 'candidate_k', min: 1, max: K_MAX, url: 'dk', flag: 'dense-k', describe: "the dense index's candidates (seed A's dense_k)" }),
  fusionTopK: int({
    default: D.fusionTopK, nullMeans: 'candidate_k', min: 1, max: K_MAX, url: 'fk', flag: 'fusion-top-k',
    describe: "fused candidates passed on: the cross-encoder's pool in rerank modes (unset: candidate_k), or what top-k is taken from (unset: all) (seed A's fusion_top_k)",
  }),
  calibration: oneOf(CALIBRATIONS, { default: D.calibration, url: 'cal', flag: 'calibration', label: 'calibration', describe: 'score calibration of the calibrated modes' }),
  alpha: num({ default: D.alpha, min: 0, max: 1, url: 'a', flag: 'alpha', meta: 'A', describe: "the fixed hybrid's BM25 weight α: α·minmax(BM25) + (1 − α)·minmax(dense)" }),
  entropyBasis: oneOf(ENTROPY_BASES, { default: D.entropyBasis, url: 'eb', flag: 'entropy-basis', meta: 'B', describe: "entropy of the calibrated scores (seed B's definition) or of the raw scores" }),
  k1: num({ default: D.k1, nullMeans: "the knowledge base's", min: 0, max: 10, url: 'k1', flag: 'k1', meta: 'K', describe: 'BM25 k1 (the postings re-weighted)' }),
  b: num({ default: D.b, nullMeans: "the knowledge base's", min: 0, max: 1, url: 'b', flag: 'b', meta: 'B', describe: 'BM25 b (the postings re-weighted)' }),
  rejectThreshold: num({
    default: D.rejectThreshold, nullMeans: "the mode's default", min: 0, max: 1, url: 'thr', flag: 'reject-threshold', meta: 'X',
    describe: 'reject below this confidence (0 never rejects)',
  }),
});

export type SearchSettings = SettingsOf<typeof SEARCH_SETTINGS>;
// Fails to compile when a setting's type drifts from the core's option of the same name.
const _sameAsCore: Pick<SearchOptions, keyof SearchSettings> = {} as SearchSettings;
void _sameAsCore;

export const SEARCH_DEFAULTS: Readonly<SearchSettings> = Object.freeze(defaultsOf(SEARCH_SETTINGS));

/**
 * The search settings of a form or a request (nothing else it holds); a value its declaration refuses (a field left
 * blank, α = 1.5) is the setting's default, so no search runs on it.
 */
export function searchSettingsOf(values: SearchSettings): SearchSettings {
  const picked = pickSettings(SEARCH_SETTINGS, values) as Record<string, unknown>;
  for (const [k, s] of Object.entries(SEARCH_SETTINGS) as Array<[string, Setting]>) if (!v.is(valueSchema(s), picked[k])) picked[k] = s.default;
  return picked as SearchSettings;
}

/** Seed A's separate k's (bm25_k, dense_k, fusion_top_k): `rag-lab search`'s, the pipeline's and eval-beir's flags. */
export const SEPARATE_K_SETTINGS = Object.freeze({ bm25K: SEARCH_SETTINGS.bm25K, denseK: SEARCH_SETTINGS.denseK, fusionTopK: SEARCH_SETTINGS.fusionTopK });
