/**
 * What leaves the browser from a saved knowledge base (the build worker's `exportZip` and `publish`): its record,
 * every file checked against meta.json first (a damaged one is refused, never exported or pushed), then the zip of
 * its artifact folder or one commit to a Hub dataset repo.
 */
import type { PublishRequest } from './requests.ts';
import { artifactZip } from '../artifact/zip.ts';
import { checkLocalKbFiles, missingMessage, type LocalKbRecord, type LocalKbStore } from '../store/local-kb-store.ts';
import { publishLocalKb, type PublishedKb } from './publish.ts';
import type { OnBuildProgress } from '../data/source-documents.ts';

/** A saved knowledge base whose files all match meta.json. */
export async function savedRecord(store: LocalKbStore, name: string): Promise<LocalKbRecord> {
  const record = await store.get(name);
  if (!record) throw new Error(missingMessage(name));
  await checkLocalKbFiles(record);
  return record;
}

/** The .zip of a saved knowledge base: `index_config.json` listing it and its files under `<name>/`. */
export async function exportLocalKb(store: LocalKbStore, name: string): Promise<Uint8Array> {
  const record = await savedRecord(store, name);
  return artifactZip(name, record.entry, record.files);
}

/** Publishes a saved knowledge base to the request's Hub dataset repo (the token only to its Hub). */
export async function publishSavedKb(
  store: LocalKbStore,
  request: PublishRequest,
  opts: { onProgress?: OnBuildProgress; fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<PublishedKb> {
  const record = await savedRecord(store, request.name);
  return publishLocalKb({
    repo: request.repo, hubUrl: request.access.hubUrl, token: request.access.token, name: request.name,
    files: record.files, entry: record.entry, ...opts,
  });
}
