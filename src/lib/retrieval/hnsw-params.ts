/**
 * The parameters and the stored form of an HNSW index (hnsw.ts): graph degree, construction and search candidate
 * list sizes and seed, their defaults and checks, the plain data of an index and the build options.
 */
import type { DenseMetric } from './dense.ts';

export interface HnswParams {
  /** Graph degree (links per node per layer; 2·M on the bottom layer). */
  M: number;
  /** Candidate list size while inserting (build quality vs build time). */
  efConstruction: number;
  /** Candidate list size while searching (recall vs latency); hnswlib uses max(efSearch, k). */
  efSearch: number;
  /** Seed of hnswlib's level generator. */
  seed: number;
}

export const HNSW_DEFAULTS: Readonly<HnswParams> = Object.freeze({ M: 16, efConstruction: 200, efSearch: 64, seed: 100 });

/** Bump when the layout of {@link HnswIndexData} changes. */
export const HNSW_INDEX_VERSION = 1;

/** Plain data of an {@link HnswIndex}: `graph` is hnswlib's saveIndex file (graph + vectors + labels). */
export interface HnswIndexData {
  kind: 'hnsw';
  version: number;
  dim: number;
  size: number;
  metric: DenseMetric;
  M: number;
  efConstruction: number;
  efSearch: number;
  graph: Uint8Array;
}

export interface HnswBuildOptions extends Partial<HnswParams> {
  metric?: DenseMetric;
  /** Points per `addPoints` call between progress reports. Default 500. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export function paramsOf(o: Partial<HnswParams>): HnswParams {
  const p = { M: o.M ?? HNSW_DEFAULTS.M, efConstruction: o.efConstruction ?? HNSW_DEFAULTS.efConstruction, efSearch: o.efSearch ?? HNSW_DEFAULTS.efSearch, seed: o.seed ?? HNSW_DEFAULTS.seed };
  for (const [name, value] of Object.entries(p)) {
    if (!Number.isInteger(value) || value < (name === 'seed' ? 0 : 1)) throw new Error(`HnswIndex: ${name} must be a positive integer, got ${value}`);
  }
  if (p.M < 2) throw new Error(`HnswIndex: M must be at least 2, got ${p.M}`);
  return p;
}
