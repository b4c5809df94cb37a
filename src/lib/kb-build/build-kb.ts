/**
 * The build session: documents from any source (`SourceDocuments`) → chunks → BM25 index → vectors (optional) →
 * calibration → an index artifact (format v1), in stages with progress and cancel. The build worker and the CLI call
 * it. Nothing is saved here: the caller stores the files (the build worker in IndexedDB, in one transaction).
 */
import type { IndexEntry } from '../artifact/format.ts';
import { writeArtifact, type ArtifactInput } from '../artifact/write.ts';
import type { ExampleQuery, SourceDocument } from '../retrieval/document.ts';
import type { TextEmbedder } from '../models/types.ts';
import { embedItems } from '../retrieval/dense-build.ts';
import { DEFAULT_KB_OPTIONS, KnowledgeBase, type KbOptions } from '../retrieval/knowledge-base.ts';
import { wordSpans } from '../retrieval/tokenize.ts';
import { calibratedDense } from './dense-input.ts';
import { type BuildStage, type OnBuildProgress, type SkippedItem, type SourceDocuments } from '../data/source-documents.ts';
import { LOCAL_KB_NAME, type BuildSettings, type BuildSummary } from '../data/local-kb-meta.ts';

export interface BuildKbOptions {
  name: string;
  title: string;
  description?: string;
  settings: BuildSettings;
  /** Needed when `settings.embed`. */
  embedder?: TextEmbedder | null;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
  /** Time the caller spent before (reading the source: `download`, `extract`), added to the summary. */
  priorStageMs?: Partial<Record<BuildStage, number>>;
  /** ISO timestamp written into meta.json (default now). */
  created?: string;
}

export interface BuiltKb {
  /** Index-folder-relative paths (meta.json last), as `writeArtifact` gives them. */
  files: Map<string, Uint8Array>;
  entry: IndexEntry;
  summary: BuildSummary;
}

/** At most this many skipped inputs are kept with a summary (the count is kept in full). */
export const MAX_SKIPPED = 1000;
/** Example queries derived when a source gives none. */
export const DERIVED_EXAMPLES = 3;

/** A build that cannot give a knowledge base (no usable document, a bad name): the message is for the user. */
export class BuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuildError';
  }
}

/** How many files documents came from (distinct `file` metadata: a PDF's pages count once), or null when none has one. */
export function filesOf(docs: readonly SourceDocument[]): number | null {
  const files = new Set<string>();
  for (const d of docs) if (typeof d.meta?.file === 'string') files.add(d.meta.file);
  return files.size > 0 ? files.size : null;
}

/**
 * The documents a knowledge base can be built from: those with text, each id once (the artifact reader refuses a
 * repeated doc_id). The others are skipped with their reason.
 */
export function usableDocuments(docs: readonly SourceDocument[]): { docs: SourceDocument[]; skipped: SkippedItem[] } {
  const seen = new Set<string>();
  const out: SourceDocument[] = [];
  const skipped: SkippedItem[] = [];
  for (const d of docs) {
    if (d.text.trim() === '') { skipped.push({ path: d.id, reason: 'no text' }); continue; }
    if (seen.has(d.id)) { skipped.push({ path: d.id, reason: 'the same document id came twice; the first one was kept' }); continue; }
    seen.add(d.id);
    out.push(d);
  }
  return { docs: out, skipped };
}

/** The message of a build with nothing to index: why each input was left out (the commonest reasons first). */
export function nothingToIndex(skipped: readonly SkippedItem[], total = skipped.length): string {
  if (total === 0) return 'There is nothing to index: the source gave no documents.';
  const byReason = new Map<string, string[]>();
  for (const s of skipped) {
    const paths = byReason.get(s.reason);
    if (paths) paths.push(s.path);
    else byReason.set(s.reason, [s.path]);
  }
  const lines = [...byReason].sort((a, b) => b[1].length - a[1].length).slice(0, 10).map(([reason, paths]) => {
    const shown = paths.slice(0, 3).join(', ');
    return `- ${reason}: ${shown}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''}`;
  });
  return `None of the ${total} ${total === 1 ? 'input has' : 'inputs have'} text to index:\n${lines.join('\n')}`;
}

const PAGE_SUFFIX = /,\s*p\.\s*\d+$/;
const FILE_EXTENSION = /\.(pdf|txt|md|markdown|html?|text)$/i;
const EXAMPLE_WORDS = 6;
/** Documents looked at for examples. */
const CANDIDATES = 50;

/** A title as a short query: without a PDF page suffix, a file extension and folders, at most six words. */
function titleQuery(title: string): string {
  const base = title.replace(PAGE_SUFFIX, '').replace(/^.*[\\/]/, '').replace(FILE_EXTENSION, '');
  return wordSpans(base.replace(/[_-]+/g, ' ')).slice(0, EXAMPLE_WORDS).map((w) => w.token).join(' ');
}

/** The first words of a document's text, as a query. */
function textQuery(text: string): string {
  return wordSpans(text).slice(0, EXAMPLE_WORDS - 1).map((w) => w.token).join(' ');
}

/**
 * Example queries for the Search tab's first open when the source gives none: up to three distinct document titles
 * (spread over the corpus: the first, middle and last documents first), then the opening words of documents.
 * Deterministic: the same documents give the same examples.
 */
export function deriveExamples(docs: readonly SourceDocument[], n = DERIVED_EXAMPLES): ExampleQuery[] {
  if (docs.length === 0) return [];
  // The spread picks, then the first documents: at most CANDIDATES looked at, however large the corpus.
  const order = new Set<number>();
  const picks = Math.min(docs.length, Math.max(n, 1));
  for (let k = 0; k < picks; k++) order.add(picks === 1 ? 0 : Math.round((k * (docs.length - 1)) / (picks - 1)));
  for (let i = 0; i < docs.length && order.size < CANDIDATES; i++) order.add(i);
  const out: string[] = [];
  const add = (q: string) => { if (q.length >= 3 && !out.includes(q) && out.length < n) out.push(q); };
  for (const i of order) add(titleQuery(docs[i]!.title));
  for (const i of order) add(textQuery(docs[i]!.text));
  return out.map((query) => ({ query }));
}

/** The knowledge-base options of these build settings (the other options as the app's defaults). */
export function kbOptionsFor(settings: BuildSettings): KbOptions {
  return { ...DEFAULT_KB_OPTIONS, chunking: settings.chunking, bm25: { ...settings.bm25 } };
}

export async function buildLocalKb(source: SourceDocuments, opts: BuildKbOptions): Promise<BuiltKb> {
  const t0 = performance.now();
  const { signal, settings } = opts;
  if (!LOCAL_KB_NAME.test(opts.name)) {
    throw new BuildError(`"${opts.name}" cannot name a knowledge base: use lower-case letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit).`);
  }
  if (settings.embed && !opts.embedder) throw new BuildError('load an embedding model first (Search tab → models), or build without vectors');
  signal?.throwIfAborted();
  const progress: OnBuildProgress = (p) => {
    signal?.throwIfAborted();
    opts.onProgress?.(p);
  };
  const stageMs: Partial<Record<BuildStage, number>> = { ...opts.priorStageMs };
  let stageStart = performance.now();
  let stage: BuildStage | null = null;
  const enter = (next: BuildStage) => {
    const now = performance.now();
    if (stage) stageMs[stage] = (stageMs[stage] ?? 0) + (now - stageStart);
    stage = next;
    stageStart = now;
  };

  const usable = usableDocuments(source.docs);
  const skipped = [...source.skipped, ...usable.skipped];
  if (usable.docs.length === 0) throw new BuildError(nothingToIndex(skipped.slice(0, MAX_SKIPPED), skipped.length));
  const docs = usable.docs;
  const options = kbOptionsFor(settings);

  // Chunk and index now; the BM25 calibration table comes after the vectors, so the stages run in their order.
  enter('chunk');
  progress({ stage: 'chunk', done: 0, total: docs.length });
  const indexed = KnowledgeBase.build(docs, { ...options, cdfQueries: 0 }, (s, done, total) => {
    if (s !== stage) enter(s);
    progress({ stage: s, done, total });
  });
  if (indexed.size === 0) throw new BuildError(nothingToIndex(skipped.slice(0, MAX_SKIPPED), skipped.length));

  let dense: ArtifactInput['dense'];
  let embedderInfo: BuildSummary['embedder'] = null;
  let vectors: { vectors: Float32Array; dim: number } | null = null;
  const embedder = settings.embed ? opts.embedder! : null;
  if (embedder) {
    enter('embed');
    progress({ stage: 'embed', done: 0, total: indexed.size });
    vectors = await embedItems(indexed, embedder, { onProgress: (done, total) => progress({ stage: 'embed', done, total }), ...(signal ? { signal } : {}) });
    if (vectors.dim !== embedder.dim) throw new BuildError(`the embedder ${embedder.spec.id} gave ${vectors.dim}-dimensional vectors, not ${embedder.dim}: load it again`);
  }

  enter('calibrate');
  const calibrations = options.cdfQueries + (embedder ? 1 : 0);
  progress({ stage: 'calibrate', done: 0, total: calibrations });
  // The same knowledge base with its BM25 corpus-CDF table (the postings are reused, not rebuilt).
  const kb = options.cdfQueries > 0
    ? KnowledgeBase.fromItems(docs, indexed.data, options, { bm25: indexed.bm25.toData() }, (_s, done) => progress({ stage: 'calibrate', done, total: calibrations }))
    : indexed;
  if (embedder && vectors) {
    dense = await calibratedDense(kb, embedder, vectors.vectors, vectors.dim);
    progress({ stage: 'calibrate', done: calibrations, total: calibrations });
    embedderInfo = { id: embedder.spec.id, dtype: embedder.spec.dtype, dim: vectors.dim };
  }

  enter('save');
  progress({ stage: 'save', done: 0, total: 2, item: 'artifact files' });
  const examples = source.examples?.length ? source.examples : deriveExamples(docs);
  const built = await writeArtifact({
    id: opts.name, title: opts.title, fields: source.fields, examples, kb,
    ...(opts.description ? { description: opts.description } : {}),
    ...(opts.created ? { created: opts.created } : {}),
    ...(dense ? { dense } : {}),
    ...(source.queries ? { queries: source.queries } : {}),
    ...(source.qrels ? { qrels: source.qrels } : {}),
  });
  progress({ stage: 'save', done: 1, total: 2, item: 'artifact files' });
  enter('save');
  stage = null;

  let bytes = 0;
  for (const b of built.files.values()) bytes += b.byteLength;
  const prior = Object.values(opts.priorStageMs ?? {}).reduce((a, b) => a + b, 0);
  const files = source.origin.kind === 'files' ? filesOf(docs) : null;
  const summary: BuildSummary = {
    name: opts.name,
    title: opts.title,
    documents: kb.docs.length,
    pages: source.pages,
    ...(files !== null ? { files } : {}),
    chunks: kb.size,
    skipped: skipped.slice(0, MAX_SKIPPED),
    skippedCount: skipped.length,
    notes: [...source.notes],
    embedder: embedderInfo,
    stageMs,
    totalMs: prior + (performance.now() - t0),
    bytes,
    origin: source.origin,
    queries: source.queries?.length ?? 0,
  };
  return { files: built.files, entry: built.entry, summary };
}
