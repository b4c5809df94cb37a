/**
 * The one bounded reader of a download body (browser and CLI): a declared size (Content-Length, or what meta.json
 * says) is checked against the file kind's limit (`download-limits.ts`) before the first byte is read, and a body
 * without one is read chunk by chunk ({@link ByteSink}) and cancelled as soon as the running total passes the limit, so
 * memory stays near the limit, never the body; a body whose first bytes say it is not its kind's file (a "parquet"
 * not starting with PAR1) stops at its first chunk, never read whole. Over the limit is one {@link DownloadLimitError} naming the file, the limit and
 * what was seen.
 */
import { checkDeclaredSize, DOWNLOAD_LIMITS, DownloadLimitError, kindOf, MAGIC, NotThatFileError, type DownloadKind } from './download-limits.ts';

export interface BoundedOptions {
  /** Repo-relative name for messages; its kind picks the limit unless `kind` or `limit` is given. */
  file: string;
  kind?: DownloadKind;
  /** Overrides the kind's limit (tests, callers with a tighter cap). */
  limit?: number;
  signal?: AbortSignal;
  /** Bytes so far and the total (declared, or the bytes so far when none). */
  onProgress?: (done: number, total: number) => void;
  /** The body must start as its kind's files do ({@link MAGIC}), else it stops at its first chunk: for a file with no size or hash to check it by (seed A). */
  sniff?: boolean;
  /** Bytes the reader holds at each chunk (the body so far and the chunk in hand): tests count them. */
  onHeld?: (bytes: number) => void;
}

export const limitFor = (o: Pick<BoundedOptions, 'file' | 'kind' | 'limit'>) => o.limit ?? DOWNLOAD_LIMITS[o.kind ?? kindOf(o.file)];

/** The Content-Length a response declares, or null. */
export function declaredLength(res: Response): number | null {
  const h = res.headers.get('Content-Length');
  if (h === null || !/^\d+$/.test(h.trim())) return null;
  return Number(h);
}

/**
 * Where a body's bytes go. A body of known size (Content-Length, meta.json) is copied into one buffer of that size as
 * it arrives: the reader holds the body plus the chunk in hand, never a list of chunks joined at the end (which held
 * it twice). A body of unknown size is kept as its chunks (at most the limit, as `pumpBounded` stops there) and joined
 * once when it ends; more than the declared size falls back to that.
 */
export class ByteSink {
  private fixed: Uint8Array | null;
  private chunks: Uint8Array[] = [];
  length = 0;
  constructor(limit: number, total?: number) {
    this.fixed = total !== undefined && total > 0 && total <= limit ? new Uint8Array(total) : null;
  }
  /** Bytes the sink holds now. */
  get held(): number { return this.fixed ? this.fixed.byteLength : this.length; }
  push(chunk: Uint8Array): void {
    if (this.fixed && this.length + chunk.byteLength > this.fixed.byteLength) {
      this.chunks = [this.fixed.slice(0, this.length)];
      this.fixed = null;
    }
    if (this.fixed) this.fixed.set(chunk, this.length);
    else this.chunks.push(chunk);
    this.length += chunk.byteLength;
  }
  /** The first `n` bytes held (fewer while fewer are), without copying the rest. */
  head(n: number): Uint8Array {
    if (this.fixed) return this.fixed.subarray(0, Math.min(n, this.length));
    const c0 = this.chunks[0];
    if (!c0 || c0.byteLength >= n || this.chunks.length === 1) return (c0 ?? new Uint8Array(0)).subarray(0, n);
    const out = new Uint8Array(Math.min(n, this.length));
    let at = 0;
    for (const c of this.chunks) { if (at >= out.length) break; const part = c.subarray(0, out.length - at); out.set(part, at); at += part.byteLength; }
    return out;
  }
  /** Starts over (a server that ignored a Range request sends the whole body again). */
  reset(): void { this.length = 0; this.chunks = []; }
  /** The bytes read (a body of known size: without a copy). */
  bytes(): Uint8Array {
    if (this.fixed) return this.length === this.fixed.byteLength ? this.fixed : this.fixed.slice(0, this.length);
    const c0 = this.chunks[0];
    if (this.chunks.length === 1 && c0 && c0.byteOffset === 0 && c0.buffer.byteLength === this.length) return c0;
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) { out.set(c, at); at += c.byteLength; }
    this.chunks = [out];
    return out;
  }
}

/**
 * Appends the chunks of `body` to `sink` while `already` + the bytes read stay within `limit`; cancels the stream
 * and throws a {@link DownloadLimitError} the moment they would not. With `sniff`, a body read from its first byte
 * (`already` 0) whose kind has a {@link MAGIC} and starts otherwise is cancelled at its first chunk with a
 * {@link NotThatFileError}. Returns the bytes read from this body. A read error (connection dropped, abort)
 * propagates with the bytes read so far left in `sink` (for a Range resume). `onHeld` (tests) hears the bytes held
 * at each chunk: the sink's and the chunk in hand.
 */
export async function pumpBounded(
  body: ReadableStream<Uint8Array>, sink: ByteSink,
  o: BoundedOptions & { already?: number; total?: number; onBytes?: (n: number) => void },
): Promise<number> {
  const limit = limitFor(o);
  const kind = o.kind ?? kindOf(o.file);
  const magic = o.sniff && !o.already ? MAGIC[kind] : undefined;
  const reader = body.getReader();
  let got = 0;
  const base = o.already ?? 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) { if (magic) checkMagic(o.file, sink, magic, got, true); return got; }
      o.onHeld?.(sink.held + value.byteLength);
      if (base + got + value.byteLength > limit) {
        await reader.cancel().catch(() => {});
        throw new DownloadLimitError(o.file, limit, kind, { read: base + got + value.byteLength });
      }
      sink.push(value);
      got += value.byteLength;
      if (magic && !checkMagic(o.file, sink, magic, got, false)) { await reader.cancel().catch(() => {}); checkMagic(o.file, sink, magic, got, true); }
      o.onBytes?.(got);
      o.onProgress?.(base + got, o.total !== undefined && o.total >= 0 ? o.total : base + got);
    }
  } finally {
    reader.releaseLock();
  }
}

/** Whether the sink's first bytes can still be `magic`'s (too few yet: true unless `final`); `final` throws on a mismatch. */
function checkMagic(file: string, sink: ByteSink, magic: NonNullable<(typeof MAGIC)[DownloadKind]>, read: number, final: boolean): boolean {
  const head = sink.head(magic.bytes.length);
  const ok = head.every((b, i) => b === magic.bytes[i]) && (head.length === magic.bytes.length || (!final && head.length < magic.bytes.length));
  if (!ok && final) throw new NotThatFileError(file, magic.name, read);
  return ok;
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
  const sink = new ByteSink(limit, declared ?? undefined);
  await pumpBounded(res.body, sink, { ...o, limit, kind, ...(declared !== null ? { total: declared } : {}) });
  return sink.bytes();
}

/** The body of `res` as UTF-8 text (invalid bytes replaced), bounded as {@link readBounded}. */
export async function readBoundedText(res: Response, o: BoundedOptions): Promise<string> {
  return new TextDecoder().decode(await readBounded(res, o));
}

/** The body of `res` parsed as JSON, bounded as {@link readBounded}; malformed JSON throws SyntaxError as `res.json()`. */
export async function readBoundedJson(res: Response, o: BoundedOptions): Promise<unknown> {
  return JSON.parse(await readBoundedText(res, o)) as unknown;
}
