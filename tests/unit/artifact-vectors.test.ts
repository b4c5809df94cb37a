// Vectors validated on open (issue 22, point 3): NaN / infinite rows in an artifact's embeddings.npy, its int8
// scales or seed A's embeddings.npy; dense search never ranks a non-finite score, and a NaN query is not "ok".
import { describe, expect, it, beforeAll } from 'vitest';
import { attachArtifactDense } from '../../src/lib/artifact/attach.ts';
import type { ArtifactMeta } from '../../src/lib/artifact/format.ts';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { parseNpy, writeNpy } from '../../src/lib/artifact/npy.ts';
import { writeTable } from '../../src/lib/artifact/parquet.ts';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import type { ArtifactDense } from '../../src/lib/artifact/types.ts';
import { writeArtifact, type ArtifactFiles } from '../../src/lib/artifact/write.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import type { RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { BAD_QUERY_VECTOR, search } from '../../src/lib/retrieval/search.ts';
import { checkVectors } from '../../src/lib/retrieval/vector-check.ts';
import { sha256Hex } from '../../src/lib/checksum.ts';
import { centres, clustered, idOf, row } from '../helpers/vectors.ts';

const DIM = 8;
const EMBEDDER: ArtifactDense['embedder'] = { id: 'test/fixture-embedder', dtype: 'fp32', dim: DIM, pooling: 'mean', normalized: true, prefixes: { query: '', passage: '' } };
const WORDS = 'river mountain tariff treaty navy army railroad bank gold silver court ocean harbor canal wheat steel'.split(' ');
const docs = Array.from({ length: 10 }, (_, d) => ({ id: `doc-${d}`, title: `Doc ${d}`, text: `${WORDS[d]} ${WORDS[(d + 3) % WORDS.length]} and ${WORDS[(d + 7) % WORDS.length]}.` }));

let kb: KnowledgeBase;
let vectors: Float32Array;
let written: ArtifactFiles;

beforeAll(async () => {
  kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
  vectors = clustered(kb.size, DIM, centres(3, DIM, 4), 6);
  written = await writeArtifact({ id: 'vec-kb', title: 'Vectors', fields: [], kb, dense: { vectors, dim: DIM, embedder: EMBEDDER, cdf: null, int8: true } });
});

/** The artifact with `name` replaced and meta.json's size and hash updated: only the values are wrong. */
async function signed(name: string, bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const meta: ArtifactMeta = structuredClone(written.meta);
  meta.files[name] = { bytes: bytes.byteLength, sha256: await sha256Hex(bytes) };
  return new Map(written.files).set(name, bytes).set('meta.json', new TextEncoder().encode(JSON.stringify(meta)));
}

/** `vectors` with rows `bad` set to NaN (the first one to +Infinity). */
function spoiled(bad: number[]): Uint8Array {
  const v = vectors.slice();
  bad.forEach((r, i) => v.fill(i === 0 ? Infinity : NaN, r * DIM, (r + 1) * DIM));
  return writeNpy(v, [kb.size, DIM]);
}

const encoderOf = (q: Float32Array) => ({ encoder: { embedQuery: async () => q } });
const embedder = { spec: { id: EMBEDDER.id, dtype: 'fp32' }, dim: DIM };

describe('vectors checked on open', () => {
  it('an all-NaN embeddings.npy (right shape and checksums) opens with a note and dense off; BM25 still answers', async () => {
    const files = await signed('embeddings.npy', writeNpy(new Float32Array(kb.size * DIM).fill(NaN), [kb.size, DIM]));
    const o = await openArtifact(memorySource(files), '', { dense: 'float32' });
    expect(o.dense).toBeNull();
    expect(o.notes.join('\n')).toMatch(new RegExp(`embeddings\\.npy: ${kb.size} of ${kb.size} rows hold NaN or infinite values.*dense search is off`));
    const r = await search(o.kb, WORDS[2]!, { mode: 'sparse' });
    expect(r.status).toBe('ok');
  });

  it('a few bad rows are named, zeroed and left out of dense search; every score is finite', async () => {
    const files = await signed('embeddings.npy', spoiled([2, 5]));
    const o = await openArtifact(memorySource(files), '', { dense: 'float32' });
    expect(o.notes.join('\n')).toMatch(/embeddings\.npy: 2 of 10 rows hold NaN or infinite values .*rows 2, 5; dense search leaves those chunks out/);
    expect(checkVectors(o.dense!.vectors!, DIM).badCount).toBe(2); // zeroed: still flagged, never NaN
    expect(Array.from(o.dense!.vectors!).every(Number.isFinite)).toBe(true);
    await attachArtifactDense(o.kb, o.dense!, embedder, { index: 'exact' });
    const q = row(vectors, DIM, 2).slice();
    for (const mode of ['dense', 'hybrid_fixed', 'rrf'] as RetrievalMode[]) {
      const r = await search(o.kb, `${WORDS[2]} ${WORDS[5]}`, { mode, topK: 10, candidateK: 10, dedup: false, rejectThreshold: 0 }, encoderOf(q));
      expect(r.status).toBe('ok');
      expect(r.hits.every((h) => Number.isFinite(h.score) && (h.dense === null || Number.isFinite(h.dense)))).toBe(true);
      if (mode === 'dense') {
        expect(r.hits.map((h) => h.id)).not.toContain(o.kb.itemId(2));
        expect(r.hits.map((h) => h.id)).not.toContain(o.kb.itemId(5));
        expect(r.hits).toHaveLength(8);
      }
    }
    // The source bytes (a view of them) were not written to.
    expect(Number.isFinite(parseNpy(files.get('embeddings.npy')!, 'e').data[2 * DIM]!)).toBe(false);
  });

  it('int8 rows with a NaN scale are left out; a NaN centroid scale turns dense off', async () => {
    const scales = parseNpy(written.files.get('embeddings.int8/scales.npy')!, 's').data.slice() as Float32Array;
    scales[3] = NaN;
    const o = await openArtifact(memorySource(await signed('embeddings.int8/scales.npy', writeNpy(scales, [kb.size]))), '', { dense: 'int8' });
    expect(o.notes.join('\n')).toMatch(/embeddings\.int8\/: 1 of 10 rows hold NaN or infinite scales: row 3/);
    await attachArtifactDense(o.kb, o.dense!, embedder);
    const r = await search(o.kb, 'x', { mode: 'dense', topK: 10, candidateK: 10, dedup: false, rejectThreshold: 0 }, encoderOf(row(vectors, DIM, 3).slice()));
    expect(r.status).toBe('ok');
    expect(r.hits.map((h) => h.id)).not.toContain(o.kb.itemId(3));
    expect(r.hits.every((h) => Number.isFinite(h.score))).toBe(true);

    const cs = parseNpy(written.files.get('embeddings.int8/centroid_scales.npy')!, 'c').data.slice() as Float32Array;
    cs[0] = NaN;
    const off = await openArtifact(memorySource(await signed('embeddings.int8/centroid_scales.npy', writeNpy(cs, [cs.length]))), '', { dense: 'int8' });
    expect(off.dense).toBeNull();
    expect(off.notes.join('\n')).toMatch(/levels\.npy or centroid_scales\.npy holds NaN or infinite values; dense search is off/);
  });

  it('seed A: an all-NaN embeddings.npy turns dense off with a note', async () => {
    const files = new Map<string, Uint8Array>([
      ['chunks.parquet', writeTable([
        { name: 'id', type: 'STRING', data: docs.map((d) => d.id) },
        { name: 'source', type: 'STRING', data: docs.map((d) => d.id) },
        { name: 'chunk', type: 'STRING', data: docs.map((d) => d.text) },
      ])],
      ['embeddings.npy', writeNpy(new Float32Array(docs.length * DIM).fill(NaN), [docs.length, DIM])],
      ['meta.json', new TextEncoder().encode(JSON.stringify({ embedding_model: EMBEDDER.id, dim: DIM, name: 'seed' }))],
    ]);
    const o = await openArtifact(memorySource(files), '');
    expect(o.dense).toBeNull();
    expect(o.notes.join('\n')).toMatch(/embeddings\.npy: 10 of 10 rows hold NaN .*dense search is off/);
  });
});

describe('dense search never ranks a non-finite score', () => {
  it('an index over NaN rows returns only the finite ones', () => {
    const v = vectors.slice().fill(NaN, 0, 4 * DIM);
    const hits = new ExactDenseIndex(v, DIM).search(row(vectors, DIM, 0).slice(), 10, idOf);
    expect(hits.map((h) => h.index).sort()).toEqual([4, 5, 6, 7, 8, 9]);
    expect(hits.every((h) => Number.isFinite(h.score))).toBe(true);
  });

  it('a NaN query vector is "unavailable" with a reason, not "ok" with null scores', async () => {
    const k = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
    k.dense = new ExactDenseIndex(vectors, DIM);
    for (const mode of ['dense', 'hybrid_fixed'] as RetrievalMode[]) {
      const r = await search(k, WORDS[1]!, { mode }, encoderOf(new Float32Array(DIM).fill(NaN)));
      expect(r.status).toBe('unavailable');
      if (r.status === 'unavailable') expect(r.reason).toBe(BAD_QUERY_VECTOR);
    }
  });
});
