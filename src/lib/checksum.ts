/** SHA-256 (Web Crypto, in browsers, workers and Node) of strings and typed arrays, as hex. */

type Part = string | ArrayBufferView;

export async function sha256Hex(...parts: Part[]): Promise<string> {
  const enc = new TextEncoder();
  const views = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : new Uint8Array(p.buffer, p.byteOffset, p.byteLength)));
  // One part is digested in place (a 25 MB vector file is not copied first).
  const all = views.length === 1 ? views[0]! : concat(views);
  const digest = await crypto.subtle.digest('SHA-256', all as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function concat(views: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(views.reduce((a, v) => a + v.byteLength, 0));
  let at = 0;
  for (const v of views) { all.set(v, at); at += v.byteLength; }
  return all;
}

/**
 * Hashes computed a moment ago, by the identity of the bytes: a source that has just checked a download (or a cache
 * record) against its SHA-256 vouches for it, and the artifact reader that receives the same array takes the hash
 * instead of hashing the file a second time (a third, for a download that is also cached). A vouch is taken once:
 * the array may be changed by whoever holds it afterwards, so a later read hashes again.
 */
const vouched = new WeakMap<Uint8Array, string>();

export function vouchSha256(bytes: Uint8Array, hex: string): Uint8Array {
  vouched.set(bytes, hex.toLowerCase());
  return bytes;
}

/** The SHA-256 of `bytes`: the vouched one when `take` finds it (and forgets it), else computed. */
export async function sha256Of(bytes: Uint8Array, { take = true }: { take?: boolean } = {}): Promise<string> {
  const known = vouched.get(bytes);
  if (known !== undefined) {
    if (take) vouched.delete(bytes);
    return known;
  }
  return sha256Hex(bytes);
}
