/// <reference path="./pdfjs-worker.d.ts" />
/**
 * A PDF's text, page by page, through pdfjs-dist's legacy build (it runs on Node 20 and in a module worker). The
 * pdf.js worker code runs in this same thread (importing `pdf.worker.mjs` sets `globalThis.pdfjsWorker`, which
 * pdf.js then uses through a loopback port), so no worker URL has to be resolved and nothing touches a DOM. Only
 * text is read: no fonts are loaded, nothing is rendered, eval is off. pdf.js is loaded on the first PDF, so
 * text-only builds never load it.
 */
import { pageText, type PdfTextItem } from './pdf-layout.ts';

export interface PdfPage {
  /** 1-based page number. */
  page: number;
  text: string;
}

export interface PdfText {
  /** The document information's Title when it is a meaningful title, else null. */
  title: string | null;
  numPages: number;
  /** The pages that have text, in order. */
  pages: PdfPage[];
  /** Pages without a text layer (scanned, image-only or blank). */
  emptyPages: number;
  /** Pages pdf.js could not read (their number and the reason). */
  failedPages: { page: number; reason: string }[];
}

/** A PDF that cannot be read at all; `reason` is the sentence shown for the skipped file. */
export class PdfError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PdfError';
  }
}

export const ENCRYPTED_REASON = 'encrypted (password-protected) PDF: remove the password and add it again';
export const NO_PAGES_REASON = 'the PDF has no pages';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<Pdfjs> | null = null;

function loadPdfjs(): Promise<Pdfjs> {
  pdfjs ??= (async () => {
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

/** Document-information titles that name no document (producers' defaults, file names). */
const MEANINGLESS_TITLE = /^(untitled|title|document\d*|microsoft word - .*|presentation\d*|slide \d+|\s*)$|\.(docx?|pdf|tex|dvi|ps|rtf|odt|indd|qxd|pages)$/i;

/** The info Title if it names the document: not empty, not a producer's default or a file name, of sane length. */
export function meaningfulTitle(title: unknown): string | null {
  if (typeof title !== 'string') return null;
  const t = title.replace(/\s+/g, ' ').trim();
  if (t.length < 2 || t.length > 300 || MEANINGLESS_TITLE.test(t) || !/\p{L}/u.test(t)) return null;
  return t;
}

const errorName = (e: unknown) => (e && typeof e === 'object' && 'name' in e ? String(e.name) : '');
const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim().replace(/\.$/, '');

export interface PdfTextOptions {
  signal?: AbortSignal;
  /** After each page: pages done, pages in the PDF. */
  onPage?: (done: number, total: number) => void;
}

/** The text of every page of a PDF (see the module comment). Throws PdfError for a PDF that cannot be read. */
export async function pdfText(bytes: Uint8Array, opts: PdfTextOptions = {}): Promise<PdfText> {
  const { getDocument } = await loadPdfjs();
  // pdf.js may transfer the buffer it is given (the loopback port clones with transfer): give it a copy.
  const task = getDocument({
    data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, useWorkerFetch: false,
    isOffscreenCanvasSupported: false, stopAtErrors: false, verbosity: 0,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => {});
    if (errorName(e) === 'PasswordException') throw new PdfError(ENCRYPTED_REASON);
    if (/page count|no pages/i.test(errorMessage(e))) throw new PdfError(NO_PAGES_REASON);
    throw new PdfError(`not a readable PDF (${errorMessage(e)})`);
  }
  try {
    const numPages = doc.numPages;
    if (numPages === 0) throw new PdfError(NO_PAGES_REASON);
    const info = await doc.getMetadata().then((m) => m.info as Record<string, unknown>, () => ({} as Record<string, unknown>));
    const out: PdfText = { title: meaningfulTitle(info['Title']), numPages, pages: [], emptyPages: 0, failedPages: [] };
    for (let p = 1; p <= numPages; p++) {
      opts.signal?.throwIfAborted();
      try {
        const page = await doc.getPage(p);
        const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
        const text = pageText(content.items.filter((it): it is PdfTextItem & typeof it => 'str' in it));
        page.cleanup();
        if (text) out.pages.push({ page: p, text });
        else out.emptyPages++;
      } catch (e) {
        out.failedPages.push({ page: p, reason: errorMessage(e) });
      }
      opts.onPage?.(p, numPages);
    }
    return out;
  } finally {
    await doc.destroy();
  }
}
