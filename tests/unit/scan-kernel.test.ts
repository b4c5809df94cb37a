import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/lib/random.ts';
import { dot, ExactDenseIndex, normalize } from '../../src/lib/retrieval/dense.ts';
import { Int8DenseIndex } from '../../src/lib/retrieval/quantized.ts';
import { FloatScan, scanErrorBound, TableScan, topKScores, topKWithin } from '../../src/lib/retrieval/scan-kernel.ts';
import { scanInstance, scanModuleBytes, setWasmScan } from '../../src/lib/retrieval/scan-wasm.ts';
import { topK } from '../../src/lib/retrieval/topk.ts';

const idOf = (i: number) => `d${String(i).padStart(5, '0')}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** n clustered rows (20 centres + noise), not normalised: norms vary. */
function fixture(n: number, dim: number, seed: number): Float32Array {
  const rand = seededRandom(seed);
  const centres = Float32Array.from({ length: 20 * dim }, () => rand() * 2 - 1);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rand() * 20);
    for (let j = 0; j < dim; j++) out[i * dim + j] = centres[c * dim + j]! + 0.6 * (rand() * 2 - 1);
  }
  return out;
}

afterEach(() => setWasmScan(true));

describe('the WebAssembly module', () => {
  it('validates and runs here (Node has WebAssembly SIMD)', () => {
    expect(WebAssembly.validate(scanModuleBytes())).toBe(true);
    expect(scanInstance(1024)).not.toBeNull();
  });

  it('scores float32 rows on hand-computed values (zero padding past dim)', () => {
    // rows [1..5], [−1,0,2,0,0.5]; q = [1,1,1,1,2]: 1+2+3+4+10 = 20; −1+0+2+0+1 = 2
    const scan = new FloatScan(Float32Array.from([1, 2, 3, 4, 5, -1, 0, 2, 0, 0.5]), 5);
    expect(scan.stride).toBe(16);
    expect(Array.from(scan.scan(Float32Array.from([1, 1, 1, 1, 2])).subarray(0, 2))).toEqual([20, 2]);
    // four queries at once: q_t = t·[1,0,0,0,0] → row0 t, row1 −t (−1·0 summed from +0 is +0)
    const qs = [0, 1, 2, 3].map((t) => Float32Array.from([t, 0, 0, 0, 0]));
    expect(Array.from(scan.scan4(qs).subarray(0, 8))).toEqual([0, 1, 2, 3, 0, -1, -2, -3]);
  });

  it('sums table entries on hand-computed values', () => {
    // dim 3 (padded to 4): T[j·256 + b] = 1000·j + b; codes [1, −1 (byte 255), 7] → 1 + 1255 + 2007 = 3263
    const scan = new TableScan(Int8Array.from([1, -1, 7, 0, 0, 2]), 3);
    for (let j = 0; j < 3; j++) for (let b = 0; b < 256; b++) scan.table[j * 256 + b] = 1000 * j + b;
    expect(Array.from(scan.scan().subarray(0, 2))).toEqual([3263, 0 + 1000 + 2002]);
    expect(Array.from(scan.codes())).toEqual([1, -1, 7, 0, 0, 2]);
  });
});

describe('scanErrorBound', () => {
  it('is 1.01·(dim/4 + 4)·2⁻²⁴·l1', () => {
    // dim 384, l1 1: 1.01·100/16,777,216 = 6.02006912e-6
    expect(scanErrorBound(384, 1)).toBeCloseTo(6.02006912e-6, 13);
  });

  it('bounds the float32 kernel against the float64 reference on every row', () => {
    for (const dim of [384, 37]) {
      const v = fixture(500, dim, 7), q = fixture(1, dim, 8);
      const scores = new FloatScan(v, dim).scan(q);
      let worst = 0;
      for (let i = 0; i < 500; i++) {
        let l1 = 0;
        for (let j = 0; j < dim; j++) l1 += Math.abs(v[i * dim + j]! * q[j]!);
        const err = Math.abs(scores[i]! - dot(v, i * dim, q));
        expect(err).toBeLessThanOrEqual(scanErrorBound(dim, l1));
        worst = Math.max(worst, err / scanErrorBound(dim, l1));
      }
      expect(worst).toBeGreaterThan(0); // float32 really differs: the re-scoring matters
    }
  });
});

describe('topKScores', () => {
  it('keeps the same items as topK, ties by id, non-finite scores dropped, accept applied', () => {
    const rand = seededRandom(3);
    for (let trial = 0; trial < 30; trial++) {
      const n = 1 + Math.floor(rand() * 300);
      // few distinct values: many ties
      const scores = Float64Array.from({ length: n }, () => (rand() < 0.05 ? NaN : rand() < 0.05 ? Infinity : Math.floor(rand() * 12)));
      const accept = trial % 2 === 0 ? undefined : (i: number) => i % 3 !== 0;
      for (const k of [0, 1, 5, 40, n + 3]) {
        expect(topKScores(scores, n, k, idOf, accept)).toEqual(topK(scores, range(n), k, idOf, accept));
      }
    }
  });
});

describe('topKWithin', () => {
  it('gives the reference top k from any approximation within ±e', () => {
    const rand = seededRandom(11);
    for (let trial = 0; trial < 40; trial++) {
      const n = 50 + Math.floor(rand() * 200), e = 0.01;
      // reference scores on a 0.005 grid (ties and near-ties), approximations off by up to ±e
      const ref = Float64Array.from({ length: n }, () => Math.round(rand() * 40) * 0.005);
      const approx = ref.map((x) => x + (rand() * 2 - 1) * e);
      const accept = trial % 2 === 0 ? undefined : (i: number) => i % 4 !== 1;
      for (const k of [1, 10, 30]) {
        const got = topKWithin(approx, n, k, e, (i) => ref[i]!, new Float64Array(n), idOf, accept);
        expect(got).toEqual(topK(ref, range(n), k, idOf, accept));
      }
    }
  });
});

/** The indexes' results before the kernels: the float64 reference over every row, ranked by topK. */
function referenceSearch(rows: Float32Array, dim: number, q: Float32Array, k: number, accept?: (i: number) => boolean) {
  const n = rows.length / dim;
  return topK(Float64Array.from(range(n), (i) => dot(rows, i * dim, q)), range(n), k, idOf, accept);
}

describe('ExactDenseIndex over the kernel', () => {
  it('returns exactly the reference hits and scores (WebAssembly and JS, cosine and ip, padded dims, filters)', () => {
    for (const dim of [384, 37]) {
      const v = fixture(1200, dim, dim);
      const normalised = v.slice();
      for (let i = 0; i < 1200; i++) normalize(normalised.subarray(i * dim, (i + 1) * dim));
      for (const wasm of [true, false]) {
        setWasmScan(wasm);
        const cos = new ExactDenseIndex(v, dim, 'cosine'), ip = new ExactDenseIndex(v, dim, 'ip');
        for (let t = 0; t < 12; t++) {
          const q = fixture(1, dim, 1000 + t), qn = normalize(q.slice());
          const accept = t % 3 === 0 ? (i: number) => i % 5 !== 0 : undefined;
          for (const k of [1, 20, 1500]) {
            expect(cos.search(q, k, idOf, accept)).toEqual(referenceSearch(normalised, dim, qn, k, accept));
            expect(ip.search(q, k, idOf, accept)).toEqual(referenceSearch(v, dim, q, k, accept));
          }
          expect(cos.scoreItems(q, [5, 0, 1199])).toEqual([5, 0, 1199].map((i) => dot(normalised, i * dim, qn)));
        }
      }
    }
  });

  it('gives NaN for an item that is not a row', () => {
    const idx = new ExactDenseIndex(fixture(3, 16, 1), 16);
    expect(idx.scoreItems(fixture(1, 16, 2), [3, -1, 0.5]).every(Number.isNaN)).toBe(true);
  });
});

describe('Int8DenseIndex over the kernel', () => {
  it('returns exactly the reference hits and scores (its own float64 scoring of every row), WebAssembly and JS', () => {
    for (const dim of [384, 37]) {
      const v = fixture(1000, dim, 5 + dim);
      const data = new Int8DenseIndex(v, dim).toData();
      for (const wasm of [true, false]) {
        setWasmScan(wasm);
        const idx = Int8DenseIndex.fromData(data);
        expect(Array.from(idx.toData().codes)).toEqual(Array.from(data.codes));
        for (let t = 0; t < 10; t++) {
          const q = fixture(1, dim, 2000 + t);
          const all = idx.scoreItems(q, range(1000));
          const accept = t % 2 === 0 ? (i: number) => i % 7 !== 3 : undefined;
          for (const k of [1, 20, 1200]) expect(idx.search(q, k, idOf, accept)).toEqual(topK(all, range(1000), k, idOf, accept));
        }
      }
    }
  });
});
