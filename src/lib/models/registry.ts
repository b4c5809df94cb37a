/**
 * Which models the app offers per task, their default dtype per device, and the text prefixes each embedder family
 * was trained with.
 * Pure data: importing this module does not load transformers.js.
 */
import type { Device, Dtype, ModelTask } from './types.ts';

export interface Prefixes {
  /** Prepended to queries before embedding. */
  query: string;
  /** Prepended to passages before embedding. */
  passage: string;
}

export interface ModelOption {
  id: string;
  task: ModelTask;
  /** Short human description for pickers. */
  label: string;
  /** Embedding size (embedders). */
  dim?: number;
}

/**
 * q8 on WASM (model_quantized.onnx: 4× smaller, int8 kernels); fp32 on WebGPU (every ONNX repo has model.onnx; fp16
 * halves the download but needs `shader-f16` and a model_fp16.onnx) and on Node's CPU (transformers.js's own Node
 * default). Always overridable through the ModelSpec.
 */
export function defaultDtype(device: Device): Dtype {
  return device === 'wasm' ? 'q8' : 'fp32';
}

/** Default Hub ids per task. */
export const DEFAULT_MODELS: Readonly<Record<ModelTask, string>> = Object.freeze({
  embedder: 'Xenova/all-MiniLM-L6-v2',
  'cross-encoder': 'Xenova/ms-marco-MiniLM-L-6-v2',
  // ONNX export of cross-encoder/nli-deberta-v3-base (id2label 0 contradiction, 1 entailment, 2 neutral).
  nli: 'Xenova/nli-deberta-v3-base',
});

/** Models offered per task; the first of each list is the default. Any other Hub id can be typed in. */
export const MODEL_OPTIONS: Readonly<Record<ModelTask, readonly Readonly<ModelOption>[]>> = Object.freeze({
  embedder: Object.freeze([
    Object.freeze({ id: 'Xenova/all-MiniLM-L6-v2', task: 'embedder', label: 'all-MiniLM-L6-v2 (384-d, no prefixes)', dim: 384 }),
    Object.freeze({ id: 'Xenova/bge-small-en-v1.5', task: 'embedder', label: 'BGE small en v1.5 (384-d, query instruction)', dim: 384 }),
    Object.freeze({ id: 'Xenova/e5-small-v2', task: 'embedder', label: 'E5 small v2 (384-d, query:/passage:)', dim: 384 }),
    Object.freeze({ id: 'Xenova/multilingual-e5-small', task: 'embedder', label: 'multilingual E5 small (384-d, query:/passage:)', dim: 384 }),
  ] as const),
  'cross-encoder': Object.freeze([
    Object.freeze({ id: 'Xenova/ms-marco-MiniLM-L-6-v2', task: 'cross-encoder', label: 'MS MARCO MiniLM-L-6 v2' }),
  ] as const),
  nli: Object.freeze([
    Object.freeze({ id: 'Xenova/nli-deberta-v3-base', task: 'nli', label: 'NLI DeBERTa-v3 base' }),
    Object.freeze({ id: 'Xenova/nli-deberta-v3-xsmall', task: 'nli', label: 'NLI DeBERTa-v3 xsmall (faster)' }),
  ] as const),
});

const BGE_EN_QUERY = 'Represent this sentence for searching relevant passages: ';

export interface PrefixRule {
  /** Tested against the model id (case-insensitive patterns recommended). */
  pattern: RegExp;
  prefixes: Readonly<Prefixes>;
}

/** First match wins. Ids are matched anywhere, so `intfloat/e5-base-v2`, `Xenova/e5-base-v2` and local copies agree. */
export const PREFIX_RULES: readonly Readonly<PrefixRule>[] = Object.freeze([
  // E5 instruct models take a task instruction on queries and nothing on passages.
  {
    pattern: /(^|[/_-])(multilingual-)?e5-[\w.-]*instruct/i,
    prefixes: { query: 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ', passage: '' },
  },
  { pattern: /(^|[/_-])(multilingual-)?e5-/i, prefixes: { query: 'query: ', passage: 'passage: ' } },
  // bge-m3 needs no instruction; Chinese BGE models use a Chinese one; the English ones use BGE_EN_QUERY.
  { pattern: /(^|[/_-])bge-m3/i, prefixes: { query: '', passage: '' } },
  { pattern: /(^|[/_-])bge-[\w.-]*-zh/i, prefixes: { query: '为这个句子生成表示以用于检索相关文章：', passage: '' } },
  { pattern: /(^|[/_-])bge-(small|base|large)/i, prefixes: { query: BGE_EN_QUERY, passage: '' } },
  { pattern: /(^|[/_-])mxbai-embed-large/i, prefixes: { query: BGE_EN_QUERY, passage: '' } },
  { pattern: /(^|[/_-])nomic-embed-text/i, prefixes: { query: 'search_query: ', passage: 'search_document: ' } },
].map((r) => Object.freeze({ pattern: r.pattern, prefixes: Object.freeze(r.prefixes) })));

const NO_PREFIXES: Readonly<Prefixes> = Object.freeze({ query: '', passage: '' });

/**
 * The query/passage prefixes for a model id: the first matching rule (no prefixes when none matches), with any
 * field of `overrides` taking precedence.
 */
export function prefixesFor(modelId: string, overrides?: Partial<Prefixes>, rules: readonly PrefixRule[] = PREFIX_RULES): Prefixes {
  const base = rules.find((r) => r.pattern.test(modelId))?.prefixes ?? NO_PREFIXES;
  return { query: overrides?.query ?? base.query, passage: overrides?.passage ?? base.passage };
}
