/**
 * The build session of `rag-lab build-index`: one request → an index artifact (format v1, docs/index-format.md)
 * written where the caller's {@link ArtifactSink} puts it, in the stages collect documents → chunk → index → embed →
 * dense calibration → HNSW → encode → write → index_config.json merged → push (optional), with progress and log
 * lines on the caller's side. The same core as the tab's build (`KnowledgeBase`, `embedItems`, `calibratedDense`,
 * `writeArtifact`); what is Node's (reading `--data`, loading the embedder, the files on disk) comes in through
 * {@link ArtifactBuildDeps}.
 */
import { FILES, parseIndexConfig, parseJsonBytes, type IndexConfig } from '../artifact/format.ts';
import { ArtifactError } from '../artifact/types.ts';
import { addToIndexConfig, indexConfigBytes, writeArtifact, type ArtifactInput } from '../artifact/write.ts';
import { pushFiles } from '../hub/push.ts';
import type { TextEmbedder } from '../models/types.ts';
import { DEFAULT_BM25 } from '../retrieval/bm25.ts';
import type { ChunkOptions } from '../retrieval/chunk.ts';
import { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { BuildError } from './build-kb.ts';
import { dataChunking, type BuildData } from './collect-data.ts';
import { denseStep } from './dense-input.ts';

export interface ArtifactBuildRequest {
  /** Index id and folder name (default: the data's). */
  id?: string | undefined;
  /** Title in the knowledge-base picker (default: the data's, else the id). */
  title?: string | undefined;
  description?: string | undefined;
  /** Chunking (null or absent: the data's, `dataChunking`). */
  chunking?: ChunkOptions | false | null;
  /** With an embedder: also ship int8 vectors, an HNSW graph. */
  int8: boolean;
  hnsw: boolean;
  /** Upload the index folder and index_config.json to this Hub dataset repo (a concurrent writer is merged). */
  push?: { repo: string; hubUrl: string; token: string } | undefined;
}

/** Stage progress as a bar shows it: `update` per step, `end` when a stage is over. */
export interface StageProgress {
  update(stage: string, done: number, total: number): void;
  end(): void;
}

/** Where the artifact goes: an index folder `<id>/` replaced whole, and index_config.json beside it. */
export interface ArtifactSink {
  /** The index_config.json there now, or null (other indexes listed there are kept). */
  readConfig(): { bytes: Uint8Array; path: string } | null;
  /** Writes the index folder (index-folder-relative paths), calling `onFile` per file; returns where (for the log). */
  writeIndex(id: string, files: Map<string, Uint8Array>, onFile: (done: number, total: number) => void): string;
  /** Writes index_config.json; returns where. */
  writeConfig(bytes: Uint8Array): string;
}

export interface ArtifactBuildDeps {
  /** The documents (stage one: `collectData`, `collectArxiv`). */
  collect(): Promise<BuildData>;
  /** The embedder, loaded when asked (after indexing); none: a BM25-only artifact. */
  embedder?: () => Promise<TextEmbedder>;
  sink: ArtifactSink;
  progress: StageProgress;
  log(line: string): void;
  /** A fault of encoding or pushing (an ArtifactError), as the caller reports it. */
  fault(e: unknown): never;
  fetch?: typeof fetch;
}

export interface BuiltArtifact {
  id: string;
  files: number;
  bytes: number;
  /** The push's commit, when pushed. */
  commit?: string;
}

/** The index_config.json an artifact is added to, validated; a bad one is a BuildError. */
function previousConfig(got: { bytes: Uint8Array; path: string } | null): IndexConfig | null {
  if (!got) return null;
  try {
    return parseIndexConfig(parseJsonBytes(got.bytes, got.path), got.path);
  } catch (e) {
    if (e instanceof ArtifactError) throw new BuildError(`${e.message} (fix or remove it; build-index adds to it and keeps the other indexes)`);
    throw e;
  }
}

export async function buildArtifact(req: ArtifactBuildRequest, deps: ArtifactBuildDeps): Promise<BuiltArtifact> {
  const { progress: bar, log } = deps;
  const previous = previousConfig(deps.sink.readConfig());
  const data = await deps.collect();
  log(`data: ${data.summary}`);
  for (const n of data.notes) log(n);
  const id = req.id ?? data.id;
  const title = req.title ?? data.title ?? id;
  const chunking = req.chunking ?? dataChunking(data);
  const description = req.description ?? data.description;

  const kb = KnowledgeBase.build(data.docs, { chunking, bm25: DEFAULT_BM25 }, (stage, done, total) => bar.update(stage, done, total));
  bar.end();
  log(`indexed ${data.docs.length} documents as ${kb.size} ${chunking ? `chunks of ${chunking.chunkSize}/${chunking.overlap}` : 'whole documents'}`);

  let dense: ArtifactInput['dense'];
  if (deps.embedder) dense = await denseStep(kb, await deps.embedder(), { int8: req.int8, hnsw: req.hnsw }, bar, log);

  bar.update('encode', 0, 1);
  let built;
  try {
    built = await writeArtifact({
      id, title, fields: data.fields, kb,
      ...(description !== undefined ? { description } : {}),
      ...(data.examples ? { examples: data.examples } : {}),
      ...(dense ? { dense } : {}),
      ...(data.queries ? { queries: data.queries } : {}),
      ...(data.qrels ? { qrels: data.qrels } : {}),
    });
  } catch (e) {
    bar.end();
    return deps.fault(e);
  }
  bar.update('encode', 1, 1);
  bar.end();
  const config = addToIndexConfig(previous, built.entry);
  const folder = deps.sink.writeIndex(id, built.files, (done, total) => bar.update('write', done, total));
  const configPath = deps.sink.writeConfig(indexConfigBytes(config));
  bar.end();
  const bytes = [...built.files.values()].reduce((a, b) => a + b.byteLength, 0);
  log(`wrote ${folder} (${built.files.size} files, ${(bytes / 1e6).toFixed(2)} MB) and ${configPath} (${config.indexes.length} ${config.indexes.length === 1 ? 'index' : 'indexes'})`);
  const result: BuiltArtifact = { id, files: built.files.size, bytes };
  if (!req.push) return result;

  const { repo, hubUrl, token } = req.push;
  log(`pushing ${built.files.size + 1} files to ${repo} on ${new URL(hubUrl).host}`);
  const files = new Map<string, Uint8Array>();
  for (const [path, b] of built.files) files.set(`${id}/${path}`, b);
  try {
    const pushed = await pushFiles({
      repo, files, hubUrl, token, title: `build-index: ${id}`, ...(deps.fetch ? { fetch: deps.fetch } : {}),
      // Re-read at every try (a concurrent writer's 412): their entries are kept, ours added or replaced.
      updateIndexConfig: (remote) => indexConfigBytes(addToIndexConfig(remote ? parseIndexConfig(parseJsonBytes(remote, FILES.indexConfig)) : null, built.entry)),
    });
    log(`pushed ${id} to ${repo}: commit ${pushed.commit}${pushed.attempts > 1 ? ` (after ${pushed.attempts - 1} concurrent commits)` : ''}`);
    return { ...result, commit: pushed.commit };
  } catch (e) {
    return deps.fault(e);
  }
}
