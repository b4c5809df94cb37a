/// <reference path="./pdfjs-worker.d.ts" />
/**
 * pdf.js for text extraction in this thread: the legacy build (Node 20, older browsers) with its worker code
 * evaluated here (it sets `globalThis.pdfjsWorker`, which pdf.js then uses through a loopback port, so no worker
 * URL is needed). The imports are evaluated in this order: hide `postMessage`, pdf.js's worker code, restore it.
 * Imported dynamically by `pdf-text.ts`, so builds without a PDF never load pdf.js.
 */
import './pdfjs-hide-port.ts';
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import './pdfjs-restore-port.ts';

export { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
