/** What the rest of the core needs from models, independent of the runtime that provides them. */

export type ModelTask = 'embedder' | 'cross-encoder' | 'nli';
export type Device = 'wasm' | 'webgpu' | 'cpu';
/**
 * The ONNX variants transformers.js loads by dtype (`onnx/model<suffix>.onnx`): fp32 `model`, fp16 `model_fp16`,
 * q8 `model_quantized` (int8 weights), uint8 `model_uint8`, q4 `model_q4` (4-bit MatMulNBits). Listed in the order
 * Settings offers them.
 */
export const DTYPES = ['q8', 'fp32', 'uint8', 'q4', 'fp16'] as const;
export type Dtype = (typeof DTYPES)[number];

/** Whether a flag or stored value names one of {@link DTYPES}. */
export const isDtype = (x: unknown): x is Dtype => (DTYPES as readonly unknown[]).includes(x);

export interface ModelSpec {
  /** Hub id (`Xenova/all-MiniLM-L6-v2`) or a folder name under the local model path. */
  id: string;
  dtype: Dtype;
  device: Device;
}

/** Per-file download progress (bytes), as transformers.js reports it. */
export interface FileProgress {
  model: string;
  file: string;
  loaded: number;
  total: number;
  status: 'initiate' | 'download' | 'progress' | 'done' | 'ready';
}

/** Sentence embeddings: mean pooling over the attention mask, then L2 normalisation. */
export interface TextEmbedder {
  readonly spec: ModelSpec;
  readonly dim: number;
  /** Row-major n × dim vectors; `kind` selects the model's query or passage prefix. */
  embed(texts: readonly string[], kind: 'query' | 'passage'): Promise<Float32Array>;
  /** Frees the ONNX session (WASM/WebGPU memory); the object is unusable afterwards. */
  dispose?(): Promise<void>;
}

/** Raw relevance logits of (query, passage) pairs; sigmoid(logit) is a relevance probability. */
export interface PairScorer {
  readonly spec: ModelSpec;
  score(query: string, passages: readonly string[]): Promise<number[]>;
  /** Frees the ONNX session; the object is unusable afterwards. */
  dispose?(): Promise<void>;
}

export interface NliProbabilities {
  entailment: number;
  neutral: number;
  contradiction: number;
}

/** Natural-language inference; long premises are split into windows and the most entailing window is kept. */
export interface NliClassifier {
  readonly spec: ModelSpec;
  predict(premise: string, hypothesis: string): Promise<NliProbabilities>;
  /** Frees the ONNX session; the object is unusable afterwards. */
  dispose?(): Promise<void>;
}
