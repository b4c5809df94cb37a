/**
 * Opens artifacts of format v1 (docs/index-format.md) from any {@link FileSource}: lists the indexes of a repo,
 * reads an index's meta.json, then every file it needs, checking each file's size and SHA-256 against meta.json
 * itself (whatever the source checked), and builds the knowledge base, the dense side, queries and qrels. A folder
 * in seed A's layout is recognised and opened by `seed-a.ts`.
 */
import * as v from 'valibot';
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import type { KbDescriptor } from '../data/kb-source.ts';
import { examplesOf } from '../data/examples.ts';
import type { Bm25Data } from '../retrieval/bm25.ts';
import type { CdfTable } from '../retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../retrieval/chunk.ts';
import type { HnswIndexData } from '../retrieval/hnsw.ts';
import { KnowledgeBase, type KbItems, type KbOptions } from '../retrieval/knowledge-base.ts';
import { Int8DenseIndex, type Int8IndexData } from '../retrieval/quantized.ts';
import {
  BM25_FILES, FILES, INT8_FILES, joinPath, parseIndexConfig, parseJsonBytes, parseMeta,
  type ArtifactMeta, type IndexEntry,
} from './format.ts';
import { parseNpy } from './npy.ts';
import { indexColumn, readTable, stringColumn } from './parquet.ts';
import { itemsOf } from './chunk-items.ts';
import { isSeedAMeta, openSeedA, seedAEntry } from './seed-a.ts';
import { flagNonFinite, rowList, screenVectors, zeroRows } from '../retrieval/vector-check.ts';
import { checkNpy, VerifiedReader, type OpenArtifactOptions } from './verified-reader.ts';
import { ArtifactError, type ArtifactDense, type FileSource, type OpenedArtifact } from './types.ts';

export type { OpenArtifactOptions } from './verified-reader.ts';

/**
 * The indexes a source holds: `index_config.json`'s list; without one, a folder with a meta.json (ours or seed
 * A's) is one index at path ''.
 */
export async function listIndexes(source: FileSource, opts: { signal?: AbortSignal } = {}): Promise<IndexEntry[]> {
  const cfg = await source.read(FILES.indexConfig, opts);
  if (cfg) return parseIndexConfig(parseJsonBytes(cfg, FILES.indexConfig), FILES.indexConfig).indexes;
  const metaBytes = await source.read(FILES.meta, opts);
  if (!metaBytes) {
    throw new ArtifactError(FILES.indexConfig, `${source.label} has neither index_config.json nor meta.json: it is not a RAG Lab index repo or folder`);
  }
  const json = parseJsonBytes(metaBytes, FILES.meta);
  if (isSeedAMeta(json)) return [seedAEntry(json, source)];
  const m = parseMeta(json, FILES.meta);
  return [{
    id: m.id, title: m.title, description: m.description, path: '', counts: { documents: m.counts.documents, chunks: m.counts.chunks },
    embedder: m.embedder?.id ?? null, created: m.created, format_version: m.format_version,
  }];
}

const DocMeta = v.record(v.string(), v.union([v.string(), v.number()]));

/** Documents from docs.parquet (doc_id, title, text, meta as a JSON string or null). */
async function readDocs(r: VerifiedReader, expected: number): Promise<SourceDocument[]> {
  const file = r.path(FILES.docs);
  const t = await readTable((await r.read(FILES.docs))!, file, ['doc_id', 'title', 'text'], ['meta']);
  if (t.rows !== expected) throw new ArtifactError(file, `has ${t.rows} documents, meta.json says ${expected}: rebuild the index`);
  const ids = stringColumn(t, 'doc_id', file), titles = stringColumn(t, 'title', file, { nullable: true }), texts = stringColumn(t, 'text', file);
  const metas = t.cols.has('meta') ? stringColumn(t, 'meta', file, { nullable: true }) : null;
  const seen = new Set<string>();
  return ids.map((id, i) => {
    if (seen.has(id!)) throw new ArtifactError(file, `row ${i}: doc_id "${id}" repeats`);
    seen.add(id!);
    const doc: SourceDocument = { id: id!, title: titles[i] ?? '', text: texts[i]! };
    const m = metas?.[i];
    if (m !== null && m !== undefined && m !== '') {
      let parsed: unknown;
      try { parsed = JSON.parse(m); } catch { throw new ArtifactError(file, `row ${i}: column "meta" is not JSON`); }
      const ok = v.safeParse(DocMeta, parsed);
      if (!ok.success) throw new ArtifactError(file, `row ${i}: column "meta" must be an object of strings and numbers`);
      doc.meta = ok.output;
    }
    return doc;
  });
}

async function readChunks(r: VerifiedReader, docs: readonly SourceDocument[], expected: number, chunked: boolean): Promise<KbItems> {
  const file = r.path(FILES.chunks);
  const t = await readTable((await r.read(FILES.chunks))!, file, ['chunk_id', 'doc_id', 'chunk_index', 'char_start', 'char_end', 'text']);
  if (t.rows !== expected) throw new ArtifactError(file, `has ${t.rows} chunks, meta.json says ${expected}: rebuild the index`);
  return itemsOf(docs, {
    ids: stringColumn(t, 'chunk_id', file) as string[],
    docIds: stringColumn(t, 'doc_id', file) as string[],
    texts: stringColumn(t, 'text', file) as string[],
    chunkIndex: indexColumn(t, 'chunk_index', file),
    start: indexColumn(t, 'char_start', file),
    end: indexColumn(t, 'char_end', file),
  }, file, chunked, true);
}

async function readPostings(r: VerifiedReader, meta: ArtifactMeta): Promise<Bm25Data> {
  const n = meta.counts.chunks;
  const termsFile = r.path(BM25_FILES.terms);
  const terms = parseJsonBytes((await r.read(BM25_FILES.terms))!, termsFile);
  if (!Array.isArray(terms) || !terms.every((t) => typeof t === 'string')) throw new ArtifactError(termsFile, 'expected a JSON array of strings');
  const offsets = (await r.npy(BM25_FILES.offsets, ['<u4'], [terms.length + 1])).data as Uint32Array;
  const docs = (await r.npy(BM25_FILES.docs, ['<u4'], [null])).data as Uint32Array;
  const tfs = (await r.npy(BM25_FILES.tfs, ['<u2'], [docs.length])).data as Uint16Array;
  const docLengths = (await r.npy(BM25_FILES.docLengths, ['<u4'], [n])).data as Uint32Array;
  if (offsets[0] !== 0 || offsets[terms.length] !== docs.length) throw new ArtifactError(r.path(BM25_FILES.offsets), 'does not span the postings: rebuild the index');
  for (let t = 0; t < terms.length; t++) {
    if (offsets[t + 1]! < offsets[t]!) throw new ArtifactError(r.path(BM25_FILES.offsets), `decreases at term ${t}: rebuild the index`);
  }
  for (let i = 0; i < docs.length; i++) {
    if (docs[i]! >= n) throw new ArtifactError(r.path(BM25_FILES.docs), `names chunk ${docs[i]} of ${n}: rebuild the index`);
  }
  return {
    version: 1,
    params: { k1: meta.bm25_params.k1, b: meta.bm25_params.b },
    analyzer: { stem: meta.tokenizer.stem, removeStopWords: meta.tokenizer.remove_stop_words, stopWords: meta.tokenizer.stop_words },
    terms: terms as string[],
    offsets, docs, tfs, docLengths,
  };
}

async function readCdf(r: VerifiedReader, name: string, info: { count: number; queries: number } | null | undefined): Promise<CdfTable | null> {
  if (!info || !r.has(name)) return null;
  const sorted = (await r.npy(name, ['<f8'], [null])).data as Float64Array;
  for (let i = 1; i < sorted.length; i++) {
    if (!(sorted[i]! >= sorted[i - 1]!)) throw new ArtifactError(r.path(name), 'is not sorted: rebuild the index');
  }
  return { sorted, count: info.count, queries: info.queries };
}

/** The options a knowledge base of this meta.json was built with. */
export function kbOptionsOf(meta: ArtifactMeta): KbOptions {
  return {
    chunking: meta.chunking === false ? false
      : { chunkSize: meta.chunking.size, overlap: meta.chunking.overlap, separators: meta.chunking.separators ?? [...DEFAULT_CHUNKING.separators] },
    bm25: { k1: meta.bm25_params.k1, b: meta.bm25_params.b },
    indexTitle: meta.index_title,
    cdfQueries: meta.cdf_queries,
    seed: meta.seed,
  };
}

async function readInt8(r: VerifiedReader, meta: ArtifactMeta, dim: number): Promise<Int8IndexData> {
  const n = meta.counts.chunks;
  const info = meta.int8!;
  const K = info.centroids;
  const data: Int8IndexData = {
    kind: 'int8',
    version: info.version,
    dim,
    size: n,
    metric: info.metric,
    codes: (await r.npy(INT8_FILES.codes, ['|i1'], [n, dim])).data as Int8Array,
    scales: (await r.npy(INT8_FILES.scales, ['<f4'], [n])).data as Float32Array,
    alphas: (await r.npy(INT8_FILES.alphas, ['<f4'], [n])).data as Float32Array,
    assign: (await r.npy(INT8_FILES.assign, ['|u1'], [n])).data as Uint8Array,
    centroidCodes: (await r.npy(INT8_FILES.centroidCodes, ['|i1'], [K, dim])).data as Int8Array,
    centroidScales: (await r.npy(INT8_FILES.centroidScales, ['<f4'], [K])).data as Float32Array,
    levels: (await r.npy(INT8_FILES.levels, ['<f4'], [256])).data as Float32Array,
  };
  try {
    Int8DenseIndex.fromData(data);
  } catch (e) {
    throw new ArtifactError(r.path('embeddings.int8/'), `the quantized vectors do not fit together (${(e as Error).message}): rebuild the index`);
  }
  return data;
}

async function readQueries(r: VerifiedReader, meta: ArtifactMeta): Promise<{ queries: BeirQuery[] | null; qrels: Qrels | null }> {
  let queries: BeirQuery[] | null = null, qrels: Qrels | null = null;
  if (r.has(FILES.queries)) {
    const file = r.path(FILES.queries);
    const t = await readTable((await r.read(FILES.queries))!, file, ['query_id', 'text']);
    if (meta.counts.queries !== undefined && t.rows !== meta.counts.queries) throw new ArtifactError(file, `has ${t.rows} queries, meta.json says ${meta.counts.queries}`);
    const ids = stringColumn(t, 'query_id', file), texts = stringColumn(t, 'text', file);
    queries = ids.map((id, i) => ({ id: id!, text: texts[i]! }));
  }
  if (r.has(FILES.qrels)) {
    const file = r.path(FILES.qrels);
    const t = await readTable((await r.read(FILES.qrels))!, file, ['query_id', 'doc_id', 'score']);
    if (meta.counts.qrels !== undefined && t.rows !== meta.counts.qrels) throw new ArtifactError(file, `has ${t.rows} judgements, meta.json says ${meta.counts.qrels}`);
    const q = stringColumn(t, 'query_id', file), d = stringColumn(t, 'doc_id', file), s = t.cols.get('score')!;
    qrels = new Map();
    for (let i = 0; i < t.rows; i++) {
      const score = s[i];
      if (typeof score !== 'number' || !Number.isInteger(score)) throw new ArtifactError(file, `row ${i}: score is not an integer`);
      let m = qrels.get(q[i]!);
      if (!m) qrels.set(q[i]!, (m = new Map()));
      m.set(d[i]!, score);
    }
  }
  return { queries, qrels };
}

/** The artifact's descriptor; an example's unknown mode is dropped with a note (data/examples.ts). */
function descriptorOf(meta: Pick<ArtifactMeta, 'id' | 'title' | 'description' | 'fields' | 'examples' | 'placeholder'>, source: FileSource, notes: string[]): KbDescriptor {
  const { examples, notes: exampleNotes } = examplesOf(meta.examples, 'meta.json');
  notes.push(...exampleNotes);
  return {
    id: meta.id, title: meta.title, description: meta.description, fields: meta.fields, examples,
    placeholder: meta.placeholder, source: { kind: 'folder', path: source.label },
  };
}

/** Opens the index in folder `path` ('' = the root) of `source`. */
export async function openArtifact(source: FileSource, path: string, opts: OpenArtifactOptions = {}): Promise<OpenedArtifact> {
  const metaPath = joinPath(path, FILES.meta);
  const metaBytes = await source.read(metaPath, opts.signal ? { signal: opts.signal } : {});
  if (!metaBytes) throw new ArtifactError(metaPath, `is missing from ${source.label}: no index at "${path || '/'}"; pick one listed in index_config.json`);
  const json = parseJsonBytes(metaBytes, metaPath);
  if (isSeedAMeta(json)) return openSeedA(source, path, json, opts);
  const meta = parseMeta(json, metaPath);
  const r = new VerifiedReader(source, path, meta.files, opts);
  r.bytes[metaPath] = metaBytes.byteLength;
  const notes: string[] = [];

  const docs = await readDocs(r, meta.counts.documents);
  opts.signal?.throwIfAborted();
  const items = await readChunks(r, docs, meta.counts.chunks, meta.chunking !== false);
  opts.signal?.throwIfAborted();
  const options = kbOptionsOf(meta);
  const analyzer = { stem: meta.tokenizer.stem, removeStopWords: meta.tokenizer.remove_stop_words, stopWords: new Set(meta.tokenizer.stop_words) };
  const bm25 = meta.bm25 === 'postings' ? await readPostings(r, meta) : undefined;
  if (!bm25) notes.push('BM25 was rebuilt from the chunk text (the index ships no postings).');
  const sparseCdf = await readCdf(r, FILES.sparseCdf, meta.sparse_cdf);
  let kb: KnowledgeBase;
  try {
    kb = KnowledgeBase.fromItems(docs, items, options, { ...(bm25 ? { bm25 } : {}), ...(sparseCdf ? { sparseCdf } : {}), analyzer });
  } catch (e) {
    throw new ArtifactError(r.path(bm25 ? 'bm25/' : FILES.chunks), `${(e as Error).message}: rebuild the index`);
  }

  opts.signal?.throwIfAborted();
  const dense = await readDense(r, meta, opts, notes);
  const { queries, qrels } = await readQueries(r, meta);
  return { id: meta.id, descriptor: descriptorOf(meta, source, notes), kb, dense, corpusHash: meta.corpus_sha256 ?? null, queries, qrels, notes, bytes: r.bytes };
}

async function readDense(r: VerifiedReader, meta: ArtifactMeta, opts: OpenArtifactOptions, notes: string[]): Promise<ArtifactDense | null> {
  const want = opts.dense ?? 'auto';
  const e = meta.embedder;
  if (want === 'none' || !e) return null;
  const n = meta.counts.chunks;
  const hasInt8 = Boolean(meta.int8) && r.has(INT8_FILES.codes);
  const hasFloat = r.has(FILES.embeddings);
  const kind = want === 'auto' ? (hasInt8 ? 'int8' : hasFloat ? 'float32' : null) : want;
  if (kind === null) {
    notes.push('The index names an embedder but ships no vectors: dense search is off.');
    return null;
  }
  if (kind === 'int8' && !hasInt8) throw new ArtifactError(r.path(INT8_FILES.codes), 'is not part of this index (it ships float32 vectors only): open it with dense "float32" or "auto"');
  if (kind === 'float32' && !hasFloat) throw new ArtifactError(r.path(FILES.embeddings), 'is not part of this index (it ships int8 vectors only): open it with dense "int8" or "auto"');
  let vectors: Float32Array | null = null;
  let skip: Uint8Array | null = null;
  if (kind === 'float32') {
    const path = r.path(FILES.embeddings);
    const a = parseNpy((await r.read(FILES.embeddings))!, path);
    if (a.shape.length === 2 && a.shape[0] === n && a.shape[1] !== e.dim) {
      throw new ArtifactError(path, `holds ${a.shape[1]}-dimensional vectors, but meta.json's embedder ${e.id} has ${e.dim}: the index is inconsistent; rebuild it`);
    }
    checkNpy(a, path, ['<f4'], [n, e.dim]);
    vectors = a.data as Float32Array;
    const screened = screenVectors(path, vectors, e.dim, notes, { unit: true });
    if (!screened) return null;
    ({ skip, values: vectors } = screened);
  }
  let int8 = kind === 'int8' ? await readInt8(r, meta, e.dim) : null;
  if (int8) {
    const screened = screenInt8(r, int8, notes);
    if (!screened) return null;
    skip = screened.skip;
    int8 = screened.data;
  }
  let hnsw: HnswIndexData | null = null;
  if (opts.hnsw && meta.hnsw && r.has(FILES.hnsw)) {
    const h = meta.hnsw;
    hnsw = { kind: 'hnsw', version: h.version, dim: e.dim, size: n, metric: h.metric, M: h.M, efConstruction: h.ef_construction, efSearch: h.ef_search, graph: (await r.read(FILES.hnsw))! };
  }
  const cdf = await readCdf(r, FILES.denseCdf, meta.dense_cdf);
  return { embedder: e, vectors, int8, hnsw, cdf, skip };
}

/**
 * The int8 side's floats checked (codes are integers): a non-finite level or centroid scale spoils every row, so
 * dense is off; rows whose scale or alpha is not finite are zeroed and left out (as for float32 rows).
 */
function screenInt8(r: VerifiedReader, data: Int8IndexData, notes: string[]): { data: Int8IndexData; skip: Uint8Array | null } | null {
  const dir = r.path('embeddings.int8/');
  if (flagNonFinite(data.levels, null) || flagNonFinite(data.centroidScales, null)) {
    notes.push(`${dir}: levels.npy or centroid_scales.npy holds NaN or infinite values; dense search is off for this knowledge base (BM25 still works).`);
    return null;
  }
  const bad = flagNonFinite(data.alphas, flagNonFinite(data.scales, null));
  if (!bad) return { data, skip: null };
  const count = bad.reduce((a, b) => a + b, 0);
  const fmt = (x: number) => x.toLocaleString('en-US');
  if (count > data.size / 2) {
    notes.push(`${dir}: ${fmt(count)} of ${fmt(data.size)} rows hold NaN or infinite scales; dense search is off for this knowledge base (BM25 still works).`);
    return null;
  }
  const scales = data.scales.slice(), alphas = data.alphas.slice();
  zeroRows(scales, 1, bad);
  zeroRows(alphas, 1, bad);
  notes.push(`${dir}: ${fmt(count)} of ${fmt(data.size)} rows hold NaN or infinite scales: ${rowList(bad)}; dense search leaves those chunks out.`);
  return { data: { ...data, scales, alphas }, skip: bad };
}
