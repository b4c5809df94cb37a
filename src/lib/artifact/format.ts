/**
 * Artifact format v1 (docs/index-format.md): the valibot schemas of `index_config.json` and `meta.json`, the one
 * module every reader and writer validates with, and the path rule for files inside a repo. A file that fails
 * is an {@link ArtifactError} naming the file and the field at fault.
 */
import * as v from 'valibot';
import { StoredExampleSchema } from '../data/examples.ts';
import { ArtifactError } from './types.ts';

export const ARTIFACT_FORMAT_VERSION = 1;

/** Refused above these: a count this large is a corrupt or hostile file, not a knowledge base a tab can hold. */
export const MAX_CHUNKS = 50_000_000;
export const MAX_DIM = 4096;

const count = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max));
const nonEmpty = v.pipe(v.string(), v.minLength(1));
/** An ISO-8601 timestamp (what `Date.toISOString()` writes, or any form `Date.parse` reads). */
const isoDate = v.pipe(v.string(), v.check((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'expected an ISO date'));
const version = v.pipe(v.number(), v.integer(), v.minValue(1));
const sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'));
const finite = v.pipe(v.number(), v.finite());

export const IndexEntrySchema = v.object({
  id: nonEmpty,
  title: v.string(),
  description: v.string(),
  /** The index's folder, repo-relative ('' = the repo root). */
  path: v.string(),
  counts: v.object({ documents: count(MAX_CHUNKS), chunks: count(MAX_CHUNKS) }),
  /** Embedder id of the vectors, null for a BM25-only index. */
  embedder: v.nullable(v.string()),
  created: isoDate,
  /** The index's own format (a newer one is listed, and refused on open). */
  format_version: version,
});
export type IndexEntry = v.InferOutput<typeof IndexEntrySchema>;

export const IndexConfigSchema = v.object({
  format_version: version,
  indexes: v.array(IndexEntrySchema),
});
export type IndexConfig = v.InferOutput<typeof IndexConfigSchema>;

const MetaFieldSchema = v.object({
  name: nonEmpty,
  label: v.string(),
  type: v.picklist(['number', 'string']),
  facet: v.optional(v.boolean()),
});


const FileEntrySchema = v.object({ bytes: count(Number.MAX_SAFE_INTEGER), sha256 });

export const EmbedderSchema = v.object({
  id: nonEmpty,
  dtype: v.string(),
  dim: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_DIM)),
  pooling: v.picklist(['mean', 'cls']),
  normalized: v.literal(true),
  prefixes: v.object({ query: v.string(), passage: v.string() }),
});

const CdfInfoSchema = v.object({ count: count(Number.MAX_SAFE_INTEGER), queries: count(1_000_000) });

export const MetaSchema = v.object({
  format_version: version,
  id: nonEmpty,
  title: v.string(),
  description: v.string(),
  created: isoDate,
  /** Characters per chunk and shared by neighbours (separators: the recursive splitter's, in order), or false: whole documents. */
  chunking: v.union([
    v.literal(false),
    v.object({
      size: v.pipe(v.number(), v.integer(), v.minValue(1)),
      overlap: v.pipe(v.number(), v.integer(), v.minValue(0)),
      separators: v.optional(v.array(v.string())),
    }),
  ]),
  /** Each item's indexed text starts with its document's title line. */
  index_title: v.boolean(),
  tokenizer: v.object({ stem: v.boolean(), remove_stop_words: v.boolean(), stop_words: v.array(v.string()) }),
  bm25_params: v.object({ k1: v.pipe(finite, v.minValue(0)), b: v.pipe(finite, v.minValue(0), v.maxValue(1)) }),
  /** 'postings': bm25/* ships the inverted index; 'rebuild': readers index the chunk text with the settings above. */
  bm25: v.picklist(['postings', 'rebuild']),
  /** Pseudo-queries and seed of the corpus-CDF tables (the dense one is recomputed with them when missing). */
  cdf_queries: count(1_000_000),
  seed: v.pipe(v.number(), v.integer()),
  counts: v.object({
    documents: count(MAX_CHUNKS),
    chunks: count(MAX_CHUNKS),
    queries: v.optional(count(MAX_CHUNKS)),
    qrels: v.optional(count(Number.MAX_SAFE_INTEGER)),
  }),
  fields: v.array(MetaFieldSchema),
  examples: v.array(StoredExampleSchema),
  placeholder: v.string(),
  embedder: v.nullable(EmbedderSchema),
  /**
   * The corpus hash of the items (models/corpus-embedder/corpus-hash.ts `kbCorpusHash`: what a corpus-trained model
   * records as the corpus it belongs to), written so that readers need not hash every text again; absent in artifacts
   * written before it, whose readers compute it. Any change to what `kbTrainingTexts` returns needs a new field name.
   */
  corpus_sha256: v.optional(sha256),
  /** Present when embeddings.int8/* ships: Int8IndexData's version, metric and centroid count. */
  int8: v.optional(v.nullable(v.object({ version: version, metric: v.picklist(['cosine', 'ip']), centroids: count(256) }))),
  /** Present when hnsw.bin ships. */
  hnsw: v.optional(v.nullable(v.object({
    version: version,
    metric: v.picklist(['cosine', 'ip']),
    M: v.pipe(v.number(), v.integer(), v.minValue(2)),
    ef_construction: v.pipe(v.number(), v.integer(), v.minValue(1)),
    ef_search: v.pipe(v.number(), v.integer(), v.minValue(1)),
  }))),
  sparse_cdf: v.optional(v.nullable(CdfInfoSchema)),
  dense_cdf: v.optional(v.nullable(CdfInfoSchema)),
  /** Byte size and SHA-256 of every other file of the folder, by path relative to it. */
  files: v.record(v.string(), FileEntrySchema),
});
export type ArtifactMeta = v.InferOutput<typeof MetaSchema>;
export type FileEntry = v.InferOutput<typeof FileEntrySchema>;

function describeIssue(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): string {
  const i = issues[0];
  const path = v.getDotPath(i);
  return `${path ? `field ${path}` : 'the file'}: ${i.message}`;
}

/** The refusal of a format version this build does not read. */
export function newerFormat(file: string, found: number): ArtifactError {
  return new ArtifactError(file, `written by a newer RAG Lab (format ${found}); this build reads format ${ARTIFACT_FORMAT_VERSION}. Update RAG Lab to open it.`);
}

function checkVersion(json: unknown, file: string): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ArtifactError(file, 'expected a JSON object');
  const fv = (json as { format_version?: unknown }).format_version;
  if (typeof fv === 'number' && Number.isInteger(fv) && fv > ARTIFACT_FORMAT_VERSION) throw newerFormat(file, fv);
}

/** Validates a parsed `index_config.json`; entries' paths must be {@link safeRepoPath} and ids unique. */
/** index_config.json lists at most this many indexes (the picker renders the first 200 matches of them). */
export const MAX_INDEX_ENTRIES = 100_000;

export function parseIndexConfig(json: unknown, file = 'index_config.json'): IndexConfig {
  checkVersion(json, file);
  const list = (json as { indexes?: unknown }).indexes;
  if (Array.isArray(list) && list.length > MAX_INDEX_ENTRIES) {
    throw new ArtifactError(file, `lists ${list.length.toLocaleString('en-US')} indexes; at most ${MAX_INDEX_ENTRIES.toLocaleString('en-US')} are read: split the repo`);
  }
  const r = v.safeParse(IndexConfigSchema, json);
  if (!r.success) throw new ArtifactError(file, `not a valid index list (${describeIssue(r.issues)})`);
  const seen = new Set<string>();
  r.output.indexes.forEach((e, i) => {
    if (e.path !== '') {
      try { safeRepoPath(e.path); } catch (err) {
        throw new ArtifactError(file, `field indexes.${i}.path: ${(err as Error).message}`);
      }
    }
    if (seen.has(e.id)) throw new ArtifactError(file, `field indexes.${i}.id: "${e.id}" is listed twice`);
    seen.add(e.id);
  });
  return r.output;
}

/** Validates a parsed `meta.json` of format v1: schema, count limits, file paths, and what the counts imply. */
export function parseMeta(json: unknown, file = 'meta.json'): ArtifactMeta {
  checkVersion(json, file);
  const r = v.safeParse(MetaSchema, json);
  if (!r.success) throw new ArtifactError(file, `not a valid artifact description (${describeIssue(r.issues)})`);
  const m = r.output;
  for (const p of Object.keys(m.files)) {
    try { safeRepoPath(p); } catch (err) {
      throw new ArtifactError(file, `field files: ${(err as Error).message}`);
    }
    if (p === 'meta.json') throw new ArtifactError(file, 'field files: meta.json cannot list itself');
  }
  if (m.chunking !== false && m.chunking.overlap >= m.chunking.size) {
    throw new ArtifactError(file, `field chunking: overlap ${m.chunking.overlap} must be smaller than size ${m.chunking.size}`);
  }
  if (m.chunking === false && m.counts.chunks !== m.counts.documents) {
    throw new ArtifactError(file, `field counts: ${m.counts.chunks} items for ${m.counts.documents} whole documents (unchunked, they are the same)`);
  }
  return m;
}

// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A repo-relative POSIX path, checked: no absolute path, drive letter, backslash, empty, `.` or `..` segment, or
 * control character. Returns it unchanged; throws an Error saying why ("climbs out of the repo").
 */
export function safeRepoPath(path: string): string {
  const show = JSON.stringify(path);
  if (typeof path !== 'string' || path === '') throw new Error('an empty path');
  if (CONTROL.test(path)) throw new Error(`the path ${show} holds a control character`);
  if (path.includes('\\')) throw new Error(`the path ${show} holds a backslash (paths use /)`);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw new Error(`the path ${show} is absolute: it climbs out of the repo`);
  for (const seg of path.split('/')) {
    if (seg === '..') throw new Error(`the path ${show} has a ".." segment: it climbs out of the repo`);
    if (seg === '' || seg === '.') throw new Error(`the path ${show} has an empty or "." segment`);
  }
  return path;
}

/** `dir/name`, or `name` for the root (''). */
export function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir.replace(/\/+$/, '')}/${name}`;
}

/** Parses a JSON file's bytes (a UTF-8 BOM tolerated); malformed JSON is an ArtifactError naming the file. */
export function parseJsonBytes(bytes: Uint8Array, file: string): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ArtifactError(file, 'is not UTF-8 text');
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new ArtifactError(file, `is not valid JSON (${(e as Error).message})`);
  }
}

/** File names inside an index folder (docs/index-format.md lists their layout). */
export const FILES = Object.freeze({
  meta: 'meta.json',
  docs: 'docs.parquet',
  chunks: 'chunks.parquet',
  embeddings: 'embeddings.npy',
  hnsw: 'hnsw.bin',
  sparseCdf: 'sparse_cdf.npy',
  denseCdf: 'dense_cdf.npy',
  queries: 'queries.parquet',
  qrels: 'qrels.parquet',
  indexConfig: 'index_config.json',
});

/** BM25 postings (`bm25: 'postings'`): the term list and the arrays of Bm25Data. */
export const BM25_FILES = Object.freeze({
  terms: 'bm25/terms.json',
  offsets: 'bm25/offsets.npy',
  docs: 'bm25/docs.npy',
  tfs: 'bm25/tfs.npy',
  docLengths: 'bm25/doc_lengths.npy',
});

/** The residual int8 quantization (Int8IndexData's arrays, one .npy each). */
export const INT8_FILES = Object.freeze({
  codes: 'embeddings.int8/codes.npy',
  scales: 'embeddings.int8/scales.npy',
  alphas: 'embeddings.int8/alphas.npy',
  assign: 'embeddings.int8/assign.npy',
  centroidCodes: 'embeddings.int8/centroid_codes.npy',
  centroidScales: 'embeddings.int8/centroid_scales.npy',
  levels: 'embeddings.int8/levels.npy',
});
