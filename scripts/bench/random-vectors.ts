/**
 * Seeded random clustered vectors for `npm run bench` (scripts/bench.ts), fusion cost only: Gaussian clusters on the
 * unit sphere for the chunks and a deterministic random query encoder standing in for an embedding model.
 */
import { seededRandom } from '../../src/lib/random.ts';
import { normalize } from '../../src/lib/retrieval/dense.ts';
import type { QueryEncoder } from '../../src/lib/retrieval/search.ts';

export const NOISE = 0.9;

/** Standard normal values from a seeded PRNG (Box–Muller), so directions are uniform on the sphere. */
function gaussianFill(out: Float32Array, rand: () => number): Float32Array {
  for (let i = 0; i < out.length; i += 2) {
    const u = 1 - rand(), v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

/** FNV-1a, so each query string always maps to the same random vector. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** `clusters` random unit centres. */
export function clusterCentres(clusters: number, dim: number, seed: number): Float32Array {
  const c = gaussianFill(new Float32Array(clusters * dim), seededRandom(seed));
  for (let i = 0; i < clusters; i++) normalize(c.subarray(i * dim, (i + 1) * dim));
  return c;
}

/** One clustered unit vector into `out`: centre `c` + Gaussian noise of relative norm NOISE. */
export function clusteredRow(out: Float32Array, centres: Float32Array, c: number, rand: () => number): Float32Array {
  const dim = out.length, s = NOISE / Math.sqrt(dim);
  gaussianFill(out, rand);
  for (let j = 0; j < dim; j++) out[j] = centres[c * dim + j]! + s * out[j]!;
  return normalize(out);
}

/** n clustered unit vectors (row-major), each of a seeded random cluster. */
export function clusteredVectors(n: number, dim: number, centres: Float32Array, seed: number): Float32Array {
  const rand = seededRandom(seed), k = centres.length / dim;
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) clusteredRow(out.subarray(i * dim, (i + 1) * dim), centres, Math.floor(rand() * k), rand);
  return out;
}

/** Stands in for an embedding model: a deterministic clustered random vector per query string. */
export class RandomQueryEncoder implements QueryEncoder {
  constructor(private readonly dim: number, private readonly centres: Float32Array, private readonly seed: number) {}
  embed(query: string): Float32Array {
    const h = (hash32(query) ^ this.seed) >>> 0;
    return clusteredRow(new Float32Array(this.dim), this.centres, h % (this.centres.length / this.dim), seededRandom(h));
  }
  async embedQuery(query: string): Promise<Float32Array> {
    return this.embed(query);
  }
}
