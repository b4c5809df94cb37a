/**
 * What the Build tab shows, computed from plain data (unit-tested in tests/unit/build-view.test.ts): stage labels and
 * the progress line, the knowledge base's name from its title, a title from the picked files, the form's checks
 * (valibot, one message per field), the summary's lines and a local knowledge base's line in the list.
 */
import * as v from 'valibot';
import { BUILD_STAGES, type BuildOrigin, type BuildProgress, type BuildStage } from '../../lib/data/source-documents.ts';
import { LOCAL_KB_NAME, MAX_DESCRIPTION, type BuildSettings, type BuildSummary, type LocalKbMeta } from '../../lib/data/local-kb-meta.ts';
import { DEFAULT_BM25 } from '../../lib/retrieval/bm25.ts';
import { MAX_TITLE } from '../../lib/store/local-kb-store.ts';
import { DEFAULT_CHUNKING } from '../../lib/retrieval/chunk.ts';
import { needsEmbedder } from '../../lib/models/needs-embedder.ts';
import { formatBytes } from '../shared/format.ts';

export const BUILD_STAGE_LABELS: Record<BuildStage, string> = {
  download: 'Downloading',
  extract: 'Extracting text',
  chunk: 'Chunking',
  index: 'Building the BM25 index',
  embed: 'Embedding chunks',
  calibrate: 'Calibrating scores',
  save: 'Saving in this browser',
};

/** One line for a progress report: "Extracting text: report.pdf (3 / 10)". */
export function buildProgressText(p: BuildProgress): string {
  const counts = p.total > 0 ? ` (${p.done.toLocaleString('en-US')} / ${p.total.toLocaleString('en-US')})` : '';
  return `${BUILD_STAGE_LABELS[p.stage]}${p.item ? `: ${p.item}` : ''}${counts}`;
}

/** The stages a build goes through: `download` only for remote sources, `embed` only with an embedder. */
export function stagesFor(source: 'files' | 'hub-dataset' | 'arxiv' | 'web' | 'rebuild', embed: boolean): BuildStage[] {
  return BUILD_STAGES.filter((s) => (s !== 'download' || source === 'hub-dataset' || source === 'arxiv' || source === 'web') && (s !== 'embed' || embed));
}

export type StageState = 'done' | 'current' | 'todo';

/** Each stage's state given the one running now (stages earlier in BUILD_STAGES are done); `null`: none started. */
export function stageStates(stages: readonly BuildStage[], current: BuildStage | null): { stage: BuildStage; label: string; state: StageState }[] {
  const at = current === null ? -1 : BUILD_STAGES.indexOf(current);
  const shown = current !== null && !stages.includes(current) ? BUILD_STAGES.filter((s) => stages.includes(s) || s === current) : stages;
  return shown.map((stage) => {
    const i = BUILD_STAGES.indexOf(stage);
    return { stage, label: BUILD_STAGE_LABELS[stage], state: i < at ? 'done' : i === at ? 'current' : 'todo' };
  });
}

/** Percent of the current stage done (0 when its total is unknown). */
export function stagePercent(p: BuildProgress | null): number {
  return p && p.total > 0 ? Math.min(100, Math.round((100 * p.done) / p.total)) : 0;
}

/**
 * A knowledge base's name (its id `local:<name>`) from its title: accents dropped, lower case, anything but letters,
 * digits, `.`, `_` and `-` becomes `-`, at most 64 characters, always matching LOCAL_KB_NAME ("kb" when nothing is left).
 */
export function nameFromTitle(title: string): string {
  const slug = title.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-').replace(/-{2,}/g, '-').replace(/^[^a-z0-9]+/, '')
    .slice(0, 64).replace(/[-.]+$/, '');
  return LOCAL_KB_NAME.test(slug) ? slug : 'kb';
}

const baseName = (path: string) => path.split('/').filter(Boolean).at(-1) ?? path;
const stem = (file: string) => file.replace(/\.[^.]+$/, '') || file;

/** A title for picked files: their common top folder, the one file's name without extension, or "<first> and N more". */
export function titleFromFiles(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.split('/')[0] : null)));
  const top = tops.size === 1 ? [...tops][0] : null;
  if (top) return top;
  const first = stem(baseName(paths[0]!));
  return paths.length === 1 ? first : `${first} and ${paths.length - 1} more`;
}

type TitledSource =
  | { kind: 'hub-dataset'; request: { dataset: string } } | { kind: 'arxiv'; request: { query: string } }
  | { kind: 'web'; request: { urls: string; search?: { query: string } | undefined } } | { kind: 'files' | 'rebuild' };

/** "Web: <query>" for a search, else "Web pages: <the first URL's host>" ('' when the list names none). */
function webTitle(request: { urls: string; search?: { query: string } | undefined }): string {
  const query = request.search?.query.trim().replace(/\s+/g, ' ');
  if (query) return `Web: ${query}`;
  const first = /^[ \t]*(https?:\/\/[^\s/?#]+)/im.exec(request.urls)?.[1];
  try {
    return first ? `Web pages: ${new URL(first).host}` : '';
  } catch {
    return '';
  }
}

/**
 * A title for a remote source when the user typed none: the dataset's id, "arXiv: <query>", or the web pages' search
 * or first site (at most 80 characters).
 */
export function titleForSource(source: TitledSource): string {
  const t = source.kind === 'hub-dataset' ? source.request.dataset.trim()
    : source.kind === 'arxiv' ? `arXiv: ${source.request.query.trim().replace(/\s+/g, ' ')}`
      : source.kind === 'web' ? webTitle(source.request) : '';
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}

/** "3 files, 1.2 MB". */
export function filesLine(count: number, bytes: number): string {
  return `${count.toLocaleString('en-US')} file${count === 1 ? '' : 's'}, ${formatBytes(bytes)}`;
}

/** The form as the inputs hold it (number inputs give null when empty). */
export interface BuildForm {
  title: string;
  description: string;
  chunkSize: number | null;
  overlap: number | null;
  /** One chunk per document (no chunking). */
  wholeDocuments: boolean;
  k1: number | null;
  b: number | null;
  embed: boolean;
  /** The user confirmed replacing the knowledge base of the same name. */
  replace: boolean;
}

export function defaultBuildForm(): BuildForm {
  return {
    title: '', description: '', chunkSize: DEFAULT_CHUNKING.chunkSize, overlap: DEFAULT_CHUNKING.overlap, wholeDocuments: false,
    k1: DEFAULT_BM25.k1, b: DEFAULT_BM25.b, embed: false, replace: false,
  };
}

export type BuildFormField = 'title' | 'description' | 'chunkSize' | 'overlap' | 'k1' | 'b' | 'embed' | 'name';
export type BuildFormErrors = Partial<Record<BuildFormField, string>>;
export type BuildFormCheck =
  | { ok: true; name: string; title: string; description: string; settings: BuildSettings }
  | { ok: false; errors: BuildFormErrors };

export { MAX_DESCRIPTION, MAX_TITLE };
export const CHUNK_SIZE_RANGE = [100, 20_000] as const;
/** Why a build cannot embed its chunks now (the form's error and the checkbox's hint). */
export const EMBED_NEEDS_EMBEDDER = needsEmbedder('Embedding the chunks', 'build without vectors (BM25 works without)');
export const K1_MAX = 10;

const ChunkSize = v.pipe(v.number(), v.integer(), v.minValue(CHUNK_SIZE_RANGE[0]), v.maxValue(CHUNK_SIZE_RANGE[1]));
const Overlap = v.pipe(v.number(), v.integer(), v.minValue(0));
const K1 = v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(K1_MAX));
const B = v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1));

/** The input's value when the schema accepts it, else null. */
function valid<T>(schema: v.GenericSchema<unknown, T>, x: unknown): T | null {
  const r = v.safeParse(schema, x);
  return r.success ? r.output : null;
}

/**
 * Checks the form: a title (its name must be new unless `replace` is confirmed; `fixed` keeps a rebuilt knowledge
 * base's own name and title), numbers in range, embedding only with a loaded embedder. Each field gets its message.
 */
export function checkBuildForm(form: BuildForm, opts: { taken: readonly string[]; embedder: string | null; fixed?: { name: string; title: string; description: string } }): BuildFormCheck {
  const errors: BuildFormErrors = {};
  const title = opts.fixed ? opts.fixed.title : form.title.trim();
  const description = opts.fixed ? opts.fixed.description : form.description.trim();
  const name = opts.fixed ? opts.fixed.name : nameFromTitle(title);
  if (!opts.fixed) {
    if (!title) errors.title = 'Give the knowledge base a title (its name in links is made from it).';
    else if (title.length > MAX_TITLE) errors.title = `The title is too long (${title.length} characters; at most ${MAX_TITLE}).`;
    else if (opts.taken.includes(name) && !form.replace) errors.name = `A knowledge base named “${name}” is already in this browser: tick “Replace it” or change the title.`;
    if (description.length > MAX_DESCRIPTION) errors.description = `The description is too long (${description.length} characters; at most ${MAX_DESCRIPTION}).`;
  }
  let chunking: BuildSettings['chunking'] = false;
  if (!form.wholeDocuments) {
    const size = valid(ChunkSize, form.chunkSize);
    const overlap = valid(Overlap, form.overlap);
    if (size === null) errors.chunkSize = `The chunk size must be a whole number of characters from ${CHUNK_SIZE_RANGE[0]} to ${CHUNK_SIZE_RANGE[1].toLocaleString('en-US')} (default ${DEFAULT_CHUNKING.chunkSize}).`;
    if (overlap === null || (size !== null && overlap >= size)) errors.overlap = `The overlap must be a whole number of characters from 0 to less than the chunk size${size !== null ? ` (${size})` : ''} (default ${DEFAULT_CHUNKING.overlap}).`;
    if (size !== null && overlap !== null && overlap < size) chunking = { ...DEFAULT_CHUNKING, chunkSize: size, overlap };
  }
  const k1 = valid(K1, form.k1);
  const b = valid(B, form.b);
  if (k1 === null) errors.k1 = `k1 must be a number from 0 to ${K1_MAX} (default ${DEFAULT_BM25.k1}).`;
  if (b === null) errors.b = `b must be a number from 0 to 1 (default ${DEFAULT_BM25.b}).`;
  if (form.embed && !opts.embedder) errors.embed = EMBED_NEEDS_EMBEDDER;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, name, title, description, settings: { chunking, bm25: { k1: k1!, b: b! }, embed: form.embed } };
}

/** Milliseconds for people: "820 ms", "3.4 s", "2 min 05 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** How the settings read in the list and the summary: "chunks of 800 characters, 120 overlap · BM25 k1 0.9, b 0.4". */
export function settingsText(s: BuildSettings): string {
  const chunks = s.chunking === false ? 'whole documents' : `chunks of ${s.chunking.chunkSize} characters, ${s.chunking.overlap} overlap`;
  return `${chunks} · BM25 k1 ${s.bm25.k1}, b ${s.bm25.b}`;
}

/** The embedder a knowledge base's vectors come from, or that it has none. */
export function embedderText(e: BuildSummary['embedder']): string {
  return e ? `vectors: ${e.id} (${e.dtype}, ${e.dim} dimensions)` : 'BM25 only (no vectors)';
}

/** What the skipped items are called for an origin: files, rows, pages or feed entries. */
function skippedUnit(origin: BuildOrigin): [string, string] {
  return origin.kind === 'files' ? ['file', 'files'] : origin.kind === 'hub-dataset' ? ['row', 'rows'] : origin.kind === 'web' ? ['page', 'pages'] : ['entry', 'entries'];
}

/** "2 files skipped" (heading of the skipped list), or null when nothing was skipped. */
export function skippedHeading(s: Pick<BuildSummary, 'skippedCount' | 'skipped' | 'origin'>): string | null {
  const n = Math.max(s.skippedCount, s.skipped.length);
  if (n === 0) return null;
  const [one, many] = skippedUnit(s.origin);
  const listed = s.skipped.length < n ? ` (the first ${s.skipped.length.toLocaleString('en-US')} listed)` : '';
  return `${plural(n, one, many)} skipped${listed}`;
}

/** The skipped list starts collapsed when it is longer than this. */
export const SKIPPED_OPEN_MAX = 10;

/** Where the documents came from, in words. */
export function originText(o: BuildOrigin): string {
  switch (o.kind) {
    case 'files': return `${filesLine(o.files, o.bytes)} read`;
    case 'hub-dataset': return `${plural(o.rows, 'row')} of the Hub dataset ${o.dataset} (${o.config}/${o.split}${o.revision ? ` @ ${o.revision.slice(0, 12)}` : ''})`;
    case 'arxiv': return `arXiv search “${o.query}” (at most ${o.max.toLocaleString('en-US')})`;
    case 'web': return `web pages: ${plural(o.urls, 'URL')} fetched${o.query !== null ? ` (with the search “${o.query}”)` : ''}`;
  }
}

/**
 * The counts of a built knowledge base, as parts: files and PDF pages for files ("3 files", "329 pages", "1,020
 * chunks": a PDF page is stored as a document of its own, so documents would count pages), documents for other
 * sources and for records without a file count ("12 documents", "36 pages", "140 chunks").
 */
export function countsParts(s: Pick<BuildSummary, 'documents' | 'pages' | 'chunks' | 'files'>): string[] {
  const pages = s.pages > 0 ? [plural(s.pages, 'page')] : [];
  const first = s.files !== undefined ? plural(s.files, 'file') : plural(s.documents, 'document');
  return [first, ...pages, plural(s.chunks, 'chunk')];
}

/** "3 files · 329 pages · 1,020 chunks" (see countsParts). */
export function countsText(s: Pick<BuildSummary, 'documents' | 'pages' | 'chunks' | 'files'>): string {
  return countsParts(s).join(' · ');
}

/**
 * The counts of the open knowledge base (the picker and the status line): a knowledge base built here is counted as
 * its build summary counts it (files and pages), any other by documents and chunks.
 */
export function openKbCounts(info: { documents: number; items: number }, built: Pick<BuildSummary, 'documents' | 'pages' | 'chunks' | 'files'> | null): string[] {
  return built ? countsParts({ ...built, chunks: info.items }) : [plural(info.documents, 'document'), plural(info.items, 'chunk')];
}

/** The summary's lines after a build. */
export function summaryLines(s: BuildSummary): string[] {
  const stages = BUILD_STAGES.filter((k) => s.stageMs[k] !== undefined).map((k) => `${k} ${formatDuration(s.stageMs[k]!)}`);
  return [
    `${countsText(s)} · built in ${formatDuration(s.totalMs)} · ${formatBytes(s.bytes)}`,
    `From ${originText(s.origin)}.`,
    `${embedderText(s.embedder)[0]!.toUpperCase()}${embedderText(s.embedder).slice(1)}.`,
    ...(s.queries > 0 ? [`${plural(s.queries, 'query', 'queries')} with relevance judgements came along (retrieval benchmark).`] : []),
    ...(stages.length > 0 ? [`Time per stage: ${stages.join(' · ')}.`] : []),
  ];
}

/** Whether the browser may evict what was saved, in words (null: the browser did not say). */
export function persistenceText(persistent: boolean | null): string {
  if (persistent === true) return 'Storage is persistent: the browser keeps this knowledge base until you delete it.';
  if (persistent === false) return 'Storage is not persistent: the browser may delete saved data when disk space runs low. Export a .zip to keep a copy.';
  return 'This browser did not say whether storage is persistent; export a .zip to keep a copy.';
}

/** A UTC date-time as the list shows it: "2026-12-01 16:05 UTC". */
export function builtAt(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A local knowledge base's line in the list: counts, when it was built, settings, embedder. */
export function localKbLines(m: LocalKbMeta): string[] {
  const changed = m.updatedAt !== m.createdAt ? ` · changed ${builtAt(m.updatedAt)}` : '';
  return [
    `${countsText(m.summary)} · built ${builtAt(m.createdAt)}${changed}`,
    `${settingsText(m.settings)} · ${embedderText(m.summary.embedder)}`,
  ];
}
