/** What the rest of the core needs from models, independent of the runtime that provides them. */

export type ModelTask = 'embedder' | 'cross-encoder' | 'nli';
export type Device = 'wasm' | 'webgpu' | 'cpu';
export type Dtype = 'fp32' | 'fp16' | 'q8' | 'q4';

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
