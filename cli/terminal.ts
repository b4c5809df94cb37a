/**
 * What the CLI writes to a terminal: text from data and models may hold control characters (ESC sequences that
 * recolour, move the cursor or retitle the window, C1 controls, bidi overrides that reorder what is shown). On a
 * terminal they are written escaped; to a pipe or file the bytes stay as they are.
 */

/**
 * C0 controls except \t and \n, DEL, C1 controls, and the bidi controls (ALM, LRM/RLM, LRE…RLO, LRI…PDI).
 * ESC is among the C0 controls, so escaping it defuses every ESC sequence.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Each control character as `\uXXXX`. That is also JSON's escape, so a JSON line stays the same JSON (the
 * characters it leaves raw inside strings, C1, DEL and bidi controls, read back as themselves).
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

type Write = NodeJS.WriteStream['write'];

const RAW = Symbol('raw write');

/**
 * Writes `text` unescaped (a progress bar's `\r` and erase-line), bypassing the escaping of a guarded terminal
 * stream. Only for text the CLI itself composed, never for text from data or models.
 */
export function writeRaw(stream: NodeJS.WriteStream, text: string): void {
  const raw = (stream as unknown as { [RAW]?: (t: string) => boolean })[RAW];
  if (raw) raw(text);
  else stream.write(text);
}

/**
 * Makes `stream` (stdout or stderr) escape control characters when it is a terminal, and hands every write
 * error (EPIPE, ENOSPC…) to `onError`, including those console.log would swallow and those thrown synchronously.
 */
export function guardOutput(stream: NodeJS.WriteStream, onError: (e: NodeJS.ErrnoException) => void): void {
  const escape = stream.isTTY === true;
  const write = stream.write.bind(stream) as (chunk: unknown, encoding?: unknown, cb?: unknown) => boolean;
  stream.on('error', onError);
  (stream as unknown as { [RAW]: (t: string) => boolean })[RAW] = (t: string) => {
    try {
      return write(t, undefined, (err?: Error | null) => { if (err) onError(err as NodeJS.ErrnoException); });
    } catch (e) {
      onError(e as NodeJS.ErrnoException);
      return false;
    }
  };
  stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
    const callback = typeof encoding === 'function' ? encoding : cb;
    const enc = typeof encoding === 'function' ? undefined : encoding;
    const text = escape && typeof chunk === 'string' ? escapeControl(chunk)
      : escape && chunk instanceof Uint8Array ? escapeControl(Buffer.from(chunk).toString('utf8'))
        : chunk;
    try {
      return write(text, enc, (err?: Error | null) => {
        if (err) onError(err as NodeJS.ErrnoException);
        if (typeof callback === 'function') (callback as (e?: Error | null) => void)(err);
      });
    } catch (e) {
      onError(e as NodeJS.ErrnoException);
      return false;
    }
  }) as Write;
}
