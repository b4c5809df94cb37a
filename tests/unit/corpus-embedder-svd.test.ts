/**
 * The corpus embedder's numerics: tf-idf weights, Gram–Schmidt, Jacobi, and the randomized SVD on hand-computed
 * matrices and against numpy's exact SVD (Debian's python3-numpy as the oracle; skipped with a reason without it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/lib/random.ts';
import { bertWords } from '../../src/lib/models/corpus-embedder/bert-tokens.ts';
import { gram, orthonormalizeColumns, symmetricEigen } from '../../src/lib/models/corpus-embedder/linalg.ts';
import { encodeMessage, varint } from '../../src/lib/models/corpus-embedder/protobuf.ts';
import { randomizedSvd } from '../../src/lib/models/corpus-embedder/rsvd.ts';
import { inverseDocumentFrequency, multiply, multiplyTransposed, tfidfMatrix, type SparseColumns } from '../../src/lib/models/corpus-embedder/tfidf.ts';
import { buildVocabulary, termCounts } from '../../src/lib/models/corpus-embedder/vocabulary.ts';

const PY = '/usr/bin/python3';
const numpy = existsSync(PY) && spawnSync(PY, ['-c', 'import numpy'], { encoding: 'utf8' }).status === 0;

/** A dense row-major matrix as sparse columns. */
function sparse(rows: number, cols: number, dense: readonly number[]): SparseColumns {
  const colPtr = new Int32Array(cols + 1), rowIdx: number[] = [], values: number[] = [];
  for (let j = 0; j < cols; j++) {
    for (let i = 0; i < rows; i++) if (dense[i * cols + j] !== 0) { rowIdx.push(i); values.push(dense[i * cols + j]!); }
    colPtr[j + 1] = rowIdx.length;
  }
  return { rows, cols, colPtr, rowIdx: Int32Array.from(rowIdx), values: Float64Array.from(values) };
}

/**
 * Σ_r 0.6^r x_r y_rᵀ over `rank` nonnegative random factors plus sparse noise of size `noise`: a decaying spectrum,
 * as a term–document matrix has (a randomized SVD is exact for the top of such a spectrum, loose on a flat one).
 */
function lowRankPlusNoise(m: number, n: number, rank: number, noise: number, seed: number): number[] {
  const rand = seededRandom(seed);
  const out = Array.from({ length: m * n }, () => (rand() < 0.1 ? noise * rand() : 0));
  for (let r = 0; r < rank; r++) {
    const x = Array.from({ length: m }, () => (rand() < 0.3 ? rand() : 0));
    const y = Array.from({ length: n }, () => (rand() < 0.3 ? rand() : 0));
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[i * n + j] = out[i * n + j]! + 0.6 ** r * x[i]! * y[j]!;
  }
  return out;
}

/** max |QᵀQ − I| over the first k columns of an m-row column-major matrix. */
function orthError(q: Float64Array, m: number, k: number): number {
  let worst = 0;
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += q[a * m + i]! * q[b * m + i]!;
    worst = Math.max(worst, Math.abs(s - (a === b ? 1 : 0)));
  }
  return worst;
}

describe('tf-idf matrix', () => {
  it('weighs w = (1 + ln tf) · ln(N / df) by hand', () => {
    const docs = ['a a b', 'a c', 'b c x', 'y'].map((t) => termCounts(bertWords(t)));
    const v = buildVocabulary(docs, 2, 100); // a, b, c (df 2 each); x, y dropped
    const a = tfidfMatrix(docs, v, inverseDocumentFrequency(v.df, 4));
    const idf = Math.log(4 / 2);
    expect([a.rows, a.cols]).toEqual([3, 4]);
    expect(Array.from(a.colPtr)).toEqual([0, 2, 4, 6, 6]);
    expect(Array.from(a.rowIdx)).toEqual([0, 1, 0, 2, 1, 2]);
    expect(a.values[0]).toBeCloseTo((1 + Math.log(2)) * idf, 12); // a in doc 0: tf 2
    expect(a.values[1]).toBeCloseTo(idf, 12); // b in doc 0: tf 1
  });

  it('multiplies by A and Aᵀ as the dense products do', () => {
    const a = sparse(3, 2, [1, 2, 0, 3, 4, 0]);
    expect(Array.from(multiply(a, Float64Array.from([1, 1, 2, -1]), 2))).toEqual([3, 3, 4, 0, -3, 8]);
    expect(Array.from(multiplyTransposed(a, Float64Array.from([1, 1, 1, 0, 1, 0]), 2))).toEqual([5, 5, 0, 3]);
  });
});

describe('dense linear algebra', () => {
  it('orthonormalises columns and zeroes a dependent one', () => {
    const q = Float64Array.from([1, 1, 0, /* col 1 */ 2, 2, 0, /* col 2 */ 1, 0, 1]);
    expect(orthonormalizeColumns(q, 3, 3)).toBe(2);
    expect(Array.from(q.subarray(0, 3)).map((x) => x * Math.SQRT2)).toEqual([1, 1, 0].map((x) => expect.closeTo(x, 12)));
    expect(Array.from(q.subarray(3, 6))).toEqual([0, 0, 0]);
    expect(Array.from(q.subarray(6, 9))).toEqual([1 / Math.sqrt(6), -1 / Math.sqrt(6), 2 / Math.sqrt(6)].map((x) => expect.closeTo(x, 12)));
  });

  it('Jacobi: [[2,1],[1,2]] has eigenvalues 3 and 1 with eigenvectors (1,1)/√2 and (1,−1)/√2', () => {
    const { values, vectors } = symmetricEigen(Float64Array.from([2, 1, 1, 2]), 2);
    expect(values[0]).toBeCloseTo(3, 12);
    expect(values[1]).toBeCloseTo(1, 12);
    expect(Math.abs(vectors[0]! + vectors[1]!) / 2).toBeCloseTo(Math.SQRT1_2, 12);
    expect(Math.abs(vectors[2]! - vectors[3]!) / 2).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('Jacobi reconstructs a random symmetric matrix: S = V Λ Vᵀ', () => {
    const l = 12, rand = seededRandom(7);
    const w = Float64Array.from({ length: 20 * l }, () => rand() - 0.5);
    const s = gram(w, 20, l);
    const { values, vectors } = symmetricEigen(s, l);
    let worst = 0;
    for (let i = 0; i < l; i++) for (let j = 0; j < l; j++) {
      let r = 0;
      for (let c = 0; c < l; c++) r += vectors[c * l + i]! * values[c]! * vectors[c * l + j]!;
      worst = Math.max(worst, Math.abs(r - s[i * l + j]!));
    }
    expect(worst).toBeLessThan(1e-12);
    expect(orthError(vectors, l, l)).toBeLessThan(1e-12);
    for (let c = 1; c < l; c++) expect(values[c]!).toBeLessThanOrEqual(values[c - 1]!);
  });
});

describe('randomizedSvd', () => {
  it('4×3 by hand: A = [[1,1,0],[1,1,0],[0,0,1],[0,0,0]] has σ = 2, 1, 0 and u₁ = (1,1,0,0)/√2, u₂ = e₃', async () => {
    const a = sparse(4, 3, [1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0]);
    const { s, u } = await randomizedSvd(a, 3, { seed: 1 });
    expect(s[0]).toBeCloseTo(2, 10);
    expect(s[1]).toBeCloseTo(1, 10);
    expect(s[2]).toBeCloseTo(0, 10);
    expect(Array.from(u.subarray(0, 4))).toEqual([Math.SQRT1_2, Math.SQRT1_2, 0, 0].map((x) => expect.closeTo(x, 10)));
    expect(Array.from(u.subarray(4, 8))).toEqual([0, 0, 1, 0].map((x) => expect.closeTo(x, 10)));
  });

  it('is deterministic for a seed, and another seed finds the same singular values', async () => {
    const a = sparse(80, 50, lowRankPlusNoise(80, 50, 6, 0, 3));
    const one = await randomizedSvd(a, 8, { seed: 5 });
    const again = await randomizedSvd(a, 8, { seed: 5 });
    const other = await randomizedSvd(a, 8, { seed: 6, powerIterations: 4 });
    expect(Array.from(again.u)).toEqual(Array.from(one.u));
    for (let c = 0; c < 6; c++) expect(Math.abs(other.s[c]! - one.s[c]!) / one.s[0]!).toBeLessThan(1e-9);
    expect(orthError(one.u, 80, 6)).toBeLessThan(1e-10); // the rank is 6: columns past it carry σ = 0
    await expect(randomizedSvd(a, 51)).rejects.toThrow(/k must be in 1\.\.50/);
  });

  it.skipIf(!numpy).each([[120, 70], [70, 120]])('%i×%i: top singular values and vectors match numpy.linalg.svd (python3-numpy as oracle)', async (m, n) => {
    const k = 10;
    const dense = lowRankPlusNoise(m, n, 12, 0.05, 11);
    const { s, u } = await randomizedSvd(sparse(m, n, dense), k, { seed: 0, powerIterations: 4 });
    const py = spawnSync(PY, ['-c', `
import json, sys, numpy as np
a = np.array(json.load(sys.stdin), dtype=float).reshape(${m}, ${n})
u, s, vt = np.linalg.svd(a, full_matrices=False)
print(json.dumps({"s": s[:${k}].tolist(), "u": u[:, :${k}].T.reshape(-1).tolist()}))`], { input: JSON.stringify(dense), encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const exact = JSON.parse(py.stdout) as { s: number[]; u: number[] };
    // The top of the spectrum to 1e-6 of σ₁; the tail near the noise floor (σ₁₀ ≈ 1% of σ₁) to 1e-3.
    for (let c = 0; c < k; c++) expect(Math.abs(s[c]! - exact.s[c]!) / exact.s[0]!, `σ${c + 1}`).toBeLessThan(c < 6 ? 1e-6 : 1e-3);
    for (let c = 0; c < 4; c++) {
      let cos = 0;
      for (let i = 0; i < m; i++) cos += u[c * m + i]! * exact.u[c * m + i]!;
      expect(Math.abs(cos)).toBeGreaterThan(0.9999);
    }
    expect(orthError(u, m, k)).toBeLessThan(1e-10);
  });
});

describe('protobuf writer', () => {
  it('writes varints and fields as the wire format says', () => {
    expect(Array.from(varint(1))).toEqual([1]);
    expect(Array.from(varint(300))).toEqual([0xac, 0x02]);
    expect(Array.from(varint(-1))).toEqual([...Array(9).fill(0xff), 0x01]);
    // field 1 varint 150, field 2 string "hi", field 3 packed [3, 270]: the protobuf guide's examples.
    expect(Array.from(encodeMessage([{ n: 1, varint: 150 }, { n: 2, string: 'hi' }, { n: 3, packed: [3, 270] }])))
      .toEqual([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69, 0x1a, 0x03, 0x03, 0x8e, 0x02]);
    expect(Array.from(encodeMessage([{ n: 1, message: [{ n: 1, varint: 150 }] }, { n: 2, float: 1 }]))).toEqual([0x0a, 0x03, 0x08, 0x96, 0x01, 0x15, 0, 0, 0x80, 0x3f]);
  });
});
