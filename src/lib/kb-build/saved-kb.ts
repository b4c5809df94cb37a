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
import { localKbId } from '../data/kb-registry.ts';
import { withJudgements } from '../artifact/write.ts';
import { FILES, parseJsonBytes, parseMeta } from '../artifact/format.ts';
import type { TestSetStore } from '../store/test-set-store.ts';

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

/**
 * Publishes a saved knowledge base to the request's Hub dataset repo (the token only to its Hub), with the test set
 * `request.testSetId` as its queries and qrels when given: one of this knowledge base's, made on its current content
 * (not stale), and not pseudo-queries (in an artifact they would lose their label).
 */
export async function publishSavedKb(
  store: LocalKbStore,
  request: PublishRequest,
  opts: { onProgress?: OnBuildProgress; fetch?: typeof fetch; signal?: AbortSignal; testSets?: Pick<TestSetStore, 'get'> } = {},
): Promise<PublishedKb> {
  const { testSets, ...rest } = opts;
  const record = await savedRecord(store, request.name);
  let files = record.files;
  if (request.testSetId) {
    const set = await testSets?.get(request.testSetId) ?? null;
    if (!set || set.kbId !== localKbId(request.name)) throw new Error(`that test set is not one of ${request.name}'s (deleted?): choose another, or none`);
    if (set.kind === 'pseudo') throw new Error(`${set.label}: pseudo-queries are not published (in an artifact they would lose their label)`);
    const meta = parseMeta(parseJsonBytes(files.get(FILES.meta)!, FILES.meta));
    if (set.corpusHash !== meta.corpus_sha256) throw new Error(`${set.label} is stale: ${request.name} changed since it was made; make the test set again`);
    files = await withJudgements(files, set.queries, new Map(set.qrels.map(([q, docs]) => [q, new Map(docs)])));
  }
  return publishLocalKb({
    repo: request.repo, hubUrl: request.access.hubUrl, token: request.access.token, name: request.name,
    files, entry: record.entry, ...rest,
  });
}
