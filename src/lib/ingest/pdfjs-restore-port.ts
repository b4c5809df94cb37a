/** Evaluated right after pdf.js's worker code: the worker's own `postMessage` again (see `pdfjs-hide-port.ts`). */
import { hiddenPostMessage } from './pdfjs-hide-port.ts';

if (hiddenPostMessage) Object.defineProperty(globalThis, 'postMessage', hiddenPostMessage);
else if (hiddenPostMessage === null) delete (globalThis as { postMessage?: unknown }).postMessage;
