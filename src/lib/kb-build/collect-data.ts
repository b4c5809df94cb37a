/**
 * The first stage of a CLI build (`rag-lab build-index --data`, `rag-lab train-embedder --data`): collecting the
 * documents of a BEIR folder, a RAGBench subset (a .jsonl / .parquet file, or a folder of them for one subset), a
 * folder of PDF / TXT / MD / HTML files, or a built knowledge base (.zip or artifact folder, built again), told apart by
 * what the path holds; or of an arXiv query (web pages: `collect-web.ts`). The files are read through {@link DataFiles} (the CLI's node:fs side);
 * the parsers are the pure ones in src/lib/data/ and src/lib/ingest/, as in the Build tab. A fault the user can fix
 * is a {@link BuildError} in words.
 */
import { listIndexes, openArtifact } from '../artifact/read.ts';
import { ArtifactError, type FileSource } from '../artifact/types.ts';
import { ARXIV_API, ArxivError, arxivDocuments, type ArxivOptions, type ArxivRequest } from '../data/arxiv.ts';
import { DataError, parseCorpus, parseQrels, parseQueries, type BeirQuery, type Qrels } from '../data/beir.ts';
import type { ExampleQuery, SourceDocument } from '../retrieval/document.ts';
import type { MetaField } from '../data/kb-source.ts';
import { RagbenchError, type RagbenchRow } from '../data/ragbench.ts';
import { parseRagbenchFile } from '../data/ragbench-files.ts';
import { poolDocuments } from '../data/ragbench-kb.ts';
import type { InputFile, SkippedItem } from '../data/source-documents.ts';
import { extractDocuments } from '../ingest/extract.ts';
import { fileFormatOf } from '../ingest/formats.ts';
import { sizeLimitReason } from '../ingest/limits.ts';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../retrieval/chunk.ts';
import { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { summariseList } from '../util/summarise-list.ts';
import { BuildError } from './build-kb.ts';
import type { TrainedModel, TrainOptions } from '../models/corpus-embedder/train.ts';
import { kbTrainingTexts } from '../models/corpus-embedder/corpus-hash.ts';
import { trainOnTexts } from './train-embedder.ts';

import { DATA_KIND_NAMES, type DataKind } from './build-sources.ts';

/** The kinds of data the CLI reads and their names in words: the sources of BUILD_SOURCES with `cli` (build-sources.ts). */
export { DATA_KIND_NAMES, type DataKind };

export interface BuildData {
  kind: DataKind;
  /** What was found, for stderr: "BEIR folder /data/scifact (5183 documents, 300 queries, qrels/test.tsv)". */
  summary: string;
  /** A default index id from the data's name (folder or subset). */
  id: string;
  docs: SourceDocument[];
  fields: MetaField[];
  queries: BeirQuery[] | null;
  qrels: Qrels | null;
  notes: string[];
  /** Defaults an artifact given as --data carries: its title and its chunking (flags override them). */
  title?: string;
  chunking?: ChunkOptions | false;
  /** First queries the knowledge base suggests (arXiv: the query when it is plain words; a web search: its query). */
  examples?: ExampleQuery[];
  /** A default description (arXiv, web pages: the query and the papers or pages found). */
  description?: string;
}

/** The files `--data` names, as the CLI reads them (node:fs); paths are the platform's. Faults reading are thrown as the CLI words them. */
export interface DataFiles {
  resolve(path: string): string;
  join(...parts: string[]): string;
  basename(path: string): string;
  exists(path: string): boolean;
  isFile(path: string): boolean;
  size(path: string): number;
  /** UTF-8 text, without a byte-order mark. */
  readText(path: string): string;
  readBytes(path: string): Uint8Array;
  /** Regular files under `dir` (relative paths, sorted, links followed) and what was passed over and why ("a/pipe (a FIFO (named pipe))"). */
  walk(dir: string): { rels: string[]; passed: string[] };
  /** A built knowledge base as a FileSource: a .zip (`zip`) or an artifact folder. */
  artifactSource(abs: string, zip: boolean): FileSource;
}

const RAGBENCH_FILE = /\.(jsonl|ndjson|parquet)$/i;

/** An index id from a name: lower case, runs of other characters as '-'. */
export function idOf(name: string): string {
  const id = name.toLowerCase().replace(/\.[a-z0-9]+$/, '').replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return id || 'index';
}

/** The chunking a knowledge base built from `data` gets unless a flag says otherwise: its own (an artifact's), whole documents for BEIR, else the default chunks. */
export function dataChunking(data: Pick<BuildData, 'kind' | 'chunking'>): ChunkOptions | false {
  return data.chunking ?? (data.kind === 'beir' ? false : DEFAULT_CHUNKING);
}

/**
 * What collected data (`collectData`) trains on: the items of the knowledge base build-index makes of it (whole
 * BEIR documents, an artifact's own chunking, else the default chunks), as the tab trains on them; and what it was.
 */
export function dataTrainingTexts(data: BuildData): { texts: string[]; chunking: ChunkOptions | false; trainedOn: string } {
  const chunking = dataChunking(data);
  const texts = kbTrainingTexts(KnowledgeBase.build(data.docs, { chunking, cdfQueries: 0 }));
  return { texts, chunking, trainedOn: `${DATA_KIND_NAMES[data.kind]} ${data.id}` };
}

/**
 * `rag-lab train-embedder`'s session: the collected data's training texts (`dataTrainingTexts`) → the training the
 * tab runs (`trainOnTexts`); `label` names the data in a fault (a BuildError or TrainEmbedderError in words).
 */
export async function trainOnData(data: BuildData, opts: Omit<TrainOptions, 'trainedOn'>, label: string): Promise<{ model: TrainedModel; chunking: ChunkOptions | false }> {
  if (data.docs.length === 0) throw new BuildError(`--data ${label}: no documents to learn from`);
  const { texts, chunking, trainedOn } = dataTrainingTexts(data);
  return { model: await trainOnTexts(texts, { ...opts, trainedOn }, (why) => `--data ${label}: ${why}`), chunking };
}

function beirFile(fs: DataFiles, dir: string, rel: string): string {
  const path = fs.join(dir, rel);
  if (!fs.exists(path)) throw new BuildError(`${path}: file not found (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
  return fs.readText(path);
}

function loadBeir(fs: DataFiles, dir: string, split: string): BuildData {
  const docs = parseCorpus(beirFile(fs, dir, 'corpus.jsonl'), fs.join(dir, 'corpus.jsonl'));
  const notes: string[] = [];
  let queries: BeirQuery[] | null = null, qrels: Qrels | null = null;
  const qrelsRel = fs.join('qrels', `${split}.tsv`);
  if (fs.exists(fs.join(dir, 'queries.jsonl')) && fs.exists(fs.join(dir, qrelsRel))) {
    queries = parseQueries(beirFile(fs, dir, 'queries.jsonl'), fs.join(dir, 'queries.jsonl'));
    qrels = parseQrels(beirFile(fs, dir, qrelsRel), fs.join(dir, qrelsRel));
  } else {
    notes.push(`no queries.jsonl and ${qrelsRel} in ${dir}: the artifact carries no queries (eval-beir --kb will need --data)`);
  }
  const what = queries ? `, ${queries.length} queries, ${qrelsRel}` : '';
  return { kind: 'beir', summary: `BEIR folder ${dir} (${docs.length} documents${what})`, id: idOf(fs.basename(dir)), docs, fields: [], queries, qrels, notes };
}

async function loadRagbench(fs: DataFiles, path: string, files: string[]): Promise<BuildData> {
  const rows: RagbenchRow[] = [];
  const subsets = new Set<string>();
  const notes: string[] = [];
  for (const file of files) {
    const bytes = fs.readBytes(file);
    let parsed;
    try {
      parsed = await parseRagbenchFile(file, bytes);
    } catch (e) {
      if (e instanceof RagbenchError) throw new BuildError(e.message);
      throw e;
    }
    if (parsed.skipped.length > 0) notes.push(`${file}: skipped ${parsed.skipped.length} of ${parsed.total} rows (not RAGBench rows)`);
    subsets.add(parsed.subset);
    rows.push(...parsed.rows);
  }
  if (subsets.size > 1) {
    throw new BuildError(`--data ${path}: rows of ${subsets.size} RAGBench subsets (${summariseList([...subsets])}); an index is built from one subset: give one subset's file or folder`);
  }
  const pooled = poolDocuments(rows);
  if (pooled.docs.length === 0) throw new BuildError(`--data ${path}: the RAGBench rows hold no documents`);
  const subset = [...subsets][0]!;
  return {
    kind: 'ragbench', id: idOf(subset), docs: pooled.docs, fields: [], queries: null, qrels: null, notes,
    summary: `RAGBench subset ${subset} from ${path} (${rows.length} rows, ${pooled.documentCount} documents, ${pooled.docs.length} after deduplication)`,
  };
}

/** At most this many skipped files are listed on stderr, one a line (the count is always given). */
const MAX_LISTED = 50;

/**
 * A folder of PDF, TXT, MD and HTML files, through the same `extractDocuments` as the Build tab (so the same files
 * give the same documents and chunks). Other files are counted, not read; a file over the size limit is not read.
 */
async function loadFiles(fs: DataFiles, dir: string, rels: string[], passed: string[]): Promise<BuildData> {
  const files: InputFile[] = [];
  const tooLarge: SkippedItem[] = [];
  const ignored: string[] = [];
  for (const rel of rels) {
    const path = rel.split('\\').join('/');
    const format = fileFormatOf(path);
    if (!format) { ignored.push(path); continue; }
    const abs = fs.join(dir, rel);
    const reason = sizeLimitReason(format, fs.size(abs));
    if (reason) { tooLarge.push({ path, reason }); continue; }
    files.push({ path, bytes: fs.readBytes(abs) });
  }
  const got = await extractDocuments(files);
  const skipped = [...tooLarge, ...got.skipped].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const notes: string[] = [];
  if (ignored.length > 0) notes.push(`ignored ${ignored.length} files that are not PDF, TXT, MD or HTML files: ${summariseList(ignored, 5)}`);
  if (passed.length > 0) notes.push(`passed over ${passed.length} entries that are not regular files (never read): ${summariseList(passed, 5)}`);
  if (skipped.length > 0) {
    notes.push(`skipped ${skipped.length} files:`);
    for (const s of skipped.slice(0, MAX_LISTED)) notes.push(`  ${s.path}: ${s.reason}`);
    if (skipped.length > MAX_LISTED) notes.push(`  … and ${skipped.length - MAX_LISTED} more`);
  }
  notes.push(...got.notes);
  if (got.docs.length === 0) {
    throw new BuildError(`--data ${dir}: none of its ${files.length + tooLarge.length} PDF, TXT, MD or HTML files could be used (${skipped.slice(0, 3).map((s) => `${s.path}: ${s.reason}`).join('; ')}${skipped.length > 3 ? '; …' : ''})`);
  }
  const count = (format: string) => got.docs.filter((d) => d.meta?.format === format).length;
  const pdfFiles = new Set(got.docs.filter((d) => d.meta?.format === 'pdf').map((d) => d.meta!.file)).size;
  const parts = [
    ...(pdfFiles > 0 ? [`${count('pdf')} PDF pages from ${pdfFiles} PDF${pdfFiles === 1 ? '' : 's'}`] : []),
    ...(count('html') > 0 ? [`${count('html')} HTML`] : []),
    ...(count('md') > 0 ? [`${count('md')} Markdown`] : []),
    ...(count('txt') > 0 ? [`${count('txt')} plain text`] : []),
  ];
  return {
    kind: 'files', id: idOf(fs.basename(dir)), docs: got.docs, fields: got.fields, queries: null, qrels: null, notes,
    summary: `text folder ${dir} (${got.docs.length} documents: ${parts.join(', ')})`,
  };
}

/**
 * `--data` as an artifact: a `.zip` file or a folder holding index_config.json or meta.json, optionally `#index-id`
 * (when the path with the `#` is not itself there). Null for anything else (the other data kinds).
 */
export function artifactDataPath(fs: DataFiles, path: string): { abs: string; index: string | null } | null {
  const hash = path.lastIndexOf('#');
  const [p, index] = fs.exists(path) || hash < 0 ? [path, null] : [path.slice(0, hash), path.slice(hash + 1)];
  const abs = fs.resolve(p);
  if (!fs.exists(abs)) return null;
  const isDir = (dir: string) => fs.exists(fs.join(dir, 'index_config.json')) || fs.exists(fs.join(dir, 'meta.json'));
  if (fs.isFile(abs) ? !/\.zip$/i.test(abs) : !isDir(abs)) return null;
  return { abs, index: index || null };
}

/** The documents (and queries, qrels) of the artifact `at` names, for a new build. */
export async function loadArtifactData(fs: DataFiles, at: { abs: string; index: string | null }): Promise<BuildData> {
  try {
    const zip = fs.isFile(at.abs);
    const source = fs.artifactSource(at.abs, zip);
    const entries = await listIndexes(source);
    const entry = at.index !== null ? entries.find((e) => e.id === at.index) : entries.length === 1 ? entries[0] : undefined;
    if (!entry) {
      const ids = summariseList(entries.map((e) => e.id));
      throw new BuildError(at.index !== null
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
    if (e instanceof ArtifactError) throw new BuildError(e.message.split('\n')[0]!);
    throw e;
  }
}

const EXPECTED = 'a BEIR folder (corpus.jsonl), a RAGBench subset (.jsonl or .parquet, or a folder of them) or a folder of PDF, TXT, MD or HTML files';

/** Reads `--data` as whichever kind it is (see the module comment). `split`: the BEIR qrels split carried. */
export async function collectData(fs: DataFiles, path: string, split = 'test'): Promise<BuildData> {
  const artifact = artifactDataPath(fs, path); // a built knowledge base (.zip or artifact folder), built again
  if (artifact) return loadArtifactData(fs, artifact);
  const abs = fs.resolve(path);
  if (!fs.exists(abs)) throw new BuildError(`--data ${path}: not found (expected ${EXPECTED})`);
  try {
    if (fs.isFile(abs)) {
      if (RAGBENCH_FILE.test(abs)) return await loadRagbench(fs, abs, [abs]);
      throw new BuildError(`--data ${path}: unknown data kind: a file that is not .jsonl or .parquet (expected ${EXPECTED})`);
    }
    if (fs.exists(fs.join(abs, 'corpus.jsonl'))) return loadBeir(fs, abs, split);
    const { rels, passed } = fs.walk(abs);
    if (rels.some((r) => fileFormatOf(r))) return await loadFiles(fs, abs, rels, passed);
    const tables = rels.filter((r) => RAGBENCH_FILE.test(r)).map((r) => fs.join(abs, r));
    if (tables.length > 0) return await loadRagbench(fs, abs, tables);
    const none = rels.length > 0 ? `none of its ${rels.length} files is corpus.jsonl, .jsonl, .parquet, .pdf, .txt, .md or .html`
      : passed.length > 0 ? `it holds no regular file (passed over: ${summariseList(passed, 3)})` : 'the folder is empty';
    throw new BuildError(`--data ${path}: unknown data kind: ${none} (expected ${EXPECTED})`);
  } catch (e) {
    if (e instanceof DataError) throw new BuildError(e.message);
    throw e;
  }
}

/** A default index id for an arXiv query: `arxiv-` and its words ("ti:rag AND cat:cs.IR" → arxiv-ti-rag-and-cat-cs-ir). */
export function arxivIndexId(query: string): string {
  return `arxiv-${query.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`.slice(0, 64).replace(/-+$/, '');
}

/**
 * `--arxiv QUERY --max N`: papers from the arXiv API (Node has no CORS, so it is called directly, one request every
 * 3 seconds), as the Build tab reads them through its proxy: the same `arxivDocuments`.
 */
export async function collectArxiv(req: ArxivRequest, opts: Partial<ArxivOptions> = {}): Promise<BuildData> {
  const endpoint = opts.endpoint ?? ARXIV_API;
  let got;
  try {
    got = await arxivDocuments(req, { ...opts, endpoint });
  } catch (e) {
    if (e instanceof ArxivError) throw new BuildError(`--arxiv: ${e.message}`);
    throw e;
  }
  const notes = [...got.notes, ...got.skipped.slice(0, 5).map((s) => `skipped ${s.path}: ${s.reason}`)];
  if (got.skipped.length > 5) notes.push(`skipped ${got.skipped.length - 5} more entries`);
  return {
    kind: 'arxiv', id: arxivIndexId(req.query), docs: got.docs, fields: got.fields, queries: null, qrels: null, notes,
    ...(got.examples ? { examples: got.examples } : {}),
    description: `arXiv: ${req.query} (${got.docs.length} papers)`,
    summary: `arXiv query "${req.query}" on ${new URL(endpoint).host} (${got.docs.length} papers)`,
  };
}
