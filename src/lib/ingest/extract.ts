/**
 * Files → documents, for the Build tab and `rag-lab build-index --data <folder>` alike: PDF (text layer per page via
 * pdfjs-dist, page numbers kept), TXT, MD and HTML; every file that cannot be used is listed with its reason while the
 * others are used.
 *
 * - A PDF gives one document per page with text: id `<path>#p<N>`, title `<PDF title or file name>, p. <N>`, meta
 *   `{ file, page, format: 'pdf' }`. Pages without a text layer are counted in a note; a PDF with none is skipped
 *   (no OCR). Encrypted, corrupt and zero-page PDFs are skipped with their reason.
 * - TXT / MD / HTML give one document each, meta `{ file, format }`; titles follow `src/lib/data/text-folder.ts`
 *   (Markdown: the first heading; HTML: `<title>` or the first `<h1>`; else the file name). The text of TXT and MD
 *   files is the file's text as it is; HTML's is its visible text.
 * - Text is UTF-8 (strict), UTF-16 with a mark, or else read as Windows-1252 with a note; binary data, empty files,
 *   other extensions and files over the limits (`limits.ts`) are skipped.
 * - Two files with the same path are both kept; the second is named `<path> (2)` (a note says so).
 * Documents come in path order (code-unit order), so the same files give the same knowledge base everywhere.
 * Everything here is linear in the number of files; progress is reported per file (and per PDF page).
 */
import type { InputFile, OnBuildProgress, SkippedItem, SourceDocuments } from '../data/source-documents.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import type { MetaField } from '../data/kb-source.ts';
import { fileTitle, firstMarkdownHeading } from '../data/text-folder.ts';
import { BINARY_REASON, decodeText } from './decode.ts';
import { fileFormatOf, normalisePath, UNKNOWN_FORMAT, type FileFormat } from './formats.ts';
import { htmlToText } from './html-text.ts';
import { DEFAULT_INGEST_LIMITS, fileCountLimitReason, sizeLimitReason, totalLimitReason, type IngestLimits } from './limits.ts';
import { PdfError, pdfText } from './pdf-text.ts';

export interface IngestOptions {
  signal?: AbortSignal;
  /** Progress of stage `extract`, per file (`item` = its path). */
  onProgress?: OnBuildProgress;
  /** Limits other than the defaults (`DEFAULT_INGEST_LIMITS`). */
  limits?: Partial<IngestLimits>;
}

export const EMPTY_REASON = 'empty file';
export const NO_TEXT_LAYER_REASON = 'no text layer (scanned or image-only PDF; RAG Lab does no OCR)';

/** The metadata fields of file documents (`page` only when a PDF gave documents). */
export function fileFields(withPages: boolean): MetaField[] {
  return [
    { name: 'file', label: 'File', type: 'string' },
    ...(withPages ? [{ name: 'page', label: 'Page', type: 'number', facet: false } satisfies MetaField] : []),
    { name: 'format', label: 'Format', type: 'string' },
  ];
}

interface Entry { id: string; path: string; bytes: Uint8Array; format: FileFormat | null }

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Sorted entries, a duplicate path renamed `<path> (2)`, `(3)`, … (never to another file's path). */
function entries(files: readonly InputFile[], notes: string[]): Entry[] {
  const list = files.map((f) => ({ path: normalisePath(f.path), bytes: f.bytes }));
  list.sort(byPath); // stable: of two equal paths, the first given keeps its name
  const taken = new Set(list.map((f) => f.path));
  const seen = new Set<string>();
  const renamed: string[] = [];
  const out: Entry[] = [];
  for (const f of list) {
    let id = f.path;
    if (seen.has(id)) {
      let n = 2;
      while (taken.has(`${f.path} (${n})`)) n++;
      id = `${f.path} (${n})`;
      taken.add(id);
      renamed.push(`"${id}"`);
    }
    seen.add(id);
    out.push({ id, path: f.path, bytes: f.bytes, format: fileFormatOf(f.path) });
  }
  if (renamed.length > 0) notes.push(`files with the same path were all kept; the later ones are named ${listSome(renamed)}`);
  return out;
}

/** "a, b, c" or "a, b, c, … and 7 more". */
function listSome(items: readonly string[], max = 5): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')}, … and ${items.length - max} more`;
}

/** Lets a worker see a cancel message (and a page paint) during long synchronous stretches. */
const macrotask = () => new Promise<void>((ok) => setTimeout(ok, 0));

/** Files → documents (see the module comment). Aborting `signal` rejects with its reason (an AbortError). */
export async function extractDocuments(files: readonly InputFile[], opts: IngestOptions = {}): Promise<SourceDocuments> {
  const limits: IngestLimits = { ...DEFAULT_INGEST_LIMITS, ...opts.limits };
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const notes: string[] = [];
  const docs: SourceDocument[] = [];
  const skipped: SkippedItem[] = [];
  const charsetGuessed: string[] = [];
  const list = entries(files, notes);
  let pages = 0, taken = 0, takenBytes = 0, allBytes = 0;
  let lastYield = performance.now();
  const total = list.length;
  for (let i = 0; i < total; i++) {
    const f = list[i]!;
    allBytes += f.bytes.byteLength;
    signal?.throwIfAborted();
    onProgress?.({ stage: 'extract', done: i, total, item: f.id });
    if (performance.now() - lastYield > 25) {
      await macrotask();
      lastYield = performance.now();
      signal?.throwIfAborted();
    }
    const skip = (reason: string) => { skipped.push({ path: f.id, reason }); };
    if (!f.format) { skip(UNKNOWN_FORMAT); continue; }
    const tooLarge = sizeLimitReason(f.format, f.bytes.byteLength, limits);
    if (tooLarge) { skip(tooLarge); continue; }
    if (taken >= limits.maxFiles) { skip(fileCountLimitReason(limits)); continue; }
    if (takenBytes + f.bytes.byteLength > limits.maxTotalBytes) { skip(totalLimitReason(limits)); continue; }
    taken++;
    takenBytes += f.bytes.byteLength;

    if (f.format === 'pdf') {
      let pdf;
      try {
        pdf = await pdfText(f.bytes, {
          ...(signal ? { signal } : {}),
          onPage: (p, n) => onProgress?.({ stage: 'extract', done: i, total, item: `${f.id}, p. ${p} of ${n}` }),
        });
      } catch (e) {
        if (e instanceof PdfError) { skip(e.reason); continue; }
        if (signal?.aborted) throw signal.reason;
        skip(`not a readable PDF (${e instanceof Error ? e.message : String(e)})`);
        continue;
      }
      if (pdf.pages.length === 0) {
        skip(pdf.failedPages.length === pdf.numPages ? `not a readable PDF (no page could be read: ${pdf.failedPages[0]?.reason})` : NO_TEXT_LAYER_REASON);
        continue;
      }
      pages += pdf.numPages;
      const title = pdf.title ?? fileTitle(f.path);
      for (const p of pdf.pages) {
        docs.push({ id: `${f.id}#p${p.page}`, title: `${title}, p. ${p.page}`, text: p.text, meta: { file: f.id, page: p.page, format: 'pdf' } });
      }
      if (pdf.emptyPages > 0) notes.push(`${f.id}: ${pdf.emptyPages} of ${pdf.numPages} pages have no text layer and were left out (RAG Lab does no OCR)`);
      if (pdf.failedPages.length > 0) {
        notes.push(`${f.id}: ${pdf.failedPages.length} of ${pdf.numPages} pages could not be read and were left out (p. ${pdf.failedPages[0]!.page}: ${pdf.failedPages[0]!.reason})`);
      }
      lastYield = performance.now();
      continue;
    }

    const decoded = decodeText(f.bytes);
    if (decoded.kind === 'binary') { skip(BINARY_REASON); continue; }
    if (decoded.guessed) charsetGuessed.push(f.id);
    let { text } = decoded;
    let title: string | null = null;
    if (f.format === 'html') ({ text, title } = htmlToText(text));
    else if (f.format === 'md') title = firstMarkdownHeading(text);
    if (!text.trim()) { skip(f.format === 'html' && decoded.text.trim() ? `${EMPTY_REASON} (the HTML has no visible text)` : EMPTY_REASON); continue; }
    docs.push({ id: f.id, title: title ?? fileTitle(f.path), text, meta: { file: f.id, format: f.format } });
  }
  onProgress?.({ stage: 'extract', done: total, total });
  if (charsetGuessed.length > 0) {
    notes.push(`not UTF-8, read as Windows-1252: ${listSome(charsetGuessed)} (if letters look wrong, save ${charsetGuessed.length === 1 ? 'it' : 'them'} as UTF-8 and add ${charsetGuessed.length === 1 ? 'it' : 'them'} again)`);
  }
  return {
    docs, fields: fileFields(pages > 0), pages, skipped, notes,
    origin: { kind: 'files', files: files.length, bytes: allBytes },
  };
}
