/**
 * Opening a knowledge base for the search session from where the page names it (KbOpenRequest): the embedded corpus
 * (its shipped BM25 artifact, else its JSON file indexed here), a Hub artifact repo, one built in this browser, or a
 * RAGBench subset's pooled documents (kb-open-ragbench.ts).
 * Each gives the knowledge base, what the page shows about it (KbInfo) and its content key (what vectors embedded
 * for it are cached under).
 */
import { artifactVectorKey, metaKeyOf } from '../cache-keys.ts';
import { SOTU_FILE, sotuDescriptor, sotuDocuments } from '../data/sotu.ts';
import { facetsOf, type KbDescriptor } from '../data/kb-source.ts';
import { kbIdOf } from '../data/kb-registry.ts';
import type { IndexEntry } from '../artifact/format.ts';
import type { OpenArtifactOptions } from '../artifact/read.ts';
import type { ArtifactDense, FileSource, OpenedArtifact } from '../artifact/types.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { sha256Hex } from '../checksum.ts';
import { openKnowledgeBase } from '../store/kb-loader.ts';
import { readBoundedText } from '../hub/bounded-read.ts';
import { openLocalKb } from '../kb-build/open-local.ts';
import type { LocalKbStore } from '../store/local-kb-store.ts';
import type { HubRepoRequest, KbInfo, KbOpenRequest, LoadProgress } from './kb-contract.ts';
import { openRagbenchKb, type RagbenchKbDeps } from './kb-open-ragbench.ts';

/** The artifact reader and file sources the session reads through (the worker's, with its IndexedDB file cache). */
export interface ArtifactAccess {
  listIndexes(source: FileSource): Promise<IndexEntry[]>;
  openArtifact(source: FileSource, path: string, opts?: OpenArtifactOptions): Promise<OpenedArtifact>;
  hubSource(opts: Omit<HubRepoRequest, 'kind'>): Promise<FileSource & { revisionSha: string | null; notes: string[] }>;
  httpFolderSource(opts: { baseUrl: string }): FileSource;
}

export interface KbOpenDeps {
  artifacts: ArtifactAccess;
  /** Knowledge bases built in this browser. */
  localKbs: () => LocalKbStore;
  /** Where a RAGBench subset's rows are read from besides the Hub (without: the Hub only). */
  ragbench?: RagbenchKbDeps;
}

/** An open knowledge base of the session. */
export interface OpenKb {
  kb: KnowledgeBase;
  /** Cache key of the vectors embedded here (corpus id and what identifies its content), computed when first needed. */
  key: () => Promise<string>;
  info: KbInfo;
  /** Vectors an artifact ships, attached by enableDense when the loaded embedder made them. */
  artifactDense: ArtifactDense | null;
}

type Progress = (p: LoadProgress) => void;

async function download(url: string, onProgress: Progress): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`Could not download the corpus from ${url}: ${(e as Error).message}`);
  }
  if (!res.ok || !res.body) throw new Error(`Could not download the corpus from ${url}: HTTP ${res.status}`);
  // Bounded as every download (download-limits.ts): a corpus file is "other", 256 MB.
  return readBoundedText(res, { file: 'the corpus', onProgress: (done, total) => onProgress({ stage: 'download', done, total: Math.max(total, done) }) });
}

/** The embedded corpus: its shipped BM25 artifact when the build has one (no indexing), else its JSON file. */
async function openEmbedded(deps: KbOpenDeps, baseUrl: string, onProgress: Progress): Promise<OpenKb> {
  const folder = new URL('corpora/', baseUrl).href;
  const notes: string[] = [];
  // A static host answering unknown paths with index.html (a dev server, an SPA fallback) has no artifact either.
  const config = await fetch(new URL('index_config.json', folder)).then(async (r) => r.ok && (await readBoundedText(r, { file: 'index_config.json' })).trimStart().startsWith('{')).catch(() => false);
  if (config) {
    try {
      const t0 = performance.now();
      const source = deps.artifacts.httpFolderSource({ baseUrl: folder });
      const opened = await deps.artifacts.openArtifact(source, sotuDescriptor.id, { onProgress: fileProgress(onProgress) });
      const next = fromArtifact(opened, sotuDescriptor, sotuDescriptor.id, null, performance.now() - t0, source, sotuDescriptor.id);
      next.info.cacheNote = sourceNote((source as { notes?: string[] }).notes ?? []);
      return next;
    } catch (e) {
      notes.push(`The shipped index could not be read (${(e as Error).message}); the corpus was indexed in this tab instead.`);
    }
  }
  const corpusUrl = new URL(SOTU_FILE, baseUrl).href;
  const text = await download(corpusUrl, onProgress);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`The corpus file at ${corpusUrl} is not valid JSON.`);
  }
  const docs = sotuDocuments(json);
  const hash = (await sha256Hex(text)).slice(0, 16);
  const opened = await openKnowledgeBase(sotuDescriptor.id, docs, hash, {}, (stage, done, total) => onProgress({ stage, done, total }));
  const info: KbInfo = {
    corpusId: sotuDescriptor.id, descriptor: sotuDescriptor, facets: facetsOf(sotuDescriptor.fields, docs),
    documents: docs.length, items: opened.kb.size, source: opened.source, cacheNote: opened.cacheNote, buildMs: opened.buildMs,
    revisionSha: null, dense: null, artifactEmbedder: null, notes,
  };
  return { kb: opened.kb, key: async () => opened.cacheKey, info, artifactDense: null };
}

/** What a file source says about its cache (a write that failed, a revision taken from the cache), in one line. */
function sourceNote(notes: readonly string[]): string | null {
  const unique = [...new Set(notes)];
  if (unique.length === 0) return null;
  return unique.length === 1 ? unique[0]! : `${unique[0]} (and ${unique.length - 1} more like it)`;
}

const fileProgress = (onProgress: Progress) => (file: string, done: number, total: number) => onProgress({ stage: 'download-file', file, done, total });

/**
 * An opened artifact as the session keeps it. Vectors embedded here for it are cached under its id and the SHA-256
 * of its meta.json, which lists the size and SHA-256 of every file (so another upload is another key).
 */
function fromArtifact(opened: OpenedArtifact, descriptor: KbDescriptor, id: string, revisionSha: string | null, ms: number, source: FileSource, path: string): OpenKb {
  const dense = opened.dense;
  const info: KbInfo = {
    corpusId: id, descriptor, facets: facetsOf(descriptor.fields, opened.kb.docs),
    documents: opened.kb.docs.length, items: opened.kb.size, source: 'artifact', cacheNote: null, buildMs: ms, revisionSha,
    dense: null, artifactEmbedder: dense ? { id: dense.embedder.id, dim: dense.embedder.dim } : null, notes: [...opened.notes],
    ...(opened.corpusHash ? { corpusHash: opened.corpusHash } : {}),
  };
  let key: Promise<string> | null = null;
  const contentKey = async () => {
    const meta = await source.read(path ? `${path}/meta.json` : 'meta.json');
    if (!meta) throw new Error(`${path ? `${path}/` : ''}meta.json is no longer readable from ${source.label}: open the knowledge base again.`);
    return artifactVectorKey(id, metaKeyOf(await sha256Hex(meta)));
  };
  return { kb: opened.kb, key: () => (key ??= contentKey().catch((e) => { key = null; throw e; })), info, artifactDense: dense };
}

/**
 * The vectors of the embedded corpus from a Hub artifact repo (its `sotu` index, else the first index with vectors),
 * accepted only when its chunks are exactly the open knowledge base's (same ids, in the same order).
 */
export async function hubVectors(deps: KbOpenDeps, open: OpenKb, req: HubRepoRequest, onProgress: Progress): Promise<ArtifactDense> {
  const source = await deps.artifacts.hubSource({ repo: req.repo, revision: req.revision, hubUrl: req.hubUrl, token: req.token });
  const list = await deps.artifacts.listIndexes(source);
  const entry = list.find((x) => x.id === sotuDescriptor.id && x.embedder) ?? list.find((x) => x.embedder);
  if (!entry) throw new Error(`${req.repo}@${req.revision}: index_config.json lists no index with vectors; clear the vectors repo in Settings to embed in this tab.`);
  const opened = await deps.artifacts.openArtifact(source, entry.path, { onProgress: fileProgress(onProgress) });
  if (!opened.dense) throw new Error(`${req.repo}/${entry.path}: the index ships no vectors.`);
  const same = opened.kb.size === open.kb.size && Array.from({ length: open.kb.size }, (_, i) => i).every((i) => opened.kb.itemId(i) === open.kb.itemId(i));
  if (!same) throw new Error(`${req.repo}/${entry.path}/chunks.parquet: its chunks are not the embedded corpus's (other chunking or another corpus version); rebuild it with scripts/sotu-artifact.ts.`);
  return opened.dense;
}

/**
 * A knowledge base built in this browser: its artifact files from IndexedDB, opened like any artifact (vectors
 * embedded here are cached under `local:<name>:artifact:<sha of meta.json>`, which deleting it removes).
 */
async function openLocal(deps: KbOpenDeps, name: string, onProgress: Progress): Promise<OpenKb> {
  const t0 = performance.now();
  const local = await openLocalKb(deps.localKbs(), name, { open: deps.artifacts.openArtifact, onProgress: fileProgress(onProgress) });
  return fromArtifact(local.opened, local.descriptor, local.descriptor.id, null, performance.now() - t0, local.source, '');
}

/** An index artifact of a Hub dataset repo (per-file progress). */
async function openHub(deps: KbOpenDeps, request: Extract<KbOpenRequest, { kind: 'hub' }>, onProgress: Progress): Promise<OpenKb> {
  const ref = { kind: 'hub' as const, repo: request.repo, revision: request.revision, path: request.path };
  const t0 = performance.now();
  const source = await deps.artifacts.hubSource({ repo: request.repo, revision: request.revision, hubUrl: request.hubUrl, token: request.token });
  const opened = await deps.artifacts.openArtifact(source, request.path, { onProgress: fileProgress(onProgress) });
  const sha = source.revisionSha ?? (/^[0-9a-f]{40}$/.test(request.revision) ? request.revision : null);
  // The descriptor is the artifact's; its id and source are where it was opened from (links and hashes use them).
  const descriptor: KbDescriptor = { ...opened.descriptor, id: kbIdOf(ref), source: ref };
  const next = fromArtifact(opened, descriptor, kbIdOf(ref), sha, performance.now() - t0, source, request.path);
  next.info.cacheNote = sourceNote(source.notes);
  return next;
}

/** Opens what `request` names. */
export function openKbFrom(deps: KbOpenDeps, request: KbOpenRequest, onProgress: Progress): Promise<OpenKb> {
  if (request.kind === 'embedded') {
    if (request.id !== sotuDescriptor.id) return Promise.reject(new Error(`Unknown embedded knowledge base "${request.id}".`));
    return openEmbedded(deps, request.baseUrl, onProgress);
  }
  if (request.kind === 'ragbench') return openRagbenchKb(deps.ragbench, request, onProgress);
  return request.kind === 'local' ? openLocal(deps, request.name, onProgress) : openHub(deps, request, onProgress);
}
