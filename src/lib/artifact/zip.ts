/**
 * An index artifact as one .zip file (Build tab export, `rag-lab build-index --data x.zip`, `--kb x.zip`): the Hub
 * repo layout, `index_config.json` + `<name>/…`, so unpacking it gives a folder `--kb` and the Hub read as they are.
 * Writing is deterministic (fixed order and mtime: the same files give the same bytes). Reading refuses hostile
 * zips before inflating anything: the central directory is read first (names, sizes, CRCs), sizes are capped (one
 * entry and the total) and paths must stay inside the folder; each entry is then inflated into a buffer of exactly
 * its declared size and must match its size and CRC-32 (fflate's unzipSync truncates silently and checks no CRC).
 */
import { inflateSync, zipSync, type Zippable } from 'fflate';
import { FILES, safeRepoPath, type IndexEntry } from './format.ts';
import { memorySource } from './memory-source.ts';
import { ArtifactError, type FileSource } from './types.ts';
import { addToIndexConfig, indexConfigBytes } from './write.ts';

/** The most a zip may unpack to, in total (a browser tab holds it all in memory). */
export const MAX_ZIP_UNPACKED = 2 * 1024 ** 3;
/** The most entries a zip may hold (an index folder has about 20 files). */
export const MAX_ZIP_ENTRIES = 10_000;

/** Stored, not deflated: parquet pages are compressed already, vectors and postings barely shrink. */
const STORED = /\.(parquet|npy|bin)$/i;
/** 1980-01-01 00:00 in local time: DOS times are local, so this writes the same bytes in every time zone. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);

/** The zip of one index: `index_config.json` listing `entry` (at path `name`), and `files` under `<name>/`. */
export function artifactZip(name: string, entry: IndexEntry, files: Map<string, Uint8Array>): Uint8Array {
  safeRepoPath(name);
  if (name.includes('/')) throw new Error(`artifactZip: the index folder "${name}" must be one path segment`);
  const config = indexConfigBytes(addToIndexConfig(null, { ...entry, path: name }));
  const zippable: Zippable = { [FILES.indexConfig]: [config, { level: 6, mtime: FIXED_MTIME }] };
  for (const [path, bytes] of files) {
    safeRepoPath(path);
    zippable[`${name}/${path}`] = [bytes, { level: STORED.test(path) ? 0 : 6, mtime: FIXED_MTIME }];
  }
  return zipSync(zippable);
}

const MB = (n: number) => `${(n / 1024 ** 2).toFixed(0)} MB`;

/** CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zip stores it per entry. */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

interface ZipEntry { name: string; method: number; flags: number; crc: number; size: number; originalSize: number; localOffset: number }

/** The central directory's entries (sizes, CRCs, offsets), read without inflating anything. */
function centralDirectory(data: Uint8Array, fail: (why: string) => never): ZipEntry[] {
  const damaged = (what: string) => fail(`is not a readable zip file (${what}): it is damaged or cut short; export or download it again`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) damaged('no end of central directory');
  const count = view.getUint16(eocd + 10, true);
  const offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || offset === 0xffffffff) fail('is a ZIP64 file, larger than a knowledge base may be (or not made by RAG Lab): not read');
  if (count > MAX_ZIP_ENTRIES) fail(`holds ${count} files, more than ${MAX_ZIP_ENTRIES}: not an index artifact zip`);
  const names = new TextDecoder();
  const out: ZipEntry[] = [];
  let o = offset;
  for (let i = 0; i < count; i++) {
    if (o + 46 > data.length || view.getUint32(o, true) !== 0x02014b50) damaged(`central directory entry ${i + 1} of ${count} is missing`);
    const n = view.getUint16(o + 28, true), e = view.getUint16(o + 30, true), c = view.getUint16(o + 32, true);
    if (o + 46 + n > data.length) damaged(`central directory entry ${i + 1} is cut short`);
    out.push({
      name: names.decode(data.subarray(o + 46, o + 46 + n)), flags: view.getUint16(o + 8, true), method: view.getUint16(o + 10, true),
      crc: view.getUint32(o + 16, true), size: view.getUint32(o + 20, true), originalSize: view.getUint32(o + 24, true), localOffset: view.getUint32(o + 42, true),
    });
    o += 46 + n + e + c;
  }
  return out;
}

/**
 * A zip made by `artifactZip` (or by hand in that layout, also wrapped in one top folder) as a FileSource named
 * `label`; hostile or damaged zips are an {@link ArtifactError} naming `label` and saying what is wrong.
 */
export function readArtifactZip(bytes: Uint8Array, label: string): FileSource {
  const fail = (why: string): never => { throw new ArtifactError(label, why); };
  const damaged = (what: string): never => fail(`${what}: the zip is damaged; export or download it again`);
  const entries = centralDirectory(bytes, fail).filter((f) => !f.name.endsWith('/') && !f.name.startsWith('__MACOSX/'));
  // Every check on names and declared sizes comes before the first byte is inflated.
  const seen = new Set<string>();
  let total = 0;
  for (const f of entries) {
    try {
      safeRepoPath(f.name);
    } catch (e) {
      fail(`holds an entry outside the folder (${(e as Error).message}): not an index artifact zip`);
    }
    if (f.name.split('/').includes('__proto__')) fail(`holds an entry named ${JSON.stringify(f.name)}: not an index artifact zip`);
    if (seen.has(f.name)) damaged(`it holds ${JSON.stringify(f.name)} twice`);
    seen.add(f.name);
    if (f.flags & 1) fail(`${f.name} is encrypted: RAG Lab reads unencrypted zips only`);
    if (f.method !== 0 && f.method !== 8) fail(`${f.name} is compressed with method ${f.method}; only stored and deflated entries are read (zip it again)`);
    if (f.originalSize > MAX_ZIP_UNPACKED) fail(`${f.name} would unpack to ${MB(f.originalSize)}, more than the ${MB(MAX_ZIP_UNPACKED)} a knowledge base may take`);
    total += f.originalSize;
    if (total > MAX_ZIP_UNPACKED) fail(`would unpack to more than ${MB(MAX_ZIP_UNPACKED)}, more than a knowledge base may take (a zip bomb, or far too large)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const files = new Map<string, Uint8Array>();
  for (const f of entries) {
    const h = f.localOffset;
    if (h + 30 > bytes.length || view.getUint32(h, true) !== 0x04034b50) damaged(`${f.name} has no local header`);
    const start = h + 30 + view.getUint16(h + 26, true) + view.getUint16(h + 28, true);
    if (start + f.size > bytes.length) damaged(`${f.name} is cut short`);
    const raw = bytes.subarray(start, start + f.size);
    let data: Uint8Array;
    if (f.method === 0) {
      if (f.size !== f.originalSize) damaged(`${f.name} is stored with ${f.size} bytes, the zip says ${f.originalSize}`);
      data = raw.slice();
    } else {
      try {
        // Inflated into a buffer of the declared size: never more (the CRC below catches a stream that is longer).
        data = inflateSync(raw, { out: new Uint8Array(f.originalSize) });
      } catch (e) {
        return damaged(`${f.name} does not inflate (${(e as Error).message})`);
      }
      if (data.byteLength !== f.originalSize) damaged(`${f.name} unpacks to ${data.byteLength} bytes, the zip says ${f.originalSize}`);
    }
    if (crc32(data) !== f.crc) damaged(`${f.name} fails its CRC-32 check`);
    files.set(f.name, data);
  }
  if (!files.has(FILES.indexConfig)) {
    // A zip of the folder itself: everything under one top folder that holds index_config.json.
    const tops = new Set([...files.keys()].map((p) => p.split('/')[0]!));
    const top = tops.size === 1 ? [...tops][0]! : null;
    if (top === null || !files.has(`${top}/${FILES.indexConfig}`)) fail(`not an index artifact zip (no ${FILES.indexConfig})`);
    const inner = new Map<string, Uint8Array>();
    for (const [p, b] of files) inner.set(p.slice(top!.length + 1), b);
    return memorySource(inner, label);
  }
  return memorySource(files, label);
}
