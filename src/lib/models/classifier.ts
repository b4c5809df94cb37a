/**
 * A sequence-pair classifier (AutoTokenizer + AutoModelForSequenceClassification) that returns raw logits.
 * Shared by the cross-encoder (one logit) and NLI (three). The text-classification pipeline is not used: it applies
 * softmax (a single-logit model always scores 1) and cannot take text pairs.
 */
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  Tensor,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { lengthSortedBatches } from './batches.ts';
import { loadConfig, maxInputLength, modelLoad, type LoadOptions } from './loading.ts';
import { locatePair, longestFirst, padBatch, slicePair, specialCount, type Encoding, type PairLayout } from './pair-encoding.ts';
import type { ModelSpec } from './types.ts';

export interface PairClassifier {
  readonly spec: ModelSpec;
  /** Tokens the model accepts per input (template tokens included). */
  readonly maxLength: number;
  /** config.id2label by class index (empty when the config has none). */
  readonly labels: readonly string[];
  readonly tokenizer: PreTrainedTokenizer;
  /** The model's pair encoding of (a, b), untruncated. */
  encodeFull(a: string, b: string): Encoding;
  /** Token ids of a text alone, without template tokens. */
  ids(text: string): number[];
  /** (a, b) truncated 'longest_first' to maxLength, keeping the template's special tokens. */
  encodePair(a: string, b: string): Encoding;
  /** Where a and b sit in their full pair encoding (null if they cannot be found as contiguous runs). */
  layout(full: Encoding, aIds: readonly number[], bIds: readonly number[]): PairLayout | null;
  /** Logits of encoded inputs, row-major n × width (the model's number of outputs), in input order; run `batchSize` at a time, shortest inputs first. */
  logits(encodings: readonly Encoding[], batchSize: number): Promise<{ data: Float32Array; width: number }>;
  dispose(): Promise<void>;
}

function int64(rows: number[][]): Tensor {
  const n = rows.length;
  const len = rows[0]?.length ?? 0;
  const data = new BigInt64Array(n * len);
  for (let r = 0; r < n; r++) for (let c = 0; c < len; c++) data[r * len + c] = BigInt(rows[r]![c]!);
  return new Tensor('int64', data, [n, len]);
}

export async function loadPairClassifier(spec: ModelSpec, opts: LoadOptions = {}): Promise<PairClassifier> {
  return modelLoad(spec, opts, async (o) => {
    const config = await loadConfig(spec, o);
    const [tokenizer, model] = await Promise.all([
      AutoTokenizer.from_pretrained(spec.id, { progress_callback: o.progress_callback as never }),
      AutoModelForSequenceClassification.from_pretrained(spec.id, {
        config,
        progress_callback: o.progress_callback as never,
        device: o.device,
        dtype: o.dtype,
        session_options: o.session_options as never,
      }),
    ]);
    return makePairClassifier(spec, tokenizer, model, config as unknown as { id2label?: Record<string, string>; model_type?: string | null; max_position_embeddings?: number });
  });
}

function makePairClassifier(
  spec: ModelSpec,
  tokenizer: PreTrainedTokenizer,
  model: PreTrainedModel,
  config: { id2label?: Record<string, string>; model_type?: string | null; max_position_embeddings?: number },
): PairClassifier {
  const maxLength = maxInputLength(tokenizer.model_max_length, config);
  const id2label = config.id2label ?? {};
  const n = Math.max(0, ...Object.keys(id2label).map((k) => Number(k) + 1));
  const labels = Array.from({ length: n }, (_, i) => String(id2label[String(i)] ?? `LABEL_${i}`));
  const padId = typeof tokenizer.pad_token_id === 'number' ? tokenizer.pad_token_id : 0;

  const encodeFull = (a: string, b: string): Encoding => {
    // transformers.js treats an empty text_pair as no pair (dropping the second separator); a space keeps the pair
    // template with an empty segment, as Hugging Face tokenizers encode ('', …) pairs.
    const e = tokenizer(a === '' ? ' ' : a, { text_pair: b === '' ? ' ' : b, return_tensor: false }) as unknown as Encoding;
    const out: Encoding = { input_ids: [...e.input_ids], attention_mask: [...e.attention_mask] };
    if (e.token_type_ids) out.token_type_ids = [...e.token_type_ids];
    return out;
  };
  const ids = (text: string): number[] => tokenizer.encode(text, { add_special_tokens: false });

  const encodePair = (a: string, b: string): Encoding => {
    const full = encodeFull(a, b);
    if (full.input_ids.length <= maxLength) return full;
    const layout = locatePair(full.input_ids, ids(a), ids(b));
    if (!layout) {
      // Context-dependent tokenization: fall back to cutting at maxLength (what transformers.js does).
      const cut = (xs: number[]) => xs.slice(0, maxLength);
      const e: Encoding = { input_ids: cut(full.input_ids), attention_mask: cut(full.attention_mask) };
      if (full.token_type_ids) e.token_type_ids = cut(full.token_type_ids);
      return e;
    }
    const [ka, kb] = longestFirst(layout.aLen, layout.bLen, maxLength - specialCount(layout));
    return slicePair(full, layout, [0, ka], [0, kb]);
  };

  const logits = async (encodings: readonly Encoding[], batchSize: number): Promise<{ data: Float32Array; width: number }> => {
    let data = new Float32Array(0);
    let width = 0;
    for (const rows of lengthSortedBatches(encodings.map((e) => e.input_ids.length), batchSize)) {
      const batch = padBatch(rows.map((r) => encodings[r]!), padId);
      const feeds: Record<string, Tensor> = { input_ids: int64(batch.input_ids), attention_mask: int64(batch.attention_mask) };
      if (batch.token_type_ids) feeds.token_type_ids = int64(batch.token_type_ids);
      const res = (await model(feeds)) as { logits: Tensor };
      const w = res.logits.dims[1] ?? 1;
      if (width === 0) {
        width = w;
        data = new Float32Array(encodings.length * width);
      } else if (w !== width) throw new Error(`Model "${spec.id}" returned ${w} logits per input after ${width}.`);
      const out = res.logits.data as Float32Array;
      rows.forEach((r, k) => data.set(out.subarray(k * width, (k + 1) * width), r * width));
    }
    return { data, width };
  };

  return {
    spec,
    maxLength,
    labels,
    tokenizer,
    encodeFull,
    ids,
    encodePair,
    layout: (full, a, b) => locatePair(full.input_ids, a, b),
    logits,
    dispose: async () => {
      await model.dispose();
    },
  };
}
