/**
 * Seed A's index layout (a notebook's output): `chunks.parquet` + `embeddings.npy` + its own `meta.json`, optionally
 * `docs.parquet`; `faiss.index` and `bm25.pkl` are ignored (RAG Lab builds its own vector index and rebuilds BM25
 * from the chunk text). Told apart from format v1 by the absence of `format_version` in meta.json. Read liberally:
 * the keys and column aliases below are what is understood (docs/index-format.md, "Seed-A interop"); there is no
 * checksum table, so the files are used as they are.
 */
import type { SourceDocument } from '../retrieval/document.ts';
import { DEFAULT_CHUNKING } from '../retrieval/chunk.ts';
import { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { MODEL_OPTIONS, prefixesFor } from '../models/registry.ts';
import { FILES, MAX_DIM, joinPath, type IndexEntry } from './format.ts';
import { parseNpy } from './npy.ts';
import { indexColumn, readTable, stringColumn, type Table } from './parquet.ts';
import { itemsOf } from './chunk-items.ts';
import { VerifiedReader, type OpenArtifactOptions } from './verified-reader.ts';
import { ArtifactError, type ArtifactDense, type FileSource, type OpenedArtifact } from './types.ts';
import { unitRows } from './write.ts';
import { screenVectors } from '../retrieval/vector-check.ts';

/** meta.json keys read, first present wins. */
export const SEED_A_META_KEYS = Object.freeze({
  model: ['embedding_model', 'model_name', 'model', 'embedder', 'embed_model', 'encoder'],
  dim: ['embedding_dim', 'dim', 'dims', 'dimension', 'dimensions'],
  chunkSize: ['chunk_size', 'chunkSize'],
  chunkOverlap: ['chunk_overlap', 'overlap', 'chunkOverlap'],
  pooling: ['pooling'],
  dtype: ['dtype'],
  queryPrefix: ['query_prefix'],
  passagePrefix: ['passage_prefix', 'document_prefix'],
  id: ['id', 'name', 'index_name'],
  title: ['title', 'name'],
  description: ['description'],
  created: ['created', 'created_at'],
  chunks: ['num_chunks', 'n_chunks', 'chunk_count'],
  documents: ['num_docs', 'n_docs', 'num_documents'],
});

/** Column aliases of seed A's tables, first present wins. */
export const SEED_A_COLUMNS = Object.freeze({
  chunkId: ['chunk_id', 'id', '_id'],
  docId: ['doc_id', 'source', 'document_id', 'doc', 'source_id'],
  text: ['text', 'chunk', 'content', 'chunk_text', 'page_content'],
  title: ['title', 'doc_title'],
  chunkIndex: ['chunk_index', 'chunk_idx'],
  start: ['char_start', 'start_char', 'start'],
  end: ['char_end', 'end_char', 'end'],
});
export const SEED_A_DOC_COLUMNS = Object.freeze({
  docId: ['doc_id', 'id', '_id', 'document_id', 'source'],
  title: ['title'],
  text: ['text', 'content', 'body'],
});

const IGNORED = ['faiss.index', 'bm25.pkl'];

/** A meta.json that is not ours: an object without `format_version`. */
export function isSeedAMeta(json: unknown): json is Record<string, unknown> {
  return json !== null && typeof json === 'object' && !Array.isArray(json) && !('format_version' in json);
}

function pick(json: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (json[k] !== undefined && json[k] !== null) return json[k];
  return undefined;
}

function str(json: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const x = pick(json, keys);
  if (typeof x === 'string') return x;
  if (x && typeof x === 'object') {
    const inner = (x as Record<string, unknown>).name ?? (x as Record<string, unknown>).id;
    if (typeof inner === 'string') return inner;
  }
  return undefined;
}

function int(json: Record<string, unknown>, keys: readonly string[]): number | undefined {
  const x = pick(json, keys);
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : undefined;
}

/** A seed-A model name as a RAG Lab embedder id: a registry model of the same name (`sentence-transformers/all-MiniLM-L6-v2` → `Xenova/all-MiniLM-L6-v2`), else the name. */
export function seedAModelId(name: string): string {
  const base = name.split('/').pop()!.toLowerCase();
  return MODEL_OPTIONS.embedder.find((m) => m.id.split('/').pop()!.toLowerCase() === base)?.id ?? name;
}

function folderName(label: string): string {
  return label.replace(/[/\\]+$/, '').split(/[/\\:]/).pop() || 'seed-a';
}

/** The index list entry of a seed-A folder at the root (counts from meta.json when it has them, else 0). */
export function seedAEntry(json: Record<string, unknown>, source: FileSource): IndexEntry {
  const id = str(json, SEED_A_META_KEYS.id) ?? folderName(source.label);
  const created = str(json, SEED_A_META_KEYS.created);
  const model = str(json, SEED_A_META_KEYS.model);
  return {
    id,
    title: str(json, SEED_A_META_KEYS.title) ?? id,
    description: str(json, SEED_A_META_KEYS.description) ?? 'An index in seed A’s layout',
    path: '',
    counts: { documents: int(json, SEED_A_META_KEYS.documents) ?? 0, chunks: int(json, SEED_A_META_KEYS.chunks) ?? 0 },
    embedder: model ? seedAModelId(model) : null,
    created: created && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : new Date(0).toISOString(),
    format_version: 1,
  };
}

function column(t: Table, aliases: readonly string[], role: string, file: string, required: boolean): string | null {
  const found = aliases.find((a) => t.names.includes(a));
  if (!found && required) {
    throw new ArtifactError(file, `has no ${role} column: expected one of ${aliases.map((a) => `"${a}"`).join(', ')} (it has ${t.names.map((a) => `"${a}"`).join(', ')})`);
  }
  return found ?? null;
}

const allAliases = (o: Readonly<Record<string, readonly string[]>>) => Object.values(o).flat();

async function readSeedDocs(r: VerifiedReader, bytes: Uint8Array): Promise<SourceDocument[]> {
  const file = r.path(FILES.docs);
  const probe = await readTable(bytes, file, [], allAliases(SEED_A_DOC_COLUMNS));
  const idCol = column(probe, SEED_A_DOC_COLUMNS.docId, 'document id', file, true)!;
  const textCol = column(probe, SEED_A_DOC_COLUMNS.text, 'text', file, true)!;
  const titleCol = column(probe, SEED_A_DOC_COLUMNS.title, 'title', file, false);
  const ids = stringColumn(probe, idCol, file), texts = stringColumn(probe, textCol, file, { nullable: true });
  const titles = titleCol ? stringColumn(probe, titleCol, file, { nullable: true }) : null;
  const seen = new Set<string>();
  return ids.map((id, i) => {
    if (seen.has(id!)) throw new ArtifactError(file, `row ${i}: document id "${id}" repeats`);
    seen.add(id!);
    return { id: id!, title: titles?.[i] ?? '', text: texts[i] ?? '' };
  });
}

/** Opens a seed-A folder at `dir`; `json` is its meta.json. */
export async function openSeedA(source: FileSource, dir: string, json: Record<string, unknown>, opts: OpenArtifactOptions = {}): Promise<OpenedArtifact> {
  const r = new VerifiedReader(source, dir, null, opts);
  const notes: string[] = ['This is a seed-A index: its files carry no checksums, so their integrity could not be verified.'];
  const listed = source.list ? await source.list(dir).catch(() => null) : null;
  const ignored = listed ? IGNORED.filter((f) => listed.includes(joinPath(dir, f))) : IGNORED;
  if (ignored.length > 0) {
    notes.push(`${ignored.join(' and ')}${listed ? '' : ' (if present)'} ignored: RAG Lab builds its own vector index and rebuilds BM25 from the chunk text.`);
  } else notes.push('BM25 was rebuilt from the chunk text.');

  const docsBytes = await r.read(FILES.docs, true);
  const file = r.path(FILES.chunks);
  const t = await readTable((await r.read(FILES.chunks))!, file, [], allAliases(SEED_A_COLUMNS));
  const textCol = column(t, SEED_A_COLUMNS.text, 'chunk text', file, true)!;
  const docCol = column(t, SEED_A_COLUMNS.docId, 'document id', file, true)!;
  const idCol = column(t, SEED_A_COLUMNS.chunkId, 'chunk id', file, false);
  const titleCol = column(t, SEED_A_COLUMNS.title, 'title', file, false);
  const kCol = column(t, SEED_A_COLUMNS.chunkIndex, 'chunk index', file, false);
  const sCol = column(t, SEED_A_COLUMNS.start, 'start', file, false), eCol = column(t, SEED_A_COLUMNS.end, 'end', file, false);
  const texts = stringColumn(t, textCol, file) as string[];
  const docIds = stringColumn(t, docCol, file) as string[];

  let docs: SourceDocument[];
  if (docsBytes) docs = await readSeedDocs(r, docsBytes);
  else {
    notes.push('No docs.parquet: documents were made from the chunks’ document ids (no full text).');
    const titles = titleCol ? stringColumn(t, titleCol, file, { nullable: true }) : null;
    const byId = new Map<string, SourceDocument>();
    docIds.forEach((id, i) => { if (!byId.has(id)) byId.set(id, { id, title: titles?.[i] ?? '', text: '' }); });
    docs = [...byId.values()];
  }
  const kIdx = kCol ? indexColumn(t, kCol, file) : null;
  const ids = idCol ? (stringColumn(t, idCol, file) as string[]) : docIds.map((d, i) => `${d}#${kIdx ? kIdx[i] : i}`);
  const items = itemsOf(docs, {
    ids, docIds, texts, chunkIndex: kIdx,
    start: sCol && eCol ? indexColumn(t, sCol, file) : null,
    end: sCol && eCol ? indexColumn(t, eCol, file) : null,
  }, file, true, false);
  if (!idCol) delete items.ids; // made-up ids are the derived ones

  const size = int(json, SEED_A_META_KEYS.chunkSize), overlap = int(json, SEED_A_META_KEYS.chunkOverlap);
  const chunking = size && size > 0 ? { ...DEFAULT_CHUNKING, chunkSize: size, overlap: overlap !== undefined && overlap < size ? overlap : 0 } : { ...DEFAULT_CHUNKING };
  const kb = KnowledgeBase.fromItems(docs, items, { chunking });
  const metaChunks = int(json, SEED_A_META_KEYS.chunks);
  if (metaChunks !== undefined && metaChunks !== kb.size) notes.push(`meta.json says ${metaChunks} chunks, chunks.parquet has ${kb.size}; the file's rows were used.`);

  const dense = await readSeedDense(r, json, kb.size, opts, notes);
  const entry = seedAEntry(json, source);
  return {
    id: entry.id,
    descriptor: { id: entry.id, title: entry.title, description: entry.description, fields: [], examples: [], placeholder: `Search ${entry.title}`, source: { kind: 'folder', path: source.label } },
    kb, dense, corpusHash: null, queries: null, qrels: null, notes, bytes: r.bytes,
  };
}

async function readSeedDense(r: VerifiedReader, json: Record<string, unknown>, n: number, opts: OpenArtifactOptions, notes: string[]): Promise<ArtifactDense | null> {
  if (opts.dense === 'none') return null;
  const model = str(json, SEED_A_META_KEYS.model);
  const bytes = await r.read(FILES.embeddings, true);
  if (!bytes) {
    notes.push('No embeddings.npy: dense search is off.');
    return null;
  }
  if (!model) {
    notes.push(`meta.json names no embedding model (read keys: ${SEED_A_META_KEYS.model.join(', ')}): the vectors cannot be matched to a model, dense search is off.`);
    return null;
  }
  const path = r.path(FILES.embeddings);
  const a = parseNpy(bytes, path);
  if (a.shape.length !== 2 || (a.dtype !== '<f4' && a.dtype !== '<f8')) {
    throw new ArtifactError(path, `expected a 2-D float32 array (chunks × dim), found ${a.dtype} of shape (${a.shape.join(', ')})`);
  }
  const [rows, dim] = a.shape as [number, number];
  if (rows !== n) throw new ArtifactError(path, `has ${rows} vectors for ${n} chunks in chunks.parquet: the files do not belong together`);
  if (dim < 1 || dim > MAX_DIM) throw new ArtifactError(path, `has ${dim}-dimensional vectors (at most ${MAX_DIM} are read)`);
  const metaDim = int(json, SEED_A_META_KEYS.dim);
  if (metaDim !== undefined && metaDim !== dim) throw new ArtifactError(path, `holds ${dim}-dimensional vectors, meta.json says ${metaDim}: the files do not belong together`);
  const screened = screenVectors(path, a.data instanceof Float32Array ? a.data : Float32Array.from(a.data), dim, notes);
  if (!screened) return null;
  const vectors = unitRows(screened.values, dim);
  const id = seedAModelId(model);
  if (id !== model) notes.push(`Seed A's model ${model} is RAG Lab's ${id}.`);
  const defaults = prefixesFor(id);
  const dtype = str(json, SEED_A_META_KEYS.dtype) ?? 'fp32';
  notes.push('The dense corpus-CDF table is not part of seed A: calibrated hybrid modes use it once computed.');
  return {
    embedder: {
      id, dtype, dim,
      pooling: str(json, SEED_A_META_KEYS.pooling) === 'cls' ? 'cls' : 'mean',
      normalized: true,
      prefixes: { query: str(json, SEED_A_META_KEYS.queryPrefix) ?? defaults.query, passage: str(json, SEED_A_META_KEYS.passagePrefix) ?? defaults.passage },
    },
    vectors, int8: null, hnsw: null, cdf: null, skip: screened.skip,
  };
}
