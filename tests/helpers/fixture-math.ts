/**
 * The tiny fixture models of scripts/make-fixture-models.py, computed by hand from their closed-form weights:
 *
 *   E[i, j] = sin(0.37·i + 1.3·j) · 0.5          word embedding (float32), i = token id, j = dimension
 *   T[t, j] = cos(0.91·t + 0.7·j) · 0.25         token-type embedding
 *   h       = tanh(E[input_ids] + T[token_type_ids])
 *   pooled  = Σ_s mask_s · h_s / Σ_s mask_s
 *   logits  = pooled · W + b,  W[j, c] = cos(0.5·j + 1.1·c + 0.3), b[c] = 0.1·c
 *
 * The q8 files store E and W as symmetric per-tensor int8 (scale = float32(max|w| / 127), q = round-half-even(w /
 * scale) clipped to ±127, dequantized as q · scale); T and b stay float32. `quantized: true` reproduces that.
 * Token ids come from the real tokenizer; everything after the tokenizer is recomputed here.
 */

export const DIM = 16;
export const VOCAB = 317;

const f32 = Math.fround;

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function quantize(w: Float32Array): Float32Array {
  let max = 0;
  for (const x of w) max = Math.max(max, Math.abs(x));
  const scale = f32(max / 127);
  return w.map((x) => f32(Math.min(127, Math.max(-127, roundHalfEven(f32(x / scale)))) * scale));
}

function table(rows: number, cols: number, f: (r: number, c: number) => number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = f(r, c);
  return out;
}

export const E = table(VOCAB, DIM, (i, j) => f32(Math.sin(0.37 * i + 1.3 * j) * 0.5));
export const T = table(2, DIM, (t, j) => f32(Math.cos(0.91 * t + 0.7 * j) * 0.25));
const E_Q = quantize(E);

export function headWeights(nLabels: number): { W: Float32Array; b: Float32Array } {
  return { W: table(DIM, nLabels, (j, c) => f32(Math.cos(0.5 * j + 1.1 * c + 0.3))), b: Float32Array.from({ length: nLabels }, (_, c) => f32(0.1 * c)) };
}

export interface TokenRow {
  ids: readonly number[];
  /** Token types; all 0 when absent. */
  types?: readonly number[];
  /** Attention mask; all 1 when absent. */
  mask?: readonly number[];
}

/** pooled = masked mean of tanh(E[id] + T[type]) (float64 arithmetic on the float32 weights). */
export function pooled(row: TokenRow, quantized = false): number[] {
  const emb = quantized ? E_Q : E;
  const sum = new Array<number>(DIM).fill(0);
  let n = 0;
  row.ids.forEach((id, s) => {
    const m = row.mask?.[s] ?? 1;
    if (!m) return;
    const t = row.types?.[s] ?? 0;
    for (let j = 0; j < DIM; j++) sum[j]! += m * Math.tanh(emb[id * DIM + j]! + T[t * DIM + j]!);
    n += m;
  });
  return sum.map((x) => x / n);
}

/** The embedder's output: L2-normalised pooled vector. */
export function embedding(row: TokenRow, quantized = false): number[] {
  const p = pooled(row, quantized);
  const norm = Math.sqrt(p.reduce((a, x) => a + x * x, 0));
  return p.map((x) => x / Math.max(norm, 1e-12));
}

/**
 * The classifiers' output: pooled · W + b.
 *
 * With q8 weights, ONNX Runtime's CPU graph optimizer ('extended' level and up, the default) fuses
 * DequantizeLinear + MatMul into an int8 kernel that also quantizes the activations: the pooled row is rounded to
 * symmetric int8 (scale max|x| / 127) before the product (measured on x86-64 with onnxruntime-node 1.30; with
 * optimizations off the result is the plain dequantized product). `int8Activations` reproduces that.
 */
export function logits(row: TokenRow, nLabels: number, quantized = false, int8Activations = false): number[] {
  let p = pooled(row, quantized);
  if (int8Activations) {
    const scale = f32(Math.max(...p.map(Math.abs)) / 127);
    p = p.map((x) => f32(roundHalfEven(f32(x / scale)) * scale));
  }
  const { W, b } = headWeights(nLabels);
  const Wq = quantized ? quantize(W) : W;
  return Array.from({ length: nLabels }, (_, c) => p.reduce((a, x, j) => a + x * Wq[j * nLabels + c]!, b[c]!));
}

export function softmax(xs: readonly number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** Largest absolute elementwise difference. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
