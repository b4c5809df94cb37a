/**
 * The build settings the page sends the build worker, checked before any work; the record schemas themselves live
 * with the record (`src/lib/data/local-kb-schemas.ts`) and are re-exported here for the build session.
 */
import { BuildSettingsSchema, firstIssue } from '../data/local-kb-schemas.ts';
import type { BuildSettings } from '../data/local-kb-meta.ts';

export { BuildSettingsSchema, ChunkingSchema, firstIssue, LocalKbMetaSchema, LocalKbNameSchema, MAX_CHUNK_SIZE } from '../data/local-kb-schemas.ts';

/** Build settings from the page, checked; a bad one is refused naming the setting. */
export function checkBuildSettings(settings: unknown): BuildSettings {
  const why = firstIssue(BuildSettingsSchema, settings);
  if (why) throw new Error(`The build settings are not valid (${why}).`);
  return settings as BuildSettings;
}
