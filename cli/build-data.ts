/**
 * What `rag-lab build-index --data` reads: a BEIR folder, a RAGBench subset (a .jsonl / .parquet file, or a folder of
 * them for one subset), or a folder of PDF / TXT / MD / HTML files, told apart by what the path holds. Node side
 * only: it reads the files and hands them to the pure parsers in src/lib/data/ and src/lib/ingest/.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { ARXIV_API, ArxivError, arxivDocuments, type ArxivOptions, type ArxivRequest } from '../src/lib/data/arxiv.ts';
import { DataError, parseCorpus, parseQrels, parseQueries, type BeirQuery, type Qrels } from '../src/lib/data/beir.ts';
import type { ExampleQuery, SourceDocument } from '../src/lib/data/document.ts';
import type { MetaField } from '../src/lib/data/kb-source.ts';
import { RagbenchError, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { parseRagbenchFile } from '../src/lib/data/ragbench-files.ts';
import { poolDocuments } from '../src/lib/data/ragbench-kb.ts';
import type { InputFile, SkippedItem } from '../src/lib/data/source-documents.ts';
import { extractDocuments } from '../src/lib/ingest/extract.ts';
import { fileFormatOf } from '../src/lib/ingest/formats.ts';
import { sizeLimitReason } from '../src/lib/ingest/limits.ts';
import { summariseList } from '../src/lib/summarise-list.ts';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../src/lib/retrieval/chunk.ts';
import { artifactDataPath, loadArtifactData } from './artifact-data.ts';
import { CliError } from './args.ts';
import { nonFileKind } from './folder-source.ts';
import { readText, withFile } from './fs-errors.ts';

export type DataKind = 'beir' | 'ragbench' | 'text' | 'artifact' | 'arxiv';

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
  /** First queries the knowledge base suggests (arXiv: the query when it is plain words). */
  examples?: ExampleQuery[];
}

const RAGBENCH_FILE = /\.(jsonl|ndjson|parquet)$/i;

/** An index id from a name: lower case, runs of other characters as '-'. */
export function idOf(name: string): string {
  const id = name.toLowerCase().replace(/\.[a-z0-9]+$/, '').replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return id || 'index';
}

interface Walked {
  /** Regular files (relative paths, sorted), symbolic links to them included. */
  rels: string[];
  /** What was passed over and why, sorted: "a/pipe (a FIFO (named pipe))", "b.pdf (a broken link)". */
  passed: string[];
}

/**
 * Every regular file under `dir`, following symbolic links to files and folders (a folder of links to PDFs is a
 * folder of PDFs), each real folder once (a link loop ends); dot-files and dot-folders skipped. FIFOs, sockets,
 * devices and broken links are never read (a FIFO would wait forever): they are listed in `passed`.
 */
function walk(dir: string): Walked {
  const rels: string[] = [];
  const passed: string[] = [];
  const seen = new Set<string>();
  const visit = (d: string) => {
    const real = withFile(d, () => realpathSync(d));
    if (seen.has(real)) return;
    seen.add(real);
    const entries = withFile(d, () => readdirSync(d, { withFileTypes: true }));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      let st: Stats = e as unknown as Stats;
      if (e.isSymbolicLink()) {
        const target = withFile(p, () => statSync(p, { throwIfNoEntry: false }));
        if (!target) { passed.push(`${relative(dir, p)} (a broken link)`); continue; }
        st = target;
      }
      if (st.isDirectory()) visit(p);
      else if (st.isFile()) rels.push(relative(dir, p));
      else passed.push(`${relative(dir, p)} (${nonFileKind(st)})`);
    }
  };
  visit(dir);
  return { rels: rels.sort(), passed: passed.sort() };
}

function beirFile(dir: string, rel: string): string {
  const path = join(dir, rel);
  if (!existsSync(path)) throw new CliError(`${path}: file not found (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
  return readText(path);
}

function loadBeir(dir: string, split: string): BuildData {
  const docs = parseCorpus(beirFile(dir, 'corpus.jsonl'), join(dir, 'corpus.jsonl'));
  const notes: string[] = [];
  let queries: BeirQuery[] | null = null, qrels: Qrels | null = null;
  const qrelsRel = join('qrels', `${split}.tsv`);
  if (existsSync(join(dir, 'queries.jsonl')) && existsSync(join(dir, qrelsRel))) {
    queries = parseQueries(beirFile(dir, 'queries.jsonl'), join(dir, 'queries.jsonl'));
    qrels = parseQrels(beirFile(dir, qrelsRel), join(dir, qrelsRel));
  } else {
    notes.push(`no queries.jsonl and ${qrelsRel} in ${dir}: the artifact carries no queries (eval-beir --kb will need --data)`);
  }
  const what = queries ? `, ${queries.length} queries, ${qrelsRel}` : '';
  return { kind: 'beir', summary: `BEIR folder ${dir} (${docs.length} documents${what})`, id: idOf(basename(dir)), docs, fields: [], queries, qrels, notes };
}

async function loadRagbench(path: string, files: string[]): Promise<BuildData> {
  const rows: RagbenchRow[] = [];
  const subsets = new Set<string>();
  const notes: string[] = [];
  for (const file of files) {
    const bytes = withFile(file, () => readFileSync(file));
    let parsed;
    try {
      parsed = await parseRagbenchFile(file, bytes);
    } catch (e) {
      if (e instanceof RagbenchError) throw new CliError(e.message);
      throw e;
    }
    if (parsed.skipped.length > 0) notes.push(`${file}: skipped ${parsed.skipped.length} of ${parsed.total} rows (not RAGBench rows)`);
    subsets.add(parsed.subset);
    rows.push(...parsed.rows);
  }
  if (subsets.size > 1) {
    throw new CliError(`--data ${path}: rows of ${subsets.size} RAGBench subsets (${summariseList([...subsets])}); an index is built from one subset: give one subset's file or folder`);
  }
  const pooled = poolDocuments(rows);
  if (pooled.docs.length === 0) throw new CliError(`--data ${path}: the RAGBench rows hold no documents`);
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
async function loadFiles(dir: string, rels: string[], passed: string[]): Promise<BuildData> {
  const files: InputFile[] = [];
  const tooLarge: SkippedItem[] = [];
  const ignored: string[] = [];
  for (const rel of rels) {
    const path = rel.split('\\').join('/');
    const format = fileFormatOf(path);
    if (!format) { ignored.push(path); continue; }
    const abs = join(dir, rel);
    const reason = sizeLimitReason(format, withFile(abs, () => statSync(abs)).size);
    if (reason) { tooLarge.push({ path, reason }); continue; }
    files.push({ path, bytes: withFile(abs, () => readFileSync(abs)) });
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
    throw new CliError(`--data ${dir}: none of its ${files.length + tooLarge.length} PDF, TXT, MD or HTML files could be used (${skipped.slice(0, 3).map((s) => `${s.path}: ${s.reason}`).join('; ')}${skipped.length > 3 ? '; …' : ''})`);
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
    kind: 'text', id: idOf(basename(dir)), docs: got.docs, fields: got.fields, queries: null, qrels: null, notes,
    summary: `text folder ${dir} (${got.docs.length} documents: ${parts.join(', ')})`,
  };
}

const EXPECTED = 'a BEIR folder (corpus.jsonl), a RAGBench subset (.jsonl or .parquet, or a folder of them) or a folder of PDF, TXT, MD or HTML files';

/** Reads `--data` as whichever kind it is (see the module comment). `split`: the BEIR qrels split carried. */
/** The chunking a knowledge base built from `data` gets unless a flag says otherwise: its own (an artifact's), whole documents for BEIR, else the default chunks. */
export function dataChunking(data: Pick<BuildData, 'kind' | 'chunking'>): ChunkOptions | false {
  return data.chunking ?? (data.kind === 'beir' ? false : DEFAULT_CHUNKING);
}

export async function loadBuildData(path: string, split = 'test'): Promise<BuildData> {
  const artifact = artifactDataPath(path); // a built knowledge base (.zip or artifact folder), built again
  if (artifact) return loadArtifactData(artifact);
  const abs = resolve(path);
  if (!existsSync(abs)) throw new CliError(`--data ${path}: not found (expected ${EXPECTED})`);
  try {
    if (withFile(abs, () => statSync(abs)).isFile()) {
      if (RAGBENCH_FILE.test(abs)) return await loadRagbench(abs, [abs]);
      throw new CliError(`--data ${path}: unknown data kind: a file that is not .jsonl or .parquet (expected ${EXPECTED})`);
    }
    if (existsSync(join(abs, 'corpus.jsonl'))) return loadBeir(abs, split);
    const { rels, passed } = walk(abs);
    if (rels.some((r) => fileFormatOf(r))) return await loadFiles(abs, rels, passed);
    const tables = rels.filter((r) => RAGBENCH_FILE.test(r)).map((r) => join(abs, r));
    if (tables.length > 0) return await loadRagbench(abs, tables);
    const none = rels.length > 0 ? `none of its ${rels.length} files is corpus.jsonl, .jsonl, .parquet, .pdf, .txt, .md or .html`
      : passed.length > 0 ? `it holds no regular file (passed over: ${summariseList(passed, 3)})` : 'the folder is empty';
    throw new CliError(`--data ${path}: unknown data kind: ${none} (expected ${EXPECTED})`);
  } catch (e) {
    if (e instanceof DataError) throw new CliError(e.message);
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
export async function loadArxivData(req: ArxivRequest, opts: Partial<ArxivOptions> = {}): Promise<BuildData> {
  const endpoint = opts.endpoint ?? ARXIV_API;
  let got;
  try {
    got = await arxivDocuments(req, { ...opts, endpoint });
  } catch (e) {
    if (e instanceof ArxivError) throw new CliError(`--arxiv: ${e.message}`);
    throw e;
  }
  const notes = [...got.notes, ...got.skipped.slice(0, 5).map((s) => `skipped ${s.path}: ${s.reason}`)];
  if (got.skipped.length > 5) notes.push(`skipped ${got.skipped.length - 5} more entries`);
  return {
    kind: 'arxiv', id: arxivIndexId(req.query), docs: got.docs, fields: got.fields, queries: null, qrels: null, notes,
    ...(got.examples ? { examples: got.examples } : {}),
    summary: `arXiv query "${req.query}" on ${new URL(endpoint).host} (${got.docs.length} papers)`,
  };
}
