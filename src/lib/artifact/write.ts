/**
 * Writes a knowledge base as an artifact folder of format v1 (docs/index-format.md): parquet tables, .npy arrays,
 * the HNSW graph, and `meta.json` last, whose `files` table holds the size and SHA-256 of every other file. Pure:
 * returns the bytes; the CLI writes them to disk, the Build tab to the Hub or a download.
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { ExampleQuery } from '../retrieval/document.ts';
import type { MetaField } from '../data/kb-source.ts';
import type { CdfTable } from '../retrieval/calibrate.ts';
import { normalize } from '../retrieval/dense.ts';
import type { HnswIndexData } from '../retrieval/hnsw.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { Int8DenseIndex } from '../retrieval/quantized.ts';
import { sha256Hex } from '../checksum.ts';
import { kbCorpusHash } from '../models/corpus-embedder/corpus-hash.ts';
import {
  ARTIFACT_FORMAT_VERSION, BM25_FILES, FILES, INT8_FILES, parseIndexConfig, parseJsonBytes, parseMeta, safeRepoPath,
  type ArtifactMeta, type IndexConfig, type IndexEntry,
} from './format.ts';
import { writeNpy } from './npy.ts';
import { writeTable } from './parquet.ts';
import { ArtifactError, type ArtifactDense } from './types.ts';

/** How BM25 ships by default: postings restore faster than a rebuild (measured: docs/index-format.md). */
export const DEFAULT_BM25_STORAGE: ArtifactMeta['bm25'] = 'postings';

export interface ArtifactInput {
  id: string;
  title: string;
  description?: string;
  fields: MetaField[];
  examples?: ExampleQuery[];
  placeholder?: string;
  kb: KnowledgeBase;
  dense?: {
    /** Row-major items × dim; rows not of unit length are L2-normalised before writing. */
    vectors: Float32Array;
    dim: number;
    embedder: ArtifactDense['embedder'];
    cdf: CdfTable | null;
    /** Ship the int8 quantization (embeddings.int8/). Default false. */
    int8?: boolean;
    /** Ship embeddings.npy. Default true. */
    float32?: boolean;
    hnsw?: HnswIndexData | null;
  };
  queries?: BeirQuery[];
  qrels?: Qrels;
  /** ISO timestamp; default now. */
  created?: string;
  /** Ship BM25 postings or let readers rebuild; default {@link DEFAULT_BM25_STORAGE}. */
  bm25?: ArtifactMeta['bm25'];
}

export interface ArtifactFiles {
  entry: IndexEntry;
  meta: ArtifactMeta;
  /** Paths relative to the index folder, meta.json last. */
  files: Map<string, Uint8Array>;
}

/** A row this close to unit length is kept as it is (so vectors an embedder normalised keep their exact bits). */
const UNIT_TOLERANCE = 1e-6;

/** The vectors with every row of unit L2 norm (rows already within {@link UNIT_TOLERANCE} are copied unchanged). */
export function unitRows(vectors: Float32Array, dim: number): Float32Array {
  const out = vectors.slice();
  for (let i = 0; i < out.length / dim; i++) {
    const row = out.subarray(i * dim, (i + 1) * dim);
    let s = 0;
    for (const x of row) s += x * x;
    if (Math.abs(Math.sqrt(s) - 1) > UNIT_TOLERANCE) normalize(row);
  }
  return out;
}

const json = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

export async function writeArtifact(input: ArtifactInput): Promise<ArtifactFiles> {
  safeRepoPath(input.id);
  if (input.id.includes('/')) throw new Error(`writeArtifact: the id "${input.id}" must be one path segment`);
  const { kb } = input;
  const files = new Map<string, Uint8Array>();
  const created = input.created ?? new Date().toISOString();
  const n = kb.size;

  const docs = kb.docs;
  files.set(FILES.docs, writeTable([
    { name: 'doc_id', type: 'STRING', data: docs.map((d) => d.id) },
    { name: 'title', type: 'STRING', data: docs.map((d) => d.title) },
    { name: 'text', type: 'STRING', data: docs.map((d) => d.text) },
    { name: 'meta', type: 'STRING', data: docs.map((d) => (d.meta ? JSON.stringify(d.meta) : null)), nullable: true },
  ]));
  const chunkIds: string[] = [], docIds: string[] = [], texts: string[] = [];
  const chunkIndex = new Int32Array(n), start = new Int32Array(n), end = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    chunkIds.push(kb.itemId(i));
    docIds.push(kb.docOf(i).id);
    texts.push(kb.itemText(i));
    const s = kb.itemSpan(i);
    chunkIndex[i] = s.chunkIndex; start[i] = s.start; end[i] = s.end;
  }
  files.set(FILES.chunks, writeTable([
    { name: 'chunk_id', type: 'STRING', data: chunkIds },
    { name: 'doc_id', type: 'STRING', data: docIds },
    { name: 'chunk_index', type: 'INT32', data: chunkIndex },
    { name: 'char_start', type: 'INT32', data: start },
    { name: 'char_end', type: 'INT32', data: end },
    { name: 'text', type: 'STRING', data: texts },
  ]));

  const bm25 = kb.bm25.toData();
  const storage = input.bm25 ?? DEFAULT_BM25_STORAGE;
  if (storage === 'postings') {
    files.set(BM25_FILES.terms, json(bm25.terms));
    files.set(BM25_FILES.offsets, writeNpy(bm25.offsets));
    files.set(BM25_FILES.docs, writeNpy(bm25.docs));
    files.set(BM25_FILES.tfs, writeNpy(bm25.tfs));
    files.set(BM25_FILES.docLengths, writeNpy(bm25.docLengths));
  }

  let int8: ArtifactMeta['int8'] = null, hnsw: ArtifactMeta['hnsw'] = null;
  const dense = input.dense;
  if (dense) {
    const { dim } = dense;
    if (dense.embedder.dim !== dim) throw new Error(`writeArtifact: the embedder says ${dense.embedder.dim} dimensions, the vectors have ${dim}`);
    if (dense.vectors.length !== n * dim) throw new Error(`writeArtifact: ${dense.vectors.length} values are not ${n} items × ${dim}`);
    const vectors = unitRows(dense.vectors, dim);
    const float32 = dense.float32 ?? true;
    if (!float32 && !dense.int8) throw new Error('writeArtifact: dense vectors need embeddings.npy (float32) or the int8 files, or both');
    if (float32) files.set(FILES.embeddings, writeNpy(vectors, [n, dim]));
    if (dense.int8) {
      const q = new Int8DenseIndex(vectors, dim, 'cosine').toData();
      const K = q.centroidScales.length;
      files.set(INT8_FILES.codes, writeNpy(q.codes, [n, dim]));
      files.set(INT8_FILES.scales, writeNpy(q.scales));
      files.set(INT8_FILES.alphas, writeNpy(q.alphas));
      files.set(INT8_FILES.assign, writeNpy(q.assign));
      files.set(INT8_FILES.centroidCodes, writeNpy(q.centroidCodes, [K, dim]));
      files.set(INT8_FILES.centroidScales, writeNpy(q.centroidScales));
      files.set(INT8_FILES.levels, writeNpy(q.levels));
      int8 = { version: q.version, metric: q.metric, centroids: K };
    }
    if (dense.hnsw) {
      const h = dense.hnsw;
      if (h.dim !== dim || h.size !== n) throw new Error(`writeArtifact: the HNSW graph holds ${h.size} × ${h.dim}, the vectors ${n} × ${dim}`);
      files.set(FILES.hnsw, h.graph);
      hnsw = { version: h.version, metric: h.metric, M: h.M, ef_construction: h.efConstruction, ef_search: h.efSearch };
    }
    if (dense.cdf) files.set(FILES.denseCdf, writeNpy(dense.cdf.sorted));
  }
  if (kb.sparseCdf) files.set(FILES.sparseCdf, writeNpy(kb.sparseCdf.sorted));

  const judged = judgementFiles(input.queries, input.qrels);
  for (const [path, bytes] of judged.files) files.set(path, bytes);
  const qrelCount = judged.qrels;

  const table: ArtifactMeta['files'] = {};
  for (const [path, bytes] of files) table[path] = { bytes: bytes.byteLength, sha256: await sha256Hex(bytes) };
  const o = kb.options;
  const meta: ArtifactMeta = {
    format_version: ARTIFACT_FORMAT_VERSION,
    id: input.id,
    title: input.title,
    description: input.description ?? '',
    created,
    chunking: o.chunking === false ? false : { size: o.chunking.chunkSize, overlap: o.chunking.overlap, separators: [...o.chunking.separators] },
    index_title: o.indexTitle,
    tokenizer: { stem: bm25.analyzer.stem, remove_stop_words: bm25.analyzer.removeStopWords, stop_words: [...bm25.analyzer.stopWords] },
    bm25_params: { k1: bm25.params.k1, b: bm25.params.b },
    bm25: storage,
    cdf_queries: o.cdfQueries,
    seed: o.seed,
    counts: {
      documents: docs.length,
      chunks: n,
      ...(input.queries ? { queries: input.queries.length } : {}),
      ...(qrelCount !== undefined ? { qrels: qrelCount } : {}),
    },
    fields: input.fields,
    examples: input.examples ?? [],
    placeholder: input.placeholder ?? `Search ${input.title}`,
    embedder: dense ? dense.embedder : null,
    corpus_sha256: await kbCorpusHash(kb),
    int8,
    hnsw,
    sparse_cdf: kb.sparseCdf ? { count: kb.sparseCdf.count, queries: kb.sparseCdf.queries } : null,
    dense_cdf: dense?.cdf ? { count: dense.cdf.count, queries: dense.cdf.queries } : null,
    files: table,
  };
  parseMeta(JSON.parse(JSON.stringify(meta)), FILES.meta); // the writer never writes what its readers refuse
  files.set(FILES.meta, new TextEncoder().encode(`${JSON.stringify(meta, null, 1)}\n`));
  const entry: IndexEntry = {
    id: input.id,
    title: input.title,
    description: meta.description,
    path: input.id,
    counts: { documents: docs.length, chunks: n },
    embedder: dense ? dense.embedder.id : null,
    created,
    format_version: ARTIFACT_FORMAT_VERSION,
  };
  return { entry, meta, files };
}

/** queries.parquet and qrels.parquet of judged queries (each when given), and how many (query, document) pairs the qrels hold. */
export function judgementFiles(queries?: readonly BeirQuery[], qrels?: Qrels): { files: Map<string, Uint8Array>; qrels: number | undefined } {
  const files = new Map<string, Uint8Array>();
  if (queries) {
    files.set(FILES.queries, writeTable([
      { name: 'query_id', type: 'STRING', data: queries.map((q) => q.id) },
      { name: 'text', type: 'STRING', data: queries.map((q) => q.text) },
    ]));
  }
  if (!qrels) return { files, qrels: undefined };
  const q: string[] = [], d: string[] = [], s: number[] = [];
  for (const [qid, m] of qrels) for (const [did, score] of m) { q.push(qid); d.push(did); s.push(score); }
  files.set(FILES.qrels, writeTable([
    { name: 'query_id', type: 'STRING', data: q },
    { name: 'doc_id', type: 'STRING', data: d },
    { name: 'score', type: 'INT32', data: s },
  ]));
  return { files, qrels: q.length };
}

/**
 * An artifact's files with these judged queries instead of its own (a test set carried on Publish): queries.parquet
 * and qrels.parquet written, meta.json's file table and counts updated (and checked as its readers check it).
 */
export async function withJudgements(files: ReadonlyMap<string, Uint8Array>, queries: readonly BeirQuery[], qrels: Qrels): Promise<Map<string, Uint8Array>> {
  const metaBytes = files.get(FILES.meta);
  if (!metaBytes) throw new ArtifactError(FILES.meta, 'is missing');
  const meta = parseMeta(parseJsonBytes(metaBytes, FILES.meta), FILES.meta);
  const judged = judgementFiles(queries, qrels);
  const out = new Map(files);
  const table = { ...meta.files };
  for (const [path, bytes] of judged.files) {
    out.set(path, bytes);
    table[path] = { bytes: bytes.byteLength, sha256: await sha256Hex(bytes) };
  }
  const next = { ...meta, counts: { ...meta.counts, queries: queries.length, qrels: judged.qrels ?? 0 }, files: table };
  parseMeta(JSON.parse(JSON.stringify(next)), FILES.meta);
  out.set(FILES.meta, new TextEncoder().encode(`${JSON.stringify(next, null, 1)}\n`));
  return out;
}

/** The index list with `entry` added, or replacing the entry of the same id in its place. */
export function addToIndexConfig(config: IndexConfig | null, entry: IndexEntry): IndexConfig {
  const indexes = config ? [...config.indexes] : [];
  const at = indexes.findIndex((e) => e.id === entry.id);
  if (at >= 0) indexes[at] = entry;
  else indexes.push(entry);
  return parseIndexConfig({ format_version: ARTIFACT_FORMAT_VERSION, indexes }, FILES.indexConfig);
}

/** `index_config.json` as bytes (pretty-printed, newline-terminated). */
export function indexConfigBytes(config: IndexConfig): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(config, null, 1)}\n`);
}
