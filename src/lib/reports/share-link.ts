/**
 * Share links (docs/reports.md, "Share links"): a report in the URL fragment, or a reference to a report file in a
 * Hub dataset repo at a commit.
 *
 *   #r=v1.<base64url(deflate-raw(JSON))>           a report (a summary of one, share-summary.ts) inline
 *   #ref=<owner>/<repo>@<40-hex sha>/reports/report_<id>.json   the full report, immutable at that commit
 *
 * The fragment never reaches a server, so only the browser's URL cap (2 MB in Chromium) and copy-paste channels
 * limit it. A link is attacker-controlled input: decoding is capped at every step (fragment length, decoded bytes
 * read out of the DecompressionStream, so a decompression bomb stops early), then JSON.parse and `parseReport`
 * (which refuses `__proto__`, other versions, NaN/∞, oversized texts and secrets). A link only ever yields a report
 * to show: what to do with it is the UI's choice, and nothing in a report changes a setting.
 *
 * Uses CompressionStream / DecompressionStream and atob/btoa only: Node ≥ 18 and every current browser.
 */
import { parseReport, REPORT_ID, type Report } from './format.ts';
import { reportPathId } from './report-path.ts';

/** The inline payload's version (the `v1.` prefix); a newer app may write `v2.`. */
export const SHARE_LINK_VERSION = 1;

export const SHARE_LINK_LIMITS = {
  /** Characters of a fragment this app decodes (Chromium's URL cap is 2 MB). */
  fragmentChars: 2 * 1024 * 1024,
  /** Bytes read out of the DecompressionStream before giving up (a decompression bomb stops here). */
  decodedBytes: 4 * 1024 * 1024,
  /** The size a link made here aims to stay under (characters of `#r=v1.…`): what chat apps and mail keep whole. */
  budget: 8000,
} as const;

const INLINE = 'r=';
const REF = 'ref=';

/** A report file in a Hub dataset repo at a commit. */
export interface ReportRef {
  /** owner/name of a dataset repo. */
  repo: string;
  /** 40 lower-case hex digits. */
  commit: string;
  /** `reports/report_<id>.json`. */
  path: string;
}

/** What a page's fragment holds. */
export type SharedLink =
  | { kind: 'none' }
  | { kind: 'inline'; report: Report }
  | { kind: 'ref'; ref: ReportRef }
  | { kind: 'error'; message: string };

// ---- base64url ----

/** base64url without padding; chunked so a large array never overflows the call stack of String.fromCharCode. */
export function toBase64Url(bytes: Uint8Array): string {
  let out = '';
  const CHUNK = 0x6000; // a multiple of 3: every chunk but the last encodes without padding
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const part = bytes.subarray(i, i + CHUNK);
    let s = '';
    for (let j = 0; j < part.length; j += 4096) s += String.fromCharCode(...part.subarray(j, j + 4096));
    out += btoa(s);
  }
  return out.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url text (no padding needed), or null when it is not base64url. */
export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    return null;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// ---- deflate-raw ----

async function collect(stream: ReadableStream<Uint8Array>, cap: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}

/** A one-chunk stream of `bytes` (copied when they sit in a SharedArrayBuffer, which the streams refuse). */
const streamOf = (bytes: Uint8Array): ReadableStream<BufferSource> =>
  new ReadableStream<BufferSource>({ start(c) { c.enqueue(bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice()); c.close(); } });

export async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const out = await collect(streamOf(bytes).pipeThrough(new CompressionStream('deflate-raw')), Number.MAX_SAFE_INTEGER);
  return out!;
}

/**
 * Inflates `bytes`, reading at most `cap` bytes of output: null when the output would be larger (the stream is
 * cancelled there, so a bomb costs at most `cap` bytes of work). Rejects when the data is not deflate-raw.
 */
export async function inflateRawCapped(bytes: Uint8Array, cap: number): Promise<Uint8Array | null> {
  return collect(streamOf(bytes).pipeThrough(new DecompressionStream('deflate-raw')), cap);
}

// ---- inline reports ----

/** The fragment (without `#`) that carries `report` inline: `r=v1.<payload>`. Compact JSON, deflate-raw, base64url. */
export async function encodeReportFragment(report: Report): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(report));
  return `${INLINE}v${SHARE_LINK_VERSION}.${toBase64Url(await deflateRaw(json))}`;
}

const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;

/** The report an `r=` fragment's value (`v1.<payload>`) carries, or why it cannot be opened. */
export async function decodeReportPayload(value: string, caps: { decodedBytes?: number } = {}): Promise<{ ok: true; report: Report } | { ok: false; message: string }> {
  const m = /^v(\d{1,6})\.(.*)$/s.exec(value);
  if (!m) return { ok: false, message: 'The share link is damaged: its report part does not start with a version (v1.). Ask for the link again.' };
  const ver = Number(m[1]);
  if (ver > SHARE_LINK_VERSION) return { ok: false, message: `The share link was made by a newer RAG Lab (link format v${ver}; this app reads v${SHARE_LINK_VERSION}): open it with a newer RAG Lab.` };
  if (ver !== SHARE_LINK_VERSION) return { ok: false, message: `The share link has an unknown format version v${ver} (this app reads v${SHARE_LINK_VERSION}).` };
  const bytes = fromBase64Url(m[2]!);
  if (!bytes || bytes.length === 0) return { ok: false, message: 'The share link is damaged: its report part is not base64url text (it may have been cut or changed when copied). Ask for the link again.' };
  const cap = caps.decodedBytes ?? SHARE_LINK_LIMITS.decodedBytes;
  let raw: Uint8Array | null;
  try {
    raw = await inflateRawCapped(bytes, cap);
  } catch {
    return { ok: false, message: 'The share link is damaged: its report part does not decompress (it may have been cut when copied). Ask for the link again.' };
  }
  if (!raw) return { ok: false, message: `The share link was refused: its report decompresses to more than ${kb(cap)}, more than a share link holds.` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return { ok: false, message: 'The share link is damaged: its report is not UTF-8 text.' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'The share link is damaged: its report is not JSON.' };
  }
  const parsed = parseReport(json);
  if (!parsed.ok) return { ok: false, message: `The share link's report cannot be opened. ${parsed.message}` };
  return parsed;
}

// ---- references to a report on the Hub ----

/** Hub repo names: letters, digits, `-`, `_`, `.`, at most 96 characters each part, no `..`, not starting or ending with `-`/`.`. */
const REPO_PART = /^(?![.-])[A-Za-z0-9._-]{1,96}(?<![.-])$/;
const COMMIT = /^[0-9a-f]{40}$/;

export function isRepoName(repo: string): boolean {
  const parts = repo.split('/');
  return parts.length === 2 && parts.every((p) => REPO_PART.test(p) && !p.includes('..'));
}

/** The path a report with id `id` has in a synced repo (seed A's layout, hub-layout.ts). */
export { reportPath } from './report-path.ts';

/** `ref=<owner>/<repo>@<sha>/<path>`, the fragment (without `#`) of a link to `ref`. Throws for an invalid ref. */
export function formatReportRef(ref: ReportRef): string {
  const problem = refProblem(ref);
  if (problem) throw new Error(`not a report reference: ${problem}`);
  return `${REF}${ref.repo}@${ref.commit}/${ref.path}`;
}

function refProblem(ref: ReportRef): string | null {
  if (!isRepoName(ref.repo)) return 'the repo must be owner/name (letters, digits, "-", "_", ".")';
  if (!COMMIT.test(ref.commit)) return 'the commit must be 40 lower-case hex digits';
  const id = reportPathId(ref.path);
  if (id === null || !REPORT_ID.test(id)) return 'the path must be reports/report_<id>.json';
  return null;
}

/** The reference a `ref=` fragment's value (`owner/repo@sha/path`) names, or why it is not one. */
export function parseReportRef(value: string): { ok: true; ref: ReportRef } | { ok: false; message: string } {
  let s = value;
  if (s.length > 400) return { ok: false, message: 'The report link is not valid: it is longer than a report reference can be.' };
  if (/%[0-9A-Fa-f]{2}/.test(s)) {
    try { s = decodeURIComponent(s); } catch { return { ok: false, message: 'The report link is not valid: it has broken %-escapes.' }; }
  }
  const m = /^([^@/]+\/[^@/]+)@([^/]+)\/(.+)$/.exec(s);
  if (!m) return { ok: false, message: 'The report link is not valid: expected #ref=<owner>/<repo>@<commit sha>/reports/report_<id>.json.' };
  const ref: ReportRef = { repo: m[1]!, commit: m[2]!, path: m[3]! };
  const problem = refProblem(ref);
  return problem ? { ok: false, message: `The report link is not valid: ${problem}.` } : { ok: true, ref };
}

// ---- the fragment as a whole ----

/** What `location.hash` (with or without `#`) holds: nothing of ours, an inline report, a reference, or an error. */
export async function readShareFragment(hash: string, caps: { fragmentChars?: number; decodedBytes?: number } = {}): Promise<SharedLink> {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!h.startsWith(INLINE) && !h.startsWith(REF)) return { kind: 'none' };
  const maxChars = caps.fragmentChars ?? SHARE_LINK_LIMITS.fragmentChars;
  if (h.length > maxChars) return { kind: 'error', message: `The share link was refused: it is ${kb(h.length)} long, more than the ${kb(maxChars)} a share link may be.` };
  if (h.startsWith(REF)) {
    const r = parseReportRef(h.slice(REF.length));
    return r.ok ? { kind: 'ref', ref: r.ref } : { kind: 'error', message: r.message };
  }
  const r = await decodeReportPayload(h.slice(INLINE.length), caps);
  return r.ok ? { kind: 'inline', report: r.report } : { kind: 'error', message: r.message };
}

/** Whether a hash is one of ours (a share link), without decoding it. */
export const isShareFragment = (hash: string) => /^#?(r|ref)=/.test(hash);
