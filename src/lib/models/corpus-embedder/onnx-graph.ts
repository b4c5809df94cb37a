/**
 * The ONNX graphs of a static token-embedding model, written with `protobuf.ts` (field numbers from onnx/onnx.proto,
 * IR version 8, opset 13). Inputs are those of a BERT export — input_ids, attention_mask, token_type_ids, int64
 * [batch, sequence] — and the one output is last_hidden_state[b, t] = E[input_ids[b, t]] (float [batch, sequence,
 * dim]); attention_mask and token_type_ids are accepted and unused (transformers.js mean-pools over the mask).
 *   fp32 (onnx/model.onnx): Gather(E, input_ids).
 *   q8 (onnx/model_quantized.onnx): Cast(Gather(E_q, input_ids)) · Unsqueeze(Gather(scale, input_ids), −1), E_q int8
 *   per-row symmetric (`quantizeRows`).
 */
import { encodeMessage, type Field } from './protobuf.ts';

const FLOAT = 1, INT8 = 3, INT64 = 7; // TensorProto.DataType
const ATTR_INT = 2; // AttributeProto.AttributeType
export const IR_VERSION = 8;
export const OPSET = 13;

/** Little-endian bytes of a typed array (ONNX raw_data is little-endian whatever the platform). */
function rawBytes(a: Float32Array | Int8Array | BigInt64Array): Uint8Array {
  if (a instanceof Int8Array) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const view = new DataView(out.buffer);
  if (a instanceof Float32Array) for (let i = 0; i < a.length; i++) view.setFloat32(i * 4, a[i]!, true);
  else for (let i = 0; i < a.length; i++) view.setBigInt64(i * 8, a[i]!, true);
  return out;
}

function tensor(name: string, type: number, dims: readonly number[], data: Float32Array | Int8Array | BigInt64Array): Field[] {
  return [{ n: 1, packed: dims }, { n: 2, varint: type }, { n: 8, string: name }, { n: 9, bytes: rawBytes(data) }];
}

/** ValueInfoProto of a tensor whose dims are names (symbolic) or sizes. */
function valueInfo(name: string, type: number, dims: readonly (string | number)[]): Field[] {
  const dim = dims.map((d): Field => ({ n: 1, message: [typeof d === 'number' ? { n: 1, varint: d } : { n: 2, string: d }] }));
  return [{ n: 1, string: name }, { n: 2, message: [{ n: 1, message: [{ n: 1, varint: type }, { n: 2, message: dim }] }] }];
}

function node(op: string, inputs: readonly string[], outputs: readonly string[], attrs: Field[][] = []): Field[] {
  return [
    ...inputs.map((s): Field => ({ n: 1, string: s })),
    ...outputs.map((s): Field => ({ n: 2, string: s })),
    { n: 3, string: `${op}_${outputs[0]}` },
    { n: 4, string: op },
    ...attrs.map((a): Field => ({ n: 5, message: a })),
  ];
}

const intAttr = (name: string, i: number): Field[] => [{ n: 1, string: name }, { n: 3, varint: i }, { n: 20, varint: ATTR_INT }];

const INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => valueInfo(n, INT64, ['batch_size', 'sequence_length']));

function model(graphName: string, nodes: Field[][], initializers: Field[][], dim: number, doc: string): Uint8Array {
  const graph: Field[] = [
    ...nodes.map((m): Field => ({ n: 1, message: m })),
    { n: 2, string: graphName },
    ...initializers.map((m): Field => ({ n: 5, message: m })),
    { n: 10, string: doc },
    ...INPUTS.map((m): Field => ({ n: 11, message: m })),
    { n: 12, message: valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', dim]) },
  ];
  return encodeMessage([
    { n: 1, varint: IR_VERSION },
    { n: 2, string: 'rag-lab' },
    { n: 3, string: '1' },
    { n: 6, string: doc },
    { n: 7, message: graph },
    { n: 8, message: [{ n: 1, string: '' }, { n: 2, varint: OPSET }] },
  ]);
}

/** onnx/model.onnx: E (vocab × dim, row-major) gathered by token id. */
export function embeddingModelFp32(e: Float32Array, vocab: number, dim: number, doc: string): Uint8Array {
  if (e.length !== vocab * dim) throw new Error(`embeddingModelFp32: ${e.length} values for ${vocab} × ${dim}`);
  return model('corpus_embedder', [node('Gather', ['embeddings', 'input_ids'], ['last_hidden_state'], [intAttr('axis', 0)])],
    [tensor('embeddings', FLOAT, [vocab, dim], e)], dim, doc);
}

/** Per-row symmetric int8: scale_r = max_j |E_rj| / 127, q_rj = round(E_rj / scale_r) (scale 0 for a zero row). */
export function quantizeRows(e: Float32Array, vocab: number, dim: number): { q: Int8Array; scales: Float32Array } {
  const q = new Int8Array(vocab * dim);
  const scales = new Float32Array(vocab);
  for (let r = 0; r < vocab; r++) {
    let max = 0;
    for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(e[r * dim + j]!));
    const scale = Math.fround(max / 127);
    scales[r] = scale;
    if (scale === 0) continue;
    for (let j = 0; j < dim; j++) q[r * dim + j] = Math.max(-127, Math.min(127, Math.round(e[r * dim + j]! / scale)));
  }
  return { q, scales };
}

/** onnx/model_quantized.onnx: int8 rows times their float scale. */
export function embeddingModelQ8(e: Float32Array, vocab: number, dim: number, doc: string): Uint8Array {
  if (e.length !== vocab * dim) throw new Error(`embeddingModelQ8: ${e.length} values for ${vocab} × ${dim}`);
  const { q, scales } = quantizeRows(e, vocab, dim);
  return model('corpus_embedder_q8', [
    node('Gather', ['embeddings_q', 'input_ids'], ['rows_q'], [intAttr('axis', 0)]),
    node('Cast', ['rows_q'], ['rows'], [intAttr('to', FLOAT)]),
    node('Gather', ['scales', 'input_ids'], ['row_scale'], [intAttr('axis', 0)]),
    node('Unsqueeze', ['row_scale', 'last_axis'], ['row_scale_1']),
    node('Mul', ['rows', 'row_scale_1'], ['last_hidden_state']),
  ], [
    tensor('embeddings_q', INT8, [vocab, dim], q),
    tensor('scales', FLOAT, [vocab], scales),
    tensor('last_axis', INT64, [1], BigInt64Array.of(-1n)),
  ], dim, doc);
}
