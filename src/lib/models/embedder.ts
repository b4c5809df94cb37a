/**
 * Sentence embeddings on the transformers.js feature-extraction pipeline: mean pooling over the attention mask,
 * then L2 normalisation (as Sentence-Transformers does for all-MiniLM-L6-v2, E5, BGE…), with the model's
 * query/passage prefixes.
 *
 * Inputs longer than the tokenizer's model_max_length are cut there by transformers.js (the final [SEP] is dropped,
 * unlike Sentence-Transformers, which also caps at its own max_seq_length, e.g. 256 for all-MiniLM-L6-v2).
 */
import { pipeline, type Tensor } from '@huggingface/transformers';
import { lengthSortedBatches } from './batches.ts';
import { loadConfig, modelLoad, type LoadOptions } from './loading.ts';
import { prefixesFor, type Prefixes } from './registry.ts';
import type { ModelSpec, TextEmbedder } from './types.ts';

export interface EmbedderOptions extends LoadOptions {
  /** Overrides the registry's prefixes for this model (either field). */
  prefixes?: Partial<Prefixes>;
  /** Texts per forward pass (grouped by token count). Default 8, the fastest of 8/16/32/64 (bench:models --batches, docs/internals/models.md). */
  batchSize?: number;
}

export interface Embedder extends TextEmbedder {
  readonly prefixes: Readonly<Prefixes>;
  /** The forward passes `embed` runs for `texts`: row indices grouped by token count (prefix included), shortest first. */
  batchPlan(texts: readonly string[], kind: 'query' | 'passage'): number[][];
  dispose(): Promise<void>;
}

type FeaturePipe = ((texts: string[], o: { pooling: 'mean'; normalize: boolean }) => Promise<Tensor>) & {
  dispose(): Promise<void>;
  tokenizer: { encode(text: string): number[]; model_max_length: number };
};

/**
 * A text with no token the model knows (a corpus-trained model's all-[UNK] text) mean-pools to the zero vector, and
 * transformers.js's normalize then divides 0 by 0: such a row becomes the zero vector (cosine 0 with everything),
 * never NaN.
 */
export function finiteOrZero(row: Float32Array): Float32Array {
  for (let i = 0; i < row.length; i++) if (!Number.isFinite(row[i]!)) return new Float32Array(row.length);
  return row;
}

export async function loadEmbedder(spec: ModelSpec, opts: EmbedderOptions = {}): Promise<Embedder> {
  const prefixes = Object.freeze(prefixesFor(spec.id, opts.prefixes));
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? 8));
  const { pipe, dim } = await modelLoad(spec, opts, async (o) => {
    const config = await loadConfig(spec, o);
    const pipe = (await pipeline('feature-extraction', spec.id, {
      config,
      // The pipeline's own `ready` is dropped by the tracker; modelLoad emits one after the probe below.
      progress_callback: o.progress_callback as never,
      device: o.device,
      dtype: o.dtype,
      session_options: o.session_options as never,
    })) as unknown as FeaturePipe;
    // The embedding size, from a first output (also checks that the session runs).
    const probe = await pipe(['dimension probe'], { pooling: 'mean', normalize: true });
    const dim = probe.dims[probe.dims.length - 1]!;
    return { pipe, dim };
  });

  // Token counts as the model sees them (special tokens included, cut at model_max_length): tokenizing twice costs
  // well under 1 % of a forward pass, and grouping by characters left ~28 % padding on SOTU chunks (800 characters
  // are 100–180 tokens).
  const maxTokens = Number(pipe.tokenizer.model_max_length) || Infinity;
  const batchPlan = (texts: readonly string[], kind: 'query' | 'passage'): number[][] => {
    const prefix = kind === 'query' ? prefixes.query : prefixes.passage;
    if (texts.length <= 1) return texts.length ? [[0]] : [];
    return lengthSortedBatches(texts.map((t) => Math.min(maxTokens, pipe.tokenizer.encode(prefix + t).length)), batchSize);
  };

  return {
    spec,
    dim,
    prefixes,
    batchPlan,
    async embed(texts: readonly string[], kind: 'query' | 'passage'): Promise<Float32Array> {
      const out = new Float32Array(texts.length * dim);
      const prefix = kind === 'query' ? prefixes.query : prefixes.passage;
      for (const rows of batchPlan(texts, kind)) {
        const t = await pipe(rows.map((r) => prefix + texts[r]!), { pooling: 'mean', normalize: true });
        const d = t.dims[t.dims.length - 1];
        if (d !== dim) throw new Error(`Embedder "${spec.id}" returned ${d}-d vectors after ${dim}-d ones.`);
        const v = t.data as Float32Array;
        rows.forEach((r, k) => out.set(finiteOrZero(v.subarray(k * dim, (k + 1) * dim)), r * dim));
      }
      return out;
    },
    dispose: () => pipe.dispose(),
  };
}
