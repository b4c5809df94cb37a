/**
 * A built knowledge base as the input of another build (`rag-lab build-index --data kb.zip` or an artifact folder):
 * its documents, fields, queries and qrels, built again with the flags given (other chunking, --embedder, --push).
 * The .zip is the Build tab's export (`src/lib/artifact/zip.ts`); `zipFileSource` also serves `--kb kb.zip`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listIndexes, openArtifact } from '../src/lib/artifact/read.ts';
import { ArtifactError, type FileSource } from '../src/lib/artifact/types.ts';
import { readArtifactZip } from '../src/lib/artifact/zip.ts';
import { summariseList } from '../src/lib/summarise-list.ts';
import { CliError } from './args.ts';
import type { BuildData } from './build-data.ts';
import { folderSource } from './folder-source.ts';
import { withFile } from './fs-errors.ts';

/** A .zip of an artifact folder (Build tab export) as a FileSource labelled with its path; faults are ArtifactErrors. */
export function zipFileSource(file: string): FileSource {
  const bytes = withFile(file, () => readFileSync(file));
  return readArtifactZip(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), file);
}

const isArtifactDir = (dir: string) => existsSync(join(dir, 'index_config.json')) || existsSync(join(dir, 'meta.json'));

/**
 * `--data` as an artifact: a `.zip` file or a folder holding index_config.json or meta.json, optionally `#index-id`
 * (when the path with the `#` is not itself there). Null for anything else (the other data kinds).
 */
export function artifactDataPath(path: string): { abs: string; index: string | null } | null {
  const hash = path.lastIndexOf('#');
  const [p, index] = existsSync(path) || hash < 0 ? [path, null] : [path.slice(0, hash), path.slice(hash + 1)];
  const abs = resolve(p);
  if (!existsSync(abs)) return null;
  const st = statSync(abs);
  if (st.isFile() ? !/\.zip$/i.test(abs) : !isArtifactDir(abs)) return null;
  return { abs, index: index || null };
}

/** The documents (and queries, qrels) of the artifact `at` names, for a new build. */
export async function loadArtifactData(at: { abs: string; index: string | null }): Promise<BuildData> {
  try {
    const zip = statSync(at.abs).isFile();
    const source = zip ? zipFileSource(at.abs) : folderSource(at.abs);
    const entries = await listIndexes(source);
    const entry = at.index !== null ? entries.find((e) => e.id === at.index) : entries.length === 1 ? entries[0] : undefined;
    if (!entry) {
      const ids = summariseList(entries.map((e) => e.id));
      throw new CliError(at.index !== null
        ? `--data ${at.abs}: no index "${at.index}" (it has ${ids})`
        : `--data ${at.abs}: ${entries.length} indexes (${ids}); pick one with --data ${at.abs}#<index-id>`);
    }
    const opened = await openArtifact(source, entry.path, { dense: 'none' });
    const what = zip ? 'artifact zip' : 'artifact folder';
    const q = opened.queries ? `, ${opened.queries.length} queries` : '';
    return {
      kind: 'artifact', id: opened.id, title: opened.descriptor.title, docs: [...opened.kb.docs], fields: [...opened.descriptor.fields],
      queries: opened.queries, qrels: opened.qrels, notes: [], chunking: opened.kb.options.chunking,
      summary: `${what} ${at.abs}#${opened.id} (${opened.kb.docs.length} documents${q}; built again with this command's settings)`,
    };
  } catch (e) {
    if (e instanceof ArtifactError) throw new CliError(e.message.split('\n')[0]!);
    throw e;
  }
}
