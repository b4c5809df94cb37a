/**
 * What a setting in a report's config is, from the settings' declarations (src/lib/settings/): the one line of its
 * schema entry, for Compare's config diff. A retrieval report records a run's settings under their names in
 * RUN_SETTINGS (the pool as `growPool`, chunk size and overlap under `chunking`); a pipeline report its retrieval
 * config (`rag.retrieval.topK`, `rag.window`) under the pipeline's paths (RAG_SETTINGS). A setting declared there is
 * described here with no other edit.
 */
import { RAG_RETRIEVAL_SETTINGS, RAG_SETTINGS } from '../settings/rag.ts';
import { RUN_SETTINGS } from '../settings/retrieval-run.ts';
import type { Setting, SettingsSchema } from '../settings/schema.ts';

/** A config path's last part → the schema key it records, where the names differ. */
const RECORDED_AS: Readonly<Record<string, string>> = { growPool: 'pool', 'chunking.chunkSize': 'chunkSize', 'chunking.overlap': 'overlap' };

const lookup = (schema: SettingsSchema, key: string): Setting | undefined => (Object.hasOwn(schema, key) ? schema[key] : undefined);

/** The setting a diff row's path (`config.candidateK`, `config.rag.retrieval.topK`, `config.chunking.overlap`) records, if any. */
export function settingOfPath(path: string): Setting | undefined {
  if (!path.startsWith('config.')) return undefined;
  const rest = path.slice('config.'.length);
  if (rest.startsWith('rag.')) return lookup(RAG_SETTINGS, rest.slice('rag.'.length));
  const retrieval = /^retrieval\.([^.]+)$/.exec(rest);
  if (retrieval) return lookup(RAG_RETRIEVAL_SETTINGS, retrieval[1]!);
  return lookup(RUN_SETTINGS, RECORDED_AS[rest] ?? rest);
}
