import { describe, expect, it } from 'vitest';
import { MAX_INDEX_ENTRIES, parseIndexConfig, parseJsonBytes, parseMeta, safeRepoPath, type ArtifactMeta } from '../../src/lib/artifact/format.ts';
import { ArtifactError } from '../../src/lib/artifact/types.ts';

const entry = { id: 'sotu', title: 'SOTU', description: 'd', path: 'sotu', counts: { documents: 233, chunks: 16564 }, embedder: null, created: '2026-01-01T00:00:00.000Z', format_version: 1 };
const sha = 'a'.repeat(64);
const meta: ArtifactMeta = {
  format_version: 1, id: 'sotu', title: 'SOTU', description: '', created: '2026-01-01T00:00:00Z',
  chunking: { size: 800, overlap: 120 }, index_title: true,
  tokenizer: { stem: true, remove_stop_words: true, stop_words: ['a', 'the'] }, bm25_params: { k1: 0.9, b: 0.4 }, bm25: 'postings',
  cdf_queries: 100, seed: 13, counts: { documents: 2, chunks: 5 }, fields: [{ name: 'year', label: 'Year', type: 'number' }],
  examples: [{ query: 'war', note: 'x' }], placeholder: 'Search',
  embedder: { id: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8', dim: 384, pooling: 'mean', normalized: true, prefixes: { query: '', passage: '' } },
  files: { 'docs.parquet': { bytes: 10, sha256: sha }, 'bm25/terms.json': { bytes: 3, sha256: sha } },
};

function refused(f: () => unknown): ArtifactError {
  let err: unknown;
  try { f(); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(ArtifactError);
  return err as ArtifactError;
}

describe('parseIndexConfig', () => {
  it('accepts a valid list', () => {
    expect(parseIndexConfig({ format_version: 1, indexes: [entry, { ...entry, id: 'b', path: 'b', embedder: 'x' }] }).indexes.map((e) => e.id)).toEqual(['sotu', 'b']);
  });

  it('reads up to MAX_INDEX_ENTRIES indexes and refuses more, naming the count, before validating them', () => {
    const many = (n: number) => ({ format_version: 1, indexes: Array.from({ length: n }, (_, i) => (i === 0 ? entry : null)) });
    expect(refused(() => parseIndexConfig(many(MAX_INDEX_ENTRIES + 1))).message)
      .toBe('index_config.json: lists 100,001 indexes; at most 100,000 are read: split the repo');
    expect(refused(() => parseIndexConfig(many(MAX_INDEX_ENTRIES))).message).toMatch(/field indexes\.1/); // validated, not refused by count
  });

  it('refuses a newer format with the message that says so', () => {
    const e = refused(() => parseIndexConfig({ format_version: 3, indexes: [] }));
    expect(e.file).toBe('index_config.json');
    expect(e.message).toBe('index_config.json: written by a newer RAG Lab (format 3); this build reads format 1. Update RAG Lab to open it.');
  });

  it('names the field at fault', () => {
    expect(refused(() => parseIndexConfig({ format_version: 1, indexes: [{ ...entry, counts: { documents: -1, chunks: 3 } }] })).message).toMatch(/field indexes\.0\.counts\.documents/);
    expect(refused(() => parseIndexConfig({ format_version: 1, indexes: [{ ...entry, created: 'yesterday' }] })).message).toMatch(/indexes\.0\.created: expected an ISO date/);
    expect(refused(() => parseIndexConfig({ format_version: 1 })).message).toMatch(/field indexes/);
    expect(refused(() => parseIndexConfig([])).message).toMatch(/expected a JSON object/);
  });

  it('refuses absurd counts, paths that climb out and repeated ids', () => {
    expect(refused(() => parseIndexConfig({ format_version: 1, indexes: [{ ...entry, counts: { documents: 1, chunks: 50_000_001 } }] })).message).toMatch(/counts\.chunks/);
    for (const path of ['../other', 'a/../../b', '/etc', 'a\\b', 'a//b', 'C:/x', 'a/\u0000b']) {
      expect(refused(() => parseIndexConfig({ format_version: 1, indexes: [{ ...entry, path }] })).message, path).toMatch(/indexes\.0\.path/);
    }
    expect(refused(() => parseIndexConfig({ format_version: 1, indexes: [entry, entry] })).message).toMatch(/"sotu" is listed twice/);
  });

  it('lists an entry of a newer index format (opening it is refused by meta.json)', () => {
    expect(parseIndexConfig({ format_version: 1, indexes: [{ ...entry, format_version: 2 }] }).indexes[0]!.format_version).toBe(2);
  });
});

describe('parseMeta', () => {
  it('accepts a valid meta.json', () => {
    expect(parseMeta(structuredClone(meta))).toEqual(meta);
    expect(parseMeta({ ...meta, embedder: null, chunking: false, counts: { documents: 5, chunks: 5, queries: 3, qrels: 9 } }).chunking).toBe(false);
    // Documents without text have no chunks: fewer chunks than documents is valid.
    expect(parseMeta({ ...meta, counts: { documents: 9, chunks: 5 } }).counts.chunks).toBe(5);
  });

  it("keeps an example's mode, even one this build does not know (examples.ts drops it with a note), and refuses an example without a query", () => {
    const examples = [{ query: 'war', mode: 'dense' }, { query: 'peace', mode: 'hybrid_v9' }];
    expect(parseMeta({ ...structuredClone(meta), examples }).examples).toEqual(examples);
    expect(refused(() => parseMeta({ ...structuredClone(meta), examples: [{ mode: 'dense' }] }, 'kb/meta.json')).message).toMatch(/^kb\/meta\.json: .*examples/);
  });

  it('refuses unknown versions', () => {
    expect(refused(() => parseMeta({ ...meta, format_version: 2 }, 'kb/meta.json')).message).toBe('kb/meta.json: written by a newer RAG Lab (format 2); this build reads format 1. Update RAG Lab to open it.');
    expect(refused(() => parseMeta({ ...meta, format_version: 0 })).message).toMatch(/field format_version/);
  });

  it.each<[string, Partial<Record<keyof ArtifactMeta, unknown>>, RegExp]>([
    ['negative counts', { counts: { documents: -2, chunks: 5 } }, /field counts\.documents/],
    ['> 50M chunks', { counts: { documents: 1, chunks: 60_000_000 } }, /field counts\.chunks/],
    ['> 4096 dims', { embedder: { ...meta.embedder, dim: 8192 } }, /field embedder\.dim/],
    ['zero dims', { embedder: { ...meta.embedder, dim: 0 } }, /field embedder\.dim/],
    ['fractional counts', { counts: { documents: 1.5, chunks: 5 } }, /field counts\.documents/],
    ['an unknown bm25 storage', { bm25: 'pickle' }, /field bm25/],
    ['b out of range', { bm25_params: { k1: 0.9, b: 2 } }, /field bm25_params\.b/],
    ['a bad checksum', { files: { 'docs.parquet': { bytes: 1, sha256: 'xyz' } } }, /field files\.docs\.parquet\.sha256/],
    ['a file path that climbs out', { files: { '../../etc/passwd': { bytes: 1, sha256: sha } } }, /climbs out of the repo/],
    ['an absolute file path', { files: { '/etc/passwd': { bytes: 1, sha256: sha } } }, /is absolute/],
    ['meta.json listing itself', { files: { 'meta.json': { bytes: 1, sha256: sha } } }, /cannot list itself/],
    ['overlap ≥ size', { chunking: { size: 100, overlap: 100 } }, /overlap 100 must be smaller than size 100/],
    ['unchunked items ≠ documents', { chunking: false, counts: { documents: 9, chunks: 5 } }, /5 items for 9 whole documents/],
    ['a missing field', { tokenizer: undefined }, /field tokenizer/],
  ])('refuses %s, naming the field', (_, change, message) => {
    const e = refused(() => parseMeta({ ...structuredClone(meta), ...change }, 'kb/meta.json'));
    expect(e.file).toBe('kb/meta.json');
    expect(e.message).toMatch(message);
  });
});

describe('safeRepoPath', () => {
  it('keeps repo-relative POSIX paths', () => {
    for (const p of ['meta.json', 'sotu/embeddings.int8/codes.npy', 'a b/c.d', 'ünï/cödé']) expect(safeRepoPath(p)).toBe(p);
  });
  it.each([
    ['../x', /climbs out of the repo/],
    ['a/../../x', /climbs out of the repo/],
    ['..', /climbs out of the repo/],
    ['/abs', /absolute: it climbs out of the repo/],
    ['C:\\x', /backslash/],
    ['c:/x', /absolute/],
    ['a\\..\\b', /backslash/],
    ['a//b', /empty or "\." segment/],
    ['a/./b', /empty or "\." segment/],
    ['a/', /empty/],
    ['', /empty path/],
    ['a\nb', /control character/],
    ['a\u0085b', /control character/],
  ])('refuses %j', (p, message) => {
    expect(() => safeRepoPath(p)).toThrow(message);
  });
});

describe('parseJsonBytes', () => {
  it('reads UTF-8 JSON with or without a BOM, refuses others naming the file', () => {
    const enc = new TextEncoder();
    expect(parseJsonBytes(enc.encode('\uFEFF{"a":1}'), 'm.json')).toEqual({ a: 1 });
    expect(refused(() => parseJsonBytes(enc.encode('{oops'), 'kb/m.json')).message).toMatch(/^kb\/m\.json: is not valid JSON/);
    expect(refused(() => parseJsonBytes(Uint8Array.from([0xff, 0xfe, 0x00]), 'm.json')).message).toMatch(/not UTF-8/);
  });
});
