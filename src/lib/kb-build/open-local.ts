/**
 * Opening a knowledge base built in this browser (the search worker's `open({kind: 'local', name})`): its artifact
 * files from the local store, read with the artifact reader over `memorySource` like any artifact. Its descriptor's
 * id and source are the local ref (`local:<name>`), its title the one the user gave it (renames included), and so its
 * placeholder.
 */
import { memorySource } from '../artifact/memory-source.ts';
import { openArtifact, type OpenArtifactOptions } from '../artifact/read.ts';
import type { FileSource, OpenedArtifact } from '../artifact/types.ts';
import { kbIdOf, localPlaceholder } from '../data/kb-registry.ts';
import type { KbDescriptor, KbSourceRef } from '../data/kb-source.ts';
import { missingMessage, type LocalKbRecord, type LocalKbStore } from '../store/local-kb-store.ts';

export interface OpenedLocalKb {
  record: LocalKbRecord;
  opened: OpenedArtifact;
  descriptor: KbDescriptor;
  /** The files, as a source (the artifact's folder is its root: path ''). */
  source: FileSource;
}

/** The descriptor a local knowledge base is shown with: the artifact's, with the local id, source, title and placeholder. */
export function localDescriptor(record: LocalKbRecord, artifact: KbDescriptor): KbDescriptor {
  const ref: KbSourceRef = { kind: 'local', name: record.meta.name };
  return {
    ...artifact, id: kbIdOf(ref), source: ref, title: record.meta.title, placeholder: localPlaceholder(record.meta.title),
    description: record.meta.description || artifact.description,
  };
}

export async function openLocalKb(
  store: LocalKbStore,
  name: string,
  opts: OpenArtifactOptions & { open?: (source: FileSource, path: string, opts: OpenArtifactOptions) => Promise<OpenedArtifact> } = {},
): Promise<OpenedLocalKb> {
  const { open = openArtifact, ...rest } = opts;
  const record = await store.get(name);
  if (!record) throw new Error(missingMessage(name));
  const source = memorySource(record.files, kbIdOf({ kind: 'local', name }));
  const opened = await open(source, '', rest);
  return { record, opened, descriptor: localDescriptor(record, opened.descriptor), source };
}
