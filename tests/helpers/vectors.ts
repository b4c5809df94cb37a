/** Seeded synthetic embeddings for vector-index tests: clustered unit vectors, as real embeddings are. */
import { normalize } from '../../src/lib/retrieval/dense.ts';
import { seededRandom } from '../../src/lib/random.ts';

export const idOf = (i: number) => `d${String(i).padStart(5, '0')}`;
export const row = (v: Float32Array, dim: number, i: number) => v.subarray(i * dim, (i + 1) * dim);

/** Seeded random unit vectors (Box–Muller Gaussian directions). */
export function centres(clusters: number, dim: number, seed: number): Float32Array {
  const rand = seededRandom(seed);
  const c = Float32Array.from({ length: clusters * dim }, () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
  for (let i = 0; i < clusters; i++) normalize(c.subarray(i * dim, (i + 1) * dim));
  return c;
}

/** n clustered unit vectors: a random centre + Gaussian noise of relative norm `noise`. */
export function clustered(n: number, dim: number, centre: Float32Array, seed: number, noise = 0.9): Float32Array {
  const rand = seededRandom(seed);
  const g = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rand() * (centre.length / dim)) * dim;
    for (let j = 0; j < dim; j++) out[i * dim + j] = centre[c + j]! + (noise / Math.sqrt(dim)) * g();
    normalize(out.subarray(i * dim, (i + 1) * dim));
  }
  return out;
}
