/**
 * A hand-assembled WebAssembly module (no toolchain: the bytes are written here) with the exact-scan kernels of
 * dense.ts and quantized.ts. It imports its memory, so each index owns one `WebAssembly.Memory` holding its rows.
 *
 *  - `scanF32(rows, n, strideBytes, q, out)`: out[i] = Σ_j rows[i·stride + j]·q[j] in float32 SIMD: four f32x4
 *    accumulators over 16 floats per step (strideBytes a multiple of 64, the rows and q zero-padded), summed as
 *    ((a0 + a1) + (a2 + a3)) and then lanes (l0 + l1) + (l2 + l3).
 *  - `scanF32x4(rows, n, strideBytes, q4, out)`: the same for four queries at once (q4 = four padded queries one
 *    after the other, out[4i + t] the score of query t), each row read once for the four (blocked over queries),
 *    two f32x4 accumulators per query (chunks alternate between them).
 *  - `sumTable(codes, n, rowBytes, table, out)`: out[i] = Σ_j table[j·256 + codes[i·rowBytes + j]] (four codes read
 *    as one word, scalar table loads, four float32 accumulators s_{j mod 4}, summed (s0 + s1) + (s2 + s3);
 *    rowBytes a multiple of 4, the table's rows past dim zero). The companded codes (quantize-int8.ts) stand for
 *    non-uniform levels, so an integer dot product (i32x4.dot_i16x8_s) cannot score them, and per-code lookups do
 *    not vectorise (no gather in WebAssembly SIMD).
 * Everything is float32; scan-kernel.ts bounds the error and re-scores the hits with the float64 reference.
 */

const I32 = 0x7f;
const V128 = 0x7b;
const F32 = 0x7d;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];

// Instructions
const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const tee = (i: number) => [0x22, ...uleb(i)];
const i32c = (v: number) => [0x41, ...sleb(v)];
const ADD = [0x6a], LT_U = [0x49], EQZ = [0x45], SUB = [0x6b], SHL = [0x74], SHR_U = [0x76], AND = [0x71];
const BLOCK = [0x02, 0x40], LOOP = [0x03, 0x40], END = [0x0b];
const brIf = (depth: number) => [0x0d, ...uleb(depth)];
const f32Load = (offset: number) => [0x2a, 0x02, ...uleb(offset)];
const f32Store = [0x38, 0x02, 0x00];
const i32Load = (offset: number) => [0x28, 0x02, ...uleb(offset)];
const F32_ADD = [0x92];
const F32_ZERO = [0x43, 0, 0, 0, 0];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const vLoad = (offset: number) => simd(0x00, 0x04, ...uleb(offset));
const V_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
const VADD = simd(0xe4), VMUL = simd(0xe6);
const lane = (l: number) => simd(0x1f, l);

/** Stores (t0 + t1) + (t2 + t3) of the f32x4 in local `v` at the address on the stack. */
function storeLanes(v: number): number[] {
  return [...get(v), ...lane(0), ...get(v), ...lane(1), ...F32_ADD, ...get(v), ...lane(2), ...get(v), ...lane(3), ...F32_ADD, ...F32_ADD, ...f32Store];
}

/** Loop over n rows (param 1), `body` per row; the row counter counts down to 0. */
function rowLoop(body: number[]): number[] {
  return [...BLOCK, ...get(1), ...EQZ, ...brIf(0), ...LOOP, ...body, ...get(1), ...i32c(1), ...SUB, ...tee(1), ...brIf(0), ...END, ...END];
}

// scanF32 / scanF32x4 params: 0 rows, 1 n, 2 strideBytes, 3 q, 4 out; locals: 5 end, 6 qp, 7.. v128 accumulators.
function scanF32Body(): number[] {
  const acc = (a: number, off: number) => [...get(7 + a), ...get(0), ...vLoad(off), ...get(6), ...vLoad(off), ...VMUL, ...VADD, ...set(7 + a)];
  const row = [
    ...[0, 1, 2, 3].flatMap((a) => [...V_ZERO, ...set(7 + a)]),
    ...get(0), ...get(2), ...ADD, ...set(5), ...get(3), ...set(6),
    ...LOOP, ...acc(0, 0), ...acc(1, 16), ...acc(2, 32), ...acc(3, 48),
    ...get(0), ...i32c(64), ...ADD, ...tee(0), ...get(6), ...i32c(64), ...ADD, ...set(6), ...get(5), ...LT_U, ...brIf(0), ...END,
    ...get(4), ...get(7), ...get(8), ...VADD, ...get(9), ...get(10), ...VADD, ...VADD, ...set(11), ...storeLanes(11),
    ...get(4), ...i32c(4), ...ADD, ...set(4),
  ];
  return [...vec([[1, I32], [1, I32], [5, V128]]), ...rowLoop(row), ...END];
}

// scanF32x4 locals: 5 end, 6 qp (query 0's chunk), 7 x (the row's chunk), 8–23 accumulators (query t, accumulator
// a) = 8 + 4t + a, 24 sum, 25–27 query 1–3's chunk (qp + t·strideBytes).
function scanF32x4Body(): number[] {
  const A = (t: number, a: number) => 8 + 4 * t + (a & 1); // two accumulators per query (16 would not fit the registers)
  const QP = [6, 25, 26, 27];
  const step = (a: number) => [
    ...get(0), ...vLoad(16 * a), ...set(7),
    ...[0, 1, 2, 3].flatMap((t) => [...get(A(t, a)), ...get(7), ...get(QP[t]!), ...vLoad(16 * a), ...VMUL, ...VADD, ...set(A(t, a))]),
  ];
  const sumOf = (t: number) => [
    ...get(4), ...get(A(t, 0)), ...get(A(t, 1)), ...VADD, ...set(24), ...storeLanes(24),
    ...get(4), ...i32c(4), ...ADD, ...set(4),
  ];
  const row = [
    ...Array.from({ length: 16 }, (_, k) => [...V_ZERO, ...set(8 + k)]).flat(),
    ...get(0), ...get(2), ...ADD, ...set(5), ...get(3), ...set(6),
    ...[1, 2, 3].flatMap((t) => [...get(QP[t - 1]!), ...get(2), ...ADD, ...set(QP[t]!)]),
    ...LOOP, ...step(0), ...step(1), ...step(2), ...step(3),
    ...get(0), ...i32c(64), ...ADD, ...tee(0),
    ...QP.flatMap((l) => [...get(l), ...i32c(64), ...ADD, ...set(l)]),
    ...get(5), ...LT_U, ...brIf(0), ...END,
    ...sumOf(0), ...sumOf(1), ...sumOf(2), ...sumOf(3),
  ];
  return [...vec([[1, I32], [1, I32], [18, V128], [3, I32]]), ...rowLoop(row), ...END];
}

// sumTable params: 0 codes, 1 n, 2 rowBytes, 3 table, 4 out; locals: 5 end, 6 tp, 7–10 f32 sums, 11 w (four codes
// read as one little-endian word: one load instead of four, the bytes taken apart by shifts).
function sumTableBody(): number[] {
  const byteTimes4 = (c: number) => (c === 0 ? [...i32c(2), ...SHL] : [...i32c(8 * c - 2), ...SHR_U]);
  const term = (c: number) => [
    ...get(7 + c), ...get(6), ...get(11), ...byteTimes4(c), ...i32c(1020), ...AND, ...ADD, ...f32Load(1024 * c), ...F32_ADD, ...set(7 + c),
  ];
  const row = [
    ...[0, 1, 2, 3].flatMap((c) => [...F32_ZERO, ...set(7 + c)]),
    ...get(0), ...get(2), ...ADD, ...set(5), ...get(3), ...set(6),
    ...LOOP, ...get(0), ...i32Load(0), ...set(11), ...term(0), ...term(1), ...term(2), ...term(3),
    ...get(0), ...i32c(4), ...ADD, ...tee(0), ...get(6), ...i32c(4096), ...ADD, ...set(6), ...get(5), ...LT_U, ...brIf(0), ...END,
    ...get(4), ...get(7), ...get(8), ...F32_ADD, ...get(9), ...get(10), ...F32_ADD, ...F32_ADD, ...f32Store,
    ...get(4), ...i32c(4), ...ADD, ...set(4),
  ];
  return [...vec([[1, I32], [1, I32], [4, F32], [1, I32]]), ...rowLoop(row), ...END];
}

/** The module's bytes. */
export function scanModuleBytes(): Uint8Array<ArrayBuffer> {
  const fnType = [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0x00];
  const bodies = [scanF32Body(), scanF32x4Body(), sumTableBody()];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([fnType])),
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec([[0], [0], [0]])),
    ...section(7, vec([[...name('scanF32'), 0x00, 0], [...name('scanF32x4'), 0x00, 1], [...name('sumTable'), 0x00, 2]])),
    ...section(10, vec(bodies.map((b) => [...uleb(b.length), ...b]))),
  ]);
}

export type ScanFn = (rows: number, n: number, strideBytes: number, q: number, out: number) => void;
export interface ScanKernels {
  scanF32: ScanFn;
  scanF32x4: ScanFn;
  sumTable: ScanFn;
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is missing (the JS kernels run instead). */
function scanModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    const bytes = scanModuleBytes();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  }
  return compiled;
}

/** Set RAG_LAB_SCAN=js (Node) or call with `false` to force the JS kernels (benchmarks and tests compare both). */
let wasmEnabled = true;
export function setWasmScan(enabled: boolean): void {
  wasmEnabled = enabled;
}

/** A memory of at least `bytes` and the kernels over it, or null (no WebAssembly SIMD, or disabled). */
export function scanInstance(bytes: number): { memory: WebAssembly.Memory; kernels: ScanKernels } | null {
  const mod = wasmEnabled ? scanModule() : null;
  if (!mod) return null;
  const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
  const exports = new WebAssembly.Instance(mod, { env: { memory } }).exports as unknown as ScanKernels;
  return { memory, kernels: exports };
}
