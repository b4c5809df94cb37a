/**
 * The inputs of `npm run bench:models` (scripts/bench-models.ts): State of the Union chunks spread over the corpus,
 * and the sequence lengths the models see for them (tokens per chunk, per pair, per padded forward pass).
 */
import { AutoTokenizer } from '@huggingface/transformers';
import { mean, percentile } from '../../src/lib/stats/summary.ts';
import { lengthSortedBatches } from '../../src/lib/models/batches.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { chunkText } from '../../src/lib/retrieval/chunk.ts';
import type { BenchModels } from './models-fixtures.ts';
import { SOTU_BENCH_QUERIES } from './sotu-queries.ts';

import type { Args } from './models-args.ts';

const r2 = (x: number) => Math.round(x * 100) / 100;

/** `n` chunks spread evenly over every chunk of the corpus (deterministic). */
export function sampleChunks(texts: readonly string[], n: number): string[] {
  const all = texts.flatMap((t, i) => chunkText(String(i), t).map((c) => c.text));
  const step = all.length / n;
  return Array.from({ length: Math.min(n, all.length) }, (_, i) => all[Math.floor(i * step)]!);
}

function dist(xs: readonly number[]) {
  return { mean: r2(mean(xs)), p50: r2(percentile(xs, 50)), p95: r2(percentile(xs, 95)), max: Math.max(...xs) };
}

/** Sequence lengths the models see: tokens per input (with [CLS]/[SEP]) and per padded forward pass. */
export async function tokenStats(models: BenchModels, chunks: readonly string[], args: Args, rerankBatch: number) {
  configureModels({ localModelPath: models.root, allowRemote: false });
  const tok = await AutoTokenizer.from_pretrained(models.embedderId);
  const max = Number(tok.model_max_length);
  const unk = tok.encode('[UNK]', { add_special_tokens: false })[0];
  const ids = chunks.map((c) => tok.encode(c));
  const lens = ids.map((x) => Math.min(max, x.length));
  const unknown = ids.reduce((a, x) => a + x.filter((id) => id === unk).length, 0);
  // Padded length per forward pass, batched as the app batches (lengthSortedBatches: by characters for embedding
  // batches, by tokens for rerank pairs).
  const padded: number[] = [];
  for (let i = 0; i < chunks.length; i += args.batch) {
    const batch = chunks.slice(i, i + args.batch);
    for (const rows of lengthSortedBatches(batch.map((c) => c.length), args.batch)) padded.push(Math.max(...rows.map((r) => lens[i + r]!)));
  }
  const pairLens: number[] = [];
  const pairPadded: number[] = [];
  const span = Math.max(1, chunks.length - args.pairs);
  for (let run = 0; run < args.warmup + args.runs; run++) {
    const q = SOTU_BENCH_QUERIES[run % SOTU_BENCH_QUERIES.length]!;
    const offset = (run * args.pairs) % span;
    const ls = chunks.slice(offset, offset + args.pairs).map((p) =>
      Math.min(max, (tok(q, { text_pair: p, return_tensor: false }) as unknown as { input_ids: number[] }).input_ids.length));
    pairLens.push(...ls);
    for (const rows of lengthSortedBatches(ls, rerankBatch)) pairPadded.push(Math.max(...rows.map((r) => ls[r]!)));
  }
  const chars = chunks.map((c) => c.length);
  return {
    chunkChars: dist(chars),
    charsPerToken: r2(chars.reduce((a, b) => a + b, 0) / lens.reduce((a, b) => a + b, 0)),
    unknownTokenShare: r2((unknown / lens.reduce((a, b) => a + b, 0)) * 1e4) / 1e4,
    modelMaxLength: max,
    tokensPerChunk: dist(lens),
    paddedTokensPerEmbedBatch: dist(padded),
    tokensPerPair: dist(pairLens),
    paddedTokensPerRerankPass: dist(pairPadded),
  };
}
