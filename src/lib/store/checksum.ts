/** SHA-256 (Web Crypto, in browsers, workers and Node) of strings and typed arrays, as hex. */

type Part = string | ArrayBufferView;

export async function sha256Hex(...parts: Part[]): Promise<string> {
  const enc = new TextEncoder();
  const views = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : new Uint8Array(p.buffer, p.byteOffset, p.byteLength)));
  const total = views.reduce((a, v) => a + v.byteLength, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const v of views) { all.set(v, at); at += v.byteLength; }
  const digest = await crypto.subtle.digest('SHA-256', all);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
