/**
 * Evaluated just before pdf.js's worker code (see `pdfjs.ts`). That code, loaded in a Web Worker, takes the worker
 * for pdf.js's own dedicated worker: it starts listening on `self` and posts a "ready" message to the page. We run it
 * in the same thread instead, so for the moment of its evaluation `self.postMessage` is hidden, and
 * `pdfjs-restore-port.ts` puts it back right after (a worker's global `postMessage` is an own property of the global
 * object, so it is redefined and restored, not shadowed). Module evaluation is synchronous: nothing runs in between.
 */
const scope = globalThis as { postMessage?: unknown; window?: unknown };
const inWorker = typeof scope.window === 'undefined' && typeof scope.postMessage === 'function' && 'onmessage' in globalThis;

/** What was hidden (the own property, or null when it was inherited), or undefined when nothing was. */
export const hiddenPostMessage: PropertyDescriptor | null | undefined = inWorker ? (Object.getOwnPropertyDescriptor(globalThis, 'postMessage') ?? null) : undefined;
if (inWorker) Object.defineProperty(globalThis, 'postMessage', { value: undefined, configurable: true, writable: true });
