/**
 * Cross-encoder reranker: raw relevance logits of (query, passage) pairs, as Sentence-Transformers' CrossEncoder
 * computes them for single-logit models (e.g. ms-marco-MiniLM-L-6-v2). sigmoid(logit) is a relevance probability.
 */
import { loadPairClassifier } from './classifier.ts';
import type { LoadOptions } from './loading.ts';
import type { ModelSpec, PairScorer } from './types.ts';

export interface CrossEncoderOptions extends LoadOptions {
  /** Pairs per forward pass. Default 8, the fastest of 8/16/32/64 (bench:models --batches, docs/internals/models.md). */
  batchSize?: number;
}

export interface CrossEncoder extends PairScorer {
  /** Tokens per (query, passage) input; longer pairs are trimmed 'longest_first', keeping the separators. */
  readonly maxLength: number;
  dispose(): Promise<void>;
}

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export async function loadCrossEncoder(spec: ModelSpec, opts: CrossEncoderOptions = {}): Promise<CrossEncoder> {
  const clf = await loadPairClassifier(spec, opts);
  const batchSize = opts.batchSize ?? 8;
  return {
    spec,
    maxLength: clf.maxLength,
    async score(query: string, passages: readonly string[]): Promise<number[]> {
      if (passages.length === 0) return [];
      const { data, width } = await clf.logits(passages.map((p) => clf.encodePair(query, p)), batchSize);
      if (width > 2) throw new Error(`Model "${spec.id}" returns ${width} logits per pair: it is a classifier, not a reranker.`);
      // Single-logit rerankers: the logit. Two-class models: the "relevant" (last) class minus the other, the logit
      // of its softmax probability, so sigmoid() still gives that probability.
      return passages.map((_, i) => (width === 1 ? data[i]! : data[i * width + width - 1]! - data[i * width]!));
    },
    dispose: () => clf.dispose(),
  };
}
