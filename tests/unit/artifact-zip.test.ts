/**
 * artifactZip → readArtifactZip → openArtifact gives the knowledge base the files give (documents, chunks, BM25
 * results); the zip is deterministic and stores parquet/npy, deflates JSON; hostile zips are refused before
 * anything is inflated (a bomb by its declared sizes), and damaged ones get a message naming the zip.
 */
import { strToU8, unzipSync, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { ArtifactError } from '../../src/lib/artifact/types.ts';
import { writeArtifact, type ArtifactFiles } from '../../src/lib/artifact/write.ts';
import { artifactZip, crc32, MAX_ZIP_UNPACKED, readArtifactZip } from '../../src/lib/artifact/zip.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';

const WORDS = 'river mountain tariff slavery commerce treaty navy army railroad bank currency gold silver labor union court justice education health ocean harbor canal wheat cotton steel'.split(' ');
function corpus(): SourceDocument[] {
  let s = 11;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: 15 }, (_, d) => ({
    id: `notes/file-${d}.md`, title: `File ${d}`,
    text: Array.from({ length: 30 }, () => Array.from({ length: 9 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + '.').join(' '),
    meta: { file: `notes/file-${d}.md`, format: 'md' },
  }));
}
const QUERIES = ['tariff on steel', 'navy army harbor', 'gold silver bank', 'zebra'];

let built: ArtifactFiles;
let kb: KnowledgeBase;
beforeAll(async () => {
  kb = KnowledgeBase.build(corpus(), { chunking: { chunkSize: 300, overlap: 50, separators: ['\n\n', '\n', '. ', ' ', ''] } });
  built = await writeArtifact({ id: 'my-notes', title: 'My notes', fields: [{ name: 'file', label: 'File', type: 'string' }], kb, created: '2026-12-01T00:00:00.000Z' });
});

/** The raw entries of a zip: name → [method, compressed size]. */
function entriesOf(zip: Uint8Array): Map<string, { method: number; size: number; originalSize: number }> {
  const out = new Map<string, { method: number; size: number; originalSize: number }>();
  unzipSync(zip, { filter: (f) => { out.set(f.name, { method: f.compression, size: f.size, originalSize: f.originalSize }); return false; } });
  return out;
}

describe('artifactZip / readArtifactZip', () => {
  test('round trip: the zip opens to the same documents, chunks and search results as the files', async () => {
    const zip = artifactZip('my-notes', built.entry, built.files);
    const source = readArtifactZip(zip, 'my-notes.zip');
    expect(source.label).toBe('my-notes.zip');
    const indexes = await listIndexes(source);
    expect(indexes.map((e) => [e.id, e.path])).toEqual([['my-notes', 'my-notes']]);
    const fromZip = await openArtifact(source, 'my-notes');
    const direct = await openArtifact(memorySource(new Map([...built.files].map(([p, b]) => [`my-notes/${p}`, b]))), 'my-notes');
    expect(fromZip.kb.docs).toEqual(direct.kb.docs);
    expect(fromZip.kb.docs).toEqual(kb.docs);
    expect(fromZip.kb.size).toBe(kb.size);
    expect(fromZip.kb.size).toBeGreaterThan(kb.docs.length);
    for (let i = 0; i < kb.size; i++) {
      expect(fromZip.kb.itemText(i)).toBe(kb.itemText(i));
      expect(fromZip.kb.itemSpan(i)).toEqual(kb.itemSpan(i));
    }
    for (const q of QUERIES) expect(fromZip.kb.bm25.search(q, 10, fromZip.kb.itemId)).toEqual(kb.bm25.search(q, 10, kb.itemId));
    expect(fromZip.descriptor.fields).toEqual([{ name: 'file', label: 'File', type: 'string' }]);
  });

  test('the Hub layout; parquet and npy stored, JSON deflated; the same files give the same bytes', () => {
    const zip = artifactZip('my-notes', built.entry, built.files);
    const e = entriesOf(zip);
    expect([...e.keys()]).toEqual(['index_config.json', ...[...built.files.keys()].map((p) => `my-notes/${p}`)]);
    expect(e.get('my-notes/docs.parquet')!.method).toBe(0);
    expect(e.get('my-notes/bm25/tfs.npy')!.method).toBe(0);
    expect(e.get('my-notes/meta.json')!.method).toBe(8);
    const terms = e.get('my-notes/bm25/terms.json')!;
    expect(terms.method).toBe(8);
    expect(terms.size).toBeLessThan(terms.originalSize);
    expect(artifactZip('my-notes', built.entry, built.files)).toEqual(zip);
    // The entry's path follows the folder it is zipped under.
    const other = readArtifactZip(artifactZip('renamed', built.entry, built.files), 'x.zip');
    return expect(listIndexes(other).then((l) => l.map((x) => x.path))).resolves.toEqual(['renamed']);
  });

  test('a zip of the folder itself (one top folder holding index_config.json) reads the same', async () => {
    const inner = unzipSync(artifactZip('my-notes', built.entry, built.files));
    const wrapped = zipSync(Object.fromEntries(Object.entries(inner).map(([p, b]) => [`kb/${p}`, b])));
    const opened = await openArtifact(readArtifactZip(wrapped, 'kb.zip'), 'my-notes');
    expect(opened.kb.docs).toEqual(kb.docs);
  });

  test('no index_config.json, a damaged or cut zip, not a zip at all: one message naming the zip', () => {
    const noConfig = zipSync({ 'my-notes/meta.json': strToU8('{}'), 'readme.txt': strToU8('hello') });
    expect(() => readArtifactZip(noConfig, 'a.zip')).toThrow(new ArtifactError('a.zip', 'not an index artifact zip (no index_config.json)'));
    const zip = artifactZip('my-notes', built.entry, built.files);
    expect(() => readArtifactZip(zip.subarray(0, Math.floor(zip.length / 2)), 'cut.zip')).toThrow(/^cut\.zip: is not a readable zip file \(.*\): it is damaged or cut short/);
    expect(() => readArtifactZip(strToU8('just some text, not a zip'), 'text.zip')).toThrow(/^text\.zip: is not a readable zip file/);
    expect(() => readArtifactZip(new Uint8Array(0), 'empty.zip')).toThrow(/^empty\.zip: is not a readable zip file/);
  });

  test('a deflated entry whose data was damaged is refused (its size or its inflate fails), never returned short', () => {
    const big = strToU8('tariff steel navy '.repeat(5000));
    const zip = zipSync({ 'index_config.json': strToU8('{}'), 'kb/meta.json': [big, { level: 9 }] });
    // Cut the deflate stream of kb/meta.json short by zeroing its middle: inflate errors, or yields fewer bytes.
    const e = entriesOf(zip).get('kb/meta.json')!;
    const at = zip.findIndex((_, i) => zip[i] === 0x50 && zip[i + 1] === 0x4b && zip[i + 2] === 3 && zip[i + 3] === 4 && zip[i + 26] === 12);
    expect(at).toBeGreaterThan(0);
    const dataStart = at + 30 + 12;
    const bad = zip.slice();
    bad.fill(0, dataStart + 2, dataStart + Math.min(e.size - 2, 40));
    expect(() => readArtifactZip(bad, 'bad.zip')).toThrow(/^bad\.zip: kb\/meta\.json (does not inflate \(.*\)|unpacks to \d+ bytes, the zip says 90000|fails its CRC-32 check): the zip is damaged/);
  });

  test('paths outside the folder are refused: "..", absolute, backslash', () => {
    for (const name of ['../evil.txt', 'kb/../../evil', '/etc/passwd', 'C:/x', 'kb\\x.json', '__proto__/x']) {
      const zip = zipSync({ 'index_config.json': strToU8('{}'), [name]: strToU8('x') });
      // fflate keeps names as given; the reader sees exactly them.
      expect(() => readArtifactZip(zip, 'evil.zip'), name).toThrow(/^evil\.zip: holds an entry (outside the folder|named)/);
    }
  });

  test('a zip bomb is refused from its declared sizes, before inflating', () => {
    // 4 MiB of zeros deflate to a few KB; the declared size is then raised past the cap (local and central header).
    const zeros = new Uint8Array(4 * 1024 ** 2);
    const zip = zipSync({ 'index_config.json': strToU8('{}'), 'kb/hnsw.bin': [zeros, { level: 9 }] });
    expect(zip.length).toBeLessThan(1024 ** 2);
    const bomb = zip.slice();
    const view = new DataView(bomb.buffer);
    let patched = 0;
    for (let i = 0; i + 46 < bomb.length; i++) {
      const sig = view.getUint32(i, true);
      if (sig === 0x04034b50 && view.getUint32(i + 22, true) === zeros.length) { view.setUint32(i + 22, 0xfffffff0, true); patched++; }
      if (sig === 0x02014b50 && view.getUint32(i + 24, true) === zeros.length) { view.setUint32(i + 24, 0xfffffff0, true); patched++; }
    }
    expect(patched).toBe(2);
    expect(() => readArtifactZip(bomb, 'bomb.zip')).toThrow(/^bomb\.zip: kb\/hnsw\.bin would unpack to 4096 MB, more than the 2048 MB a knowledge base may take/);
    // Many entries whose declared sizes add up past the cap, each under it.
    const many = zipSync({ 'index_config.json': strToU8('{}'), 'kb/a.bin': [zeros, { level: 9 }], 'kb/b.bin': [zeros, { level: 9 }] });
    const v2 = new DataView(many.buffer);
    for (let i = 0; i + 46 < many.length; i++) {
      if (v2.getUint32(i, true) === 0x02014b50 && v2.getUint32(i + 24, true) === zeros.length) v2.setUint32(i + 24, MAX_ZIP_UNPACKED / 2 + 1, true);
    }
    expect(() => readArtifactZip(many, 'many.zip')).toThrow(/^many\.zip: would unpack to more than 2048 MB/);
  });

  test('a declared size smaller than the data is caught: inflated into that size, the entry fails its CRC-32', () => {
    const text = strToU8('gold silver '.repeat(1000));
    const zip = zipSync({ 'index_config.json': strToU8('{}'), 'kb/terms.json': [text, { level: 9 }] });
    const v = new DataView(zip.buffer);
    for (let i = 0; i + 46 < zip.length; i++) {
      if (v.getUint32(i, true) === 0x02014b50 && v.getUint32(i + 24, true) === text.length) v.setUint32(i + 24, 100, true);
    }
    expect(() => readArtifactZip(zip, 'lie.zip')).toThrow(new ArtifactError('lie.zip', 'kb/terms.json fails its CRC-32 check: the zip is damaged; export or download it again'));
    // A flipped byte of a stored entry: the same check.
    const stored = zipSync({ 'index_config.json': strToU8('{}'), 'kb/x.npy': [text, { level: 0 }] });
    // A "g" of the stored text itself (searched as the text, not as a byte: a header's time stamp may hold 0x67).
    const at = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).indexOf('gold silver gold');
    expect(at).toBeGreaterThan(0);
    stored[at] = 0x47;
    expect(() => readArtifactZip(stored, 'flip.zip')).toThrow(/^flip\.zip: kb\/x\.npy fails its CRC-32 check/);
  });

  test('crc32 of hand-known values', () => {
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(strToU8('123456789'))).toBe(0xcbf43926); // the standard check value
  });
});
