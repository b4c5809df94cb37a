/**
 * The data of `npm run bench:artifact` (scripts/bench-artifact.ts): the SOTU chunks with seeded clustered 384-d unit
 * vectors, their dense CDF, and stub models (a seeded vector per query text, a hash score per pair).
 */
import { createHash } from 'node:crypto';
import type { TextEmbedder } from '../../src/lib/models/types.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { denseCdfTable } from '../../src/lib/retrieval/dense-build.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import type { SearchModels } from '../../src/lib/retrieval/search.ts';
import { centres, clustered } from '../../tests/helpers/vectors.ts';
import { sotuArtifactInput } from '../sotu-artifact.ts';

export const DIM = 384;
const SEED = 384_010;
export const STUB_ID = 'bench/stub-embedder-384';
/** A 32-bit number from a string (SHA-1's first word): seeds the stub models. */
const seedOf = (s: string) => createHash('sha1').update(s).digest().readUInt32LE(0);

/** Stands in for the embedder: a clustered random unit vector seeded by the text (no model time). */
function stubEmbedder(clusterCentres: Float32Array): TextEmbedder {
  return {
    spec: { id: STUB_ID, dtype: 'fp32', device: 'cpu' },
    dim: DIM,
    async embed(texts) {
      const out = new Float32Array(texts.length * DIM);
      texts.forEach((t, i) => out.set(clustered(1, DIM, clusterCentres, seedOf(t)), i * DIM));
      return out;
    },
  };
}

export function stubModels(embedder: TextEmbedder): SearchModels {
  return {
    encoder: { embedQuery: async (q) => embedder.embed([q], 'query') },
    reranker: { rerank: async (q, ps) => ps.map((p) => seededRandom(seedOf(`${q}\n${p}`))() * 8 - 4) },
  };
}

/** The 16.5k × 384 data: the SOTU chunks + seeded clustered unit vectors, their dense CDF and the stub embedder. */
export async function denseFixture() {
  const input = sotuArtifactInput();
  const n = input.kb.size;
  const clusterCentres = centres(200, DIM, SEED);
  const vectors = clustered(n, DIM, clusterCentres, SEED + 1);
  const embedder = stubEmbedder(clusterCentres);
  const cdf = await denseCdfTable(input.kb, new ExactDenseIndex(vectors, DIM), embedder, 100, input.kb.options.seed);
  const embedderMeta = { id: STUB_ID, dtype: 'fp32', dim: DIM, pooling: 'mean' as const, normalized: true as const, prefixes: { query: '', passage: '' } };
  return { input, n, vectors, embedder, cdf, embedderMeta };
}
