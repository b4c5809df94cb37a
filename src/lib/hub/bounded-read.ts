/**
 * The one bounded reader of a download body (browser and CLI): a declared size (Content-Length, or what meta.json
 * says) is checked against the file kind's limit (`download-limits.ts`) before the first byte is read, and a body
 * without one is read chunk by chunk and cancelled as soon as the running total passes the limit, so memory stays
 * near the limit, never the body. Over the limit is one {@link DownloadLimitError} naming the file, the limit and
 * what was seen.
 */
import { checkDeclaredSize, DOWNLOAD_LIMITS, DownloadLimitError, kindOf, type DownloadKind } from './download-limits.ts';

export interface BoundedOptions {
  /** Repo-relative name for messages; its kind picks the limit unless `kind` or `limit` is given. */
  file: string;
  kind?: DownloadKind;
  /** Overrides the kind's limit (tests, callers with a tighter cap). */
  limit?: number;
  signal?: AbortSignal;
  /** Bytes so far and the total (declared, or the bytes so far when none). */
  onProgress?: (done: number, total: number) => void;
}

export const limitFor = (o: Pick<BoundedOptions, 'file' | 'kind' | 'limit'>) => o.limit ?? DOWNLOAD_LIMITS[o.kind ?? kindOf(o.file)];

/** The Content-Length a response declares, or null. */
export function declaredLength(res: Response): number | null {
  const h = res.headers.get('Content-Length');
  if (h === null || !/^\d+$/.test(h.trim())) return null;
  return Number(h);
}

/**
 * Appends the chunks of `body` to `chunks` while `already` + the bytes read stay within `limit`; cancels the stream
 * and throws a {@link DownloadLimitError} the moment they would not. Returns the bytes read from this body. A read
 * error (connection dropped, abort) propagates with the chunks read so far left in `chunks` (for a Range resume).
 */
export async function pumpBounded(
  body: ReadableStream<Uint8Array>, chunks: Uint8Array[],
  o: BoundedOptions & { already?: number; total?: number; onBytes?: (n: number) => void },
): Promise<number> {
  const limit = limitFor(o);
  const kind = o.kind ?? kindOf(o.file);
  const reader = body.getReader();
  let got = 0;
  const base = o.already ?? 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return got;
      if (base + got + value.byteLength > limit) {
        await reader.cancel().catch(() => {});
        throw new DownloadLimitError(o.file, limit, kind, { read: base + got + value.byteLength });
      }
      chunks.push(value);
      got += value.byteLength;
      o.onBytes?.(got);
      o.onProgress?.(base + got, o.total !== undefined && o.total >= 0 ? o.total : base + got);
    }
  } finally {
    reader.releaseLock();
  }
}

/** Joins chunks into one array of `n` bytes. */
export function concatChunks(chunks: Uint8Array[], n: number): Uint8Array {
  const c0 = chunks[0];
  if (chunks.length === 1 && c0 && c0.byteOffset === 0 && c0.buffer.byteLength === n) return c0;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}

/**
 * The body of `res`, at most the limit of `o.file`'s kind: a declared Content-Length over it is refused with no byte
 * read, an undeclared body is cut at it.
 */
export async function readBounded(res: Response, o: BoundedOptions): Promise<Uint8Array> {
  const limit = limitFor(o);
  const kind = o.kind ?? kindOf(o.file);
  const declared = declaredLength(res);
  if (declared !== null) {
    try {
      checkDeclaredSize(o.file, declared, 'the server (Content-Length)', kind, limit);
    } catch (e) {
      await res.body?.cancel().catch(() => {});
      throw e;
    }
  }
  if (!res.body) {
    // No stream to read from (a Response built from a buffer): the body is in memory already; check it all the same.
    const b = new Uint8Array(await res.arrayBuffer());
    if (b.byteLength > limit) throw new DownloadLimitError(o.file, limit, kind, { read: b.byteLength });
    return b;
  }
  const chunks: Uint8Array[] = [];
  const n = await pumpBounded(res.body, chunks, { ...o, limit, kind, ...(declared !== null ? { total: declared } : {}) });
  return concatChunks(chunks, n);
}

/** The body of `res` as UTF-8 text (invalid bytes replaced), bounded as {@link readBounded}. */
export async function readBoundedText(res: Response, o: BoundedOptions): Promise<string> {
  return new TextDecoder().decode(await readBounded(res, o));
}

/** The body of `res` parsed as JSON, bounded as {@link readBounded}; malformed JSON throws SyntaxError as `res.json()`. */
export async function readBoundedJson(res: Response, o: BoundedOptions): Promise<unknown> {
  return JSON.parse(await readBoundedText(res, o)) as unknown;
}
