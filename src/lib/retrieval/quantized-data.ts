/**
 * The stored form of an 8-bit residual-quantized index (quantized.ts): the quantized vectors (centroids, their
 * numbers and weights, residual codes, scales, levels), the plain data of an index and the quantizer's options.
 */
import type { DenseMetric } from './dense.ts';

/** Bump when the layout of {@link Int8IndexData} changes (2: residual codes, centroids, levels). */
export const INT8_INDEX_VERSION = 2;

/** At most this many centroids (so a centroid number fits one byte). */
export const MAX_CENTROIDS = 256;

export interface QuantizedVectors {
  /** K × dim int8 centroid codes (row-major): centroid a is c_a = centroidScales[a]·centroidCodes[a]. */
  centroidCodes: Int8Array;
  /** One scale per centroid. */
  centroidScales: Float32Array;
  /** Centroid number of each row. */
  assign: Uint8Array;
  /** Weight α_i of the row's centroid. */
  alphas: Float32Array;
  /** Row-major n × dim residual codes in [−127, 127]; code k stands for levels[k & 255]. */
  codes: Int8Array;
  /** One scale per row, s_i ≥ max|r_i| (0 when the residual is all zero). */
  scales: Float32Array;
  /** 256 reconstruction levels in [−1, 1] indexed by code & 255 ({@link companderLevels}; byte 128, code −128, unused). */
  levels: Float32Array;
}

/** Plain data of an {@link Int8DenseIndex} (typed arrays only: structured-clone and IndexedDB friendly). */
export interface Int8IndexData extends QuantizedVectors {
  kind: 'int8';
  version: number;
  dim: number;
  size: number;
  metric: DenseMetric;
}

export interface QuantizeOptions {
  /** Number of centroids K (default {@link defaultCentroids}; clamped to [1, min(n, 256)]). */
  centroids?: number;
  /** Seed of the k-means sample and initialisation (default 1). */
  seed?: number;
  /** k-means training rows per centroid (default 32). */
  trainPerCentroid?: number;
  /** k-means iterations (default 8). */
  iterations?: number;
}
