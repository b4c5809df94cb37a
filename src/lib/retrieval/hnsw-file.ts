/**
 * hnswlib's index file format (saveIndex, wasm32: size_t, labeltype and tableint are 4 bytes) for hnsw.ts: reading
 * a file's header and vectors with checks, the header of an empty index, and the expected file size.
 */
import type { HnswParams } from './hnsw-params.ts';

const HEADER_BYTES = 56;

export interface HnswFileInfo {
  dim: number;
  count: number;
  M: number;
  efConstruction: number;
  /** Row-major count × dim, row = label. */
  vectors: Float32Array;
}

/**
 * Reads the header and the stored vectors of an hnswlib index file, checking that its layout is consistent, so a
 * file of another dimension or a truncated/foreign file is an error instead of silent garbage.
 */
export function parseHnswFile(bytes: Uint8Array): HnswFileInfo {
  const bad = (why: string) => new Error(`HnswIndex: not a usable hnswlib index file (${why})`);
  if (bytes.byteLength < HEADER_BYTES) throw bad(`${bytes.byteLength} bytes`);
  const h = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u = (at: number) => h.getUint32(at, true);
  const offsetLevel0 = u(0), maxElements = u(4), count = u(8), perElement = u(12), labelOffset = u(16), offsetData = u(20);
  const maxM0 = u(36), M = u(40), efConstruction = u(52);
  const linksLevel0 = maxM0 * 4 + 4;
  const dataBytes = labelOffset - offsetData;
  if (offsetLevel0 !== 0 || offsetData !== linksLevel0 || dataBytes <= 0 || dataBytes % 4 !== 0 || perElement !== labelOffset + 4 || count > maxElements || maxM0 !== 2 * M) {
    throw bad('inconsistent header');
  }
  const dim = dataBytes / 4;
  if (bytes.byteLength < HEADER_BYTES + count * perElement) throw bad(`truncated: ${bytes.byteLength} bytes for ${count} elements`);
  const vectors = new Float32Array(count * dim);
  const seen = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const base = HEADER_BYTES + i * perElement;
    const label = u(base + labelOffset);
    if (label >= count || seen[label]) throw bad(`labels are not 0..${count - 1}`);
    seen[label] = 1;
    const row = label * dim;
    for (let j = 0; j < dim; j++) vectors[row + j] = h.getFloat32(base + offsetData + 4 * j, true);
  }
  return { dim, count, M, efConstruction, vectors };
}

/** Header-only file for an empty index (hnswlib is never asked to load it). */
export function emptyHnswFile(dim: number, p: HnswParams): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES);
  const h = new DataView(bytes.buffer);
  const linksLevel0 = 2 * p.M * 4 + 4;
  [0, 0, 0, linksLevel0 + dim * 4 + 4, linksLevel0 + dim * 4, linksLevel0].forEach((x, i) => h.setUint32(4 * i, x, true));
  h.setInt32(24, -1, true);
  h.setUint32(32, p.M, true);
  h.setUint32(36, 2 * p.M, true);
  h.setUint32(40, p.M, true);
  h.setFloat64(44, 1 / Math.log(p.M), true);
  h.setUint32(52, p.efConstruction, true);
  return bytes;
}

/**
 * hnswlib's file size: header + per element (level-0 links 4 + 8M, vector 4·dim, label 4, upper-level list size 4)
 * + upper-level link lists (expected 1/(M − 1) levels per element, 4 + 4M bytes each).
 */
export function estimateGraphBytes(n: number, dim: number, M: number): number {
  return Math.round(HEADER_BYTES + n * (4 + 8 * M + 4 * dim + 4 + 4) + (n / (M - 1)) * (4 + 4 * M));
}
