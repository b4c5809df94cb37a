/** Bytes for the loopback Hub (hub-repo-server.ts): a folder read into a file map, the Hub's hashes, a request body. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';

export function readFolder(dir: string, prefix = '', out = new Map<string, Uint8Array>()): Map<string, Uint8Array> {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    if (d.isDirectory()) readFolder(join(dir, d.name), `${prefix}${d.name}/`, out);
    else if (d.isFile()) out.set(prefix + d.name, new Uint8Array(readFileSync(join(dir, d.name))));
  }
  return out;
}

export const sha1 = (s: string | Uint8Array) => createHash('sha1').update(s).digest('hex');
export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** Git's blob oid: sha1 of "blob <size>\0<bytes>". */
export const blobOid = (b: Uint8Array) => createHash('sha1').update(`blob ${b.byteLength}\0`).update(b).digest('hex');

export async function body(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
