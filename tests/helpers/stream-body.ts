/**
 * A huge HTTP body that is never held in memory: generated 64 KiB at a time as the client reads, so a test can
 * answer with "600 MB" and see how much the client really took before it stopped (`rec.bytes`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface StreamFault {
  kind: 'stream';
  path: string;
  /** Body bytes to send at most. */
  bytes: number;
  /** The Content-Length to declare (none: a chunked body of undeclared size). */
  declare?: number;
  /** The byte repeated (default a space). */
  fill?: number;
  times?: number;
  /** Waits this long between chunks (a trickling download). */
  everyMs?: number;
  /** Set by the server: the client went away before the body ended. */
  gone?: boolean;
}

/** Writes a `stream` fault's body lazily (64 KiB at a time, waiting for drain) until done or the client leaves. */
export async function streamBody(req: IncomingMessage, res: ServerResponse, rec: { status: number; bytes: number }, f: StreamFault): Promise<void> {
  rec.status = 200;
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', ...(f.declare !== undefined ? { 'Content-Length': String(f.declare) } : {}) });
  if (req.method === 'HEAD') { res.end(); return; }
  const chunk = Buffer.alloc(64 * 1024, f.fill ?? 0x20);
  let gone = false;
  res.on('close', () => { gone = true; if (rec.bytes < f.bytes) f.gone = true; });
  while (!gone && rec.bytes < f.bytes) {
    const part = chunk.subarray(0, Math.min(chunk.byteLength, f.bytes - rec.bytes));
    if (f.everyMs) await new Promise((ok) => setTimeout(ok, f.everyMs));
    if (gone) break;
    rec.bytes += part.byteLength;
    if (!res.write(part)) await new Promise<void>((ok) => { res.once('drain', ok); res.once('close', ok); });
  }
  if (!gone) res.end();
}

