/**
 * scripts/bench/models-quantize.py, the generator of the dtype variants `npm run bench:models` / `bench:dtypes` time:
 * on a small graph (y = x · W, g = Gather(E, ids)) each variant, run by onnxruntime-node, gives what its formula in
 * the script's docstring says, computed here independently: q8 and uint8 = dynamic uint8 activations × int8 / uint8
 * weights (ONNX DynamicQuantizeLinear + MatMulInteger semantics), q4 = x · W' with W' the blockwise 4-bit
 * dequantized weights (so the nibble packing and zero points are right), fp16 = float16-rounded weights.
 * Needs Debian's python3-onnx (skipped with a reason without it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PY = '/usr/bin/python3';
const onnxPy = existsSync(PY) && spawnSync(PY, ['-c', 'import onnx, numpy'], { encoding: 'utf8' }).status === 0;
const QUANTIZE = resolve(import.meta.dirname, '../../scripts/bench/models-quantize.py');
const K = 64, N = 48, V = 1100, ROWS = 5;
const IDS = [3, 1099, 0, 512, 77];

const MAKE = `
import sys, numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
d = sys.argv[1]
rng = np.random.default_rng(3)
W = (rng.standard_normal((${K}, ${N})) * 0.5).astype(np.float32)
E = rng.standard_normal((${V}, ${K})).astype(np.float32)
x = (rng.standard_normal((${ROWS}, ${K})) + 0.3).astype(np.float32)
for name, a in [('W', W), ('E', E), ('x', x)]: a.tofile(f'{d}/{name}.bin')
g = helper.make_graph(
    [helper.make_node('MatMul', ['x', 'W'], ['y']), helper.make_node('Gather', ['E', 'ids'], ['g'], axis=0)], 't',
    [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['n', ${K}]), helper.make_tensor_value_info('ids', TensorProto.INT64, ['m'])],
    [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['n', ${N}]), helper.make_tensor_value_info('g', TensorProto.FLOAT, ['m', ${K}])],
    [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(E, 'E')])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]); m.ir_version = 8
import os; os.makedirs(f'{d}/onnx', exist_ok=True); onnx.save(m, f'{d}/onnx/model.onnx')
`;

let dir: string;
let W: Float32Array, E: Float32Array, x: Float32Array;
const bin = (name: string) => { const b = readFileSync(join(dir, `${name}.bin`)); return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); };
/** Round half to even, as numpy.round and ONNX's quantizers do. */
const rint = (v: number) => { const f = Math.floor(v), d = v - f; return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f; };
const clip = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

async function run(file: string): Promise<{ y: Float32Array; g: Float32Array }> {
  const s = await ort.InferenceSession.create(join(dir, 'onnx', file), { intraOpNumThreads: 1 });
  try {
    const out = await s.run({ x: new ort.Tensor('float32', x, [ROWS, K]), ids: new ort.Tensor('int64', BigInt64Array.from(IDS.map(BigInt)), [IDS.length]) });
    return { y: out.y!.data as Float32Array, g: out.g!.data as Float32Array };
  } finally {
    await s.release();
  }
}

/** x · M for M [K, N] given as a function of (k, n). */
function matmul(a: Float32Array, m: (k: number, n: number) => number): number[] {
  const y: number[] = [];
  for (let r = 0; r < ROWS; r++) for (let n = 0; n < N; n++) { let s = 0; for (let k = 0; k < K; k++) s += a[r * K + k]! * m(k, n); y.push(s); }
  return y;
}

/** DynamicQuantizeLinear: s = (max(x, 0) − min(x, 0)) / 255, zp = round(−min(x, 0) / s), q = clip(round(x / s) + zp, 0, 255). */
function dynamicQuantize(a: Float32Array): { q: number[]; s: number; zp: number } {
  const lo = Math.min(0, ...a), hi = Math.max(0, ...a);
  const s = Math.fround((hi - lo) / 255);
  const zp = clip(rint(-lo / s), 0, 255);
  return { q: Array.from(a, (v) => clip(rint(v / s) + zp, 0, 255)), s, zp };
}

/** Weight quantization of the 8-bit variants, returning the dequantizer of W[k, n] and of any table value. */
function weight8(w: Float32Array, kind: 'q8' | 'uint8') {
  if (kind === 'q8') {
    const s = Math.fround(Math.max(...Array.from(w, Math.abs)) / 127); // symmetric, zero point 0
    return { s, zp: 0, q: Array.from(w, (v) => clip(rint(v / s), -127, 127)) };
  }
  const lo = Math.min(0, ...w), hi = Math.max(0, ...w);
  const s = Math.fround((hi - lo) / 255);
  const zp = clip(rint(-lo / s), 0, 255);
  return { s, zp, q: Array.from(w, (v) => clip(rint(v / s) + zp, 0, 255)) };
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i]! - expected[i]!));
  expect(worst).toBeLessThanOrEqual(tol);
}

describe.skipIf(!onnxPy)('models-quantize.py variants (python3-onnx; onnxruntime-node runs them)', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rag-lab-quantize-'));
    for (const args of [['-c', MAKE, dir], [QUANTIZE, dir]]) {
      const r = spawnSync(PY, args, { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
    }
    W = bin('W'); E = bin('E'); x = bin('x');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fp32 is the graph itself', async () => {
    const { y, g } = await run('model.onnx');
    expectClose(y, matmul(x, (k, n) => W[k * N + n]!), 1e-4);
    expectClose(g, IDS.flatMap((i) => Array.from(E.subarray(i * K, (i + 1) * K))), 0);
  });

  it.each(['q8', 'uint8'] as const)('%s: uint8 activations × 8-bit weights, and a dequantized embedding table', async (kind) => {
    const { y, g } = await run(kind === 'q8' ? 'model_quantized.onnx' : 'model_uint8.onnx');
    const a = dynamicQuantize(x);
    const w = weight8(W, kind);
    const expected: number[] = [];
    for (let r = 0; r < ROWS; r++) {
      for (let n = 0; n < N; n++) {
        let acc = 0; // the exact integer sum of MatMulInteger
        for (let k = 0; k < K; k++) acc += (a.q[r * K + k]! - a.zp) * (w.q[k * N + n]! - w.zp);
        expected.push(acc * Math.fround(a.s * w.s));
      }
    }
    const scale = Math.max(...expected.map(Math.abs));
    expectClose(y, expected, 1e-5 * scale);
    const e = weight8(E, kind);
    expectClose(g, IDS.flatMap((i) => Array.from({ length: K }, (_, c) => (e.q[i * K + c]! - e.zp) * e.s)), 1e-6);
    // And it is close to the fp32 product: the quantization error is small against the outputs' size.
    expectClose(y, matmul(x, (k, n) => W[k * N + n]!), 0.05 * scale);
  });

  it('q4: MatMulNBits computes x · W′, W′ dequantized per 32-row block of each column (asymmetric, 4 bits)', async () => {
    const { y, g } = await run('model_q4.onnx');
    const wq = new Float64Array(K * N);
    for (let n = 0; n < N; n++) {
      for (let b = 0; b < K; b += 32) {
        const col = Array.from({ length: 32 }, (_, j) => W[(b + j) * N + n]!);
        const lo = Math.min(0, ...col), hi = Math.max(0, ...col);
        const s = Math.fround((hi - lo) / 15);
        const zp = clip(rint(-lo / s), 0, 15);
        col.forEach((v, j) => { wq[(b + j) * N + n] = (clip(rint(v / s) + zp, 0, 15) - zp) * s; });
      }
    }
    const expected = matmul(x, (k, n) => wq[k * N + n]!);
    expectClose(y, expected, 1e-4 * Math.max(...expected.map(Math.abs)));
    expectClose(g, IDS.flatMap((i) => Array.from(E.subarray(i * K, (i + 1) * K))), 0); // the Gather stays fp32
  });

  it('fp16: float16 weights, float32 outputs', async () => {
    const { y, g } = await run('model_fp16.onnx');
    const expected = matmul(x, (k, n) => W[k * N + n]!);
    // float16 has an 11-bit significand: relative error ≈ 2⁻¹¹ per value, accumulated over K = 64 terms.
    expectClose(y, expected, 0.02 * Math.max(...expected.map(Math.abs)));
    const table = IDS.flatMap((i) => Array.from(E.subarray(i * K, (i + 1) * K)));
    expectClose(g, table, Math.max(...table.map(Math.abs)) * 2 ** -11);
    expect(g).toBeInstanceOf(Float32Array);
    expect(Array.from(g).some((v, i) => v !== table[i])).toBe(true); // rounded to float16: not the float32 table
  });
});
