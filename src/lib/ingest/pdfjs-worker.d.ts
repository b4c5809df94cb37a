/** pdf.js's worker code, imported for its side effect (it sets `globalThis.pdfjsWorker`); it ships no types. */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';
