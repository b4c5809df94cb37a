/**
 * One index of an artifact source, opened by the id a knowledge-base spec names (`#index-id`, or the only one), with
 * the text whose hash keys embeddings computed for it: its meta.json, which lists every file's SHA-256.
 */
import { joinPath } from '../artifact/format.ts';
import { listIndexes, openArtifact, type OpenArtifactOptions } from '../artifact/read.ts';
import type { FileSource, OpenedArtifact } from '../artifact/types.ts';
import { pickIndex } from '../data/kb-spec.ts';

export interface OpenedIndex {
  opened: OpenedArtifact;
  /** `label#index-id`: the id and label of the knowledge base. */
  id: string;
  hashText: string;
}

/** Opens the index `wanted` names (a KbSpecError when there is no such index, or several and none named). */
export async function openArtifactIndex(source: FileSource, wanted: string | null, label: string, opts: OpenArtifactOptions): Promise<OpenedIndex> {
  const entry = pickIndex(await listIndexes(source), wanted, label);
  const opened = await openArtifact(source, entry.path, opts);
  const id = `${label}#${opened.id}`;
  const meta = await source.read(joinPath(entry.path, 'meta.json'));
  return { opened, id, hashText: meta ? new TextDecoder().decode(meta) : id };
}
