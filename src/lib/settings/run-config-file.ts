/**
 * A retrieval run's settings as a file: what `rag-lab tune --config-out` writes for its winner, `{ "mode", "settings" }`
 * with the flat settings of RUN_SETTINGS (eval-beir's flags by their keys) and the winner's embedder when the tune
 * tried others (`--embedders`), read back by `eval-beir --config` (the embedder as --embedder unless one is given). Each
 * value is checked as its declaration says; an unknown key or mode is refused by name; the text is bounded.
 */
import * as v from 'valibot';
import { MODE_IDS, type RetrievalMode } from '../retrieval/modes.ts';
import { RUN_SETTINGS, type RunFlat } from './retrieval-run.ts';
import { valueSchema } from './schema.ts';
import { SEARCH_SETTINGS, type SearchSettings } from './search.ts';

/** The largest settings file read (a tune writes well under 2 kB). */
export const MAX_RUN_CONFIG_BYTES = 64 * 1024;

/** `embedder`: the winner ran with another embedder than the tune's current one (`rag-lab tune --embedders`), as --embedder names it. */
export interface RunConfigFile { mode: RetrievalMode; settings: Partial<RunFlat>; embedder?: string }

const FILE = v.strictObject({
  mode: v.picklist(MODE_IDS, `mode must be one of ${MODE_IDS.join(', ')}`),
  settings: v.strictObject(Object.fromEntries(Object.entries(RUN_SETTINGS).map(([k, s]) => [k, v.optional(valueSchema(s))])), (issue) => `unknown setting ${JSON.stringify(issue.path?.at(-1)?.key)} (the settings are ${Object.keys(RUN_SETTINGS).join(', ')})`),
  embedder: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(300), v.regex(/^[\w./@:-]+$/, 'embedder must be a model id as --embedder takes it'))),
}, 'a settings file holds { "mode", "settings" } (and an "embedder") and nothing else');

/** The file's mode and settings, or an Error whose message says what is wrong. */
export function parseRunConfigFile(text: string): RunConfigFile {
  if (text.length > MAX_RUN_CONFIG_BYTES) throw new Error(`the settings file is over ${MAX_RUN_CONFIG_BYTES / 1024} kB: it is not one rag-lab tune writes`);
  let json: unknown;
  try { json = JSON.parse(text); } catch (e) { throw new Error(`the settings file is not JSON (${(e as Error).message})`); }
  const r = v.safeParse(FILE, json);
  if (!r.success) {
    const issue = r.issues[0];
    const path = v.getDotPath(issue);
    throw new Error(path && !issue.message.startsWith('unknown setting') ? `${path}: ${issue.message}` : issue.message);
  }
  return r.output as RunConfigFile;
}

/**
 * What a search takes of a tune's settings: its mode and each search setting (settings/search.ts) the file sets: the
 * k's (an unset candidate_k, "auto" for a run, is left to the search's default), calibration, α, the entropy basis,
 * and BM25's k1 and b (the postings re-weighted).
 */
export function searchOfRunConfig(f: RunConfigFile): Partial<Omit<SearchSettings, 'topK' | 'rejectThreshold'>> {
  const search: Record<string, unknown> = { mode: f.mode };
  for (const k of Object.keys(SEARCH_SETTINGS)) {
    const x = (f.settings as Record<string, unknown>)[k];
    if (x !== undefined && !(k === 'candidateK' && x === null)) search[k] = x;
  }
  return search as Partial<Omit<SearchSettings, 'topK' | 'rejectThreshold'>>;
}
