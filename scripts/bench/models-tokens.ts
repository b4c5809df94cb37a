/**
 * The inputs of `npm run bench:models` (scripts/bench-models.ts): State of the Union chunks spread over the corpus,
 * and the sequence lengths the models see for them (tokens per chunk, per pair, per padded forward pass).
 */
import { AutoTokenizer } from '@huggingface/transformers';
import { mean, percentile } from '../../src/lib/stats/summary.ts';
import { lengthSortedBatches, paddingShare } from '../../src/lib/models/batches.ts';
import { EMBED_CALL_SIZE } from '../../src/lib/retrieval/dense-build.ts';
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

/** Row indices 0..n−1 cut into calls of `call` rows, each call's rows batched by `batchOf` (indices are global). */
function perCall(n: number, call: number, batchOf: (rows: number[]) => number[][]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < n; i += call) {
    const rows = Array.from({ length: Math.min(call, n - i) }, (_, k) => i + k);
    for (const b of batchOf(rows)) out.push(b.map((k) => rows[k]!));
  }
  return out;
}

const pct = (x: number) => Math.round(x * 1000) / 10;

/**
 * Sequence lengths the models see: tokens per input (with [CLS]/[SEP]) and per padded forward pass, and the padding
 * share (paddingShare: padded positions per real token − 1, in %) for each batch size in `sizes`: embedding in calls
 * of EMBED_CALL_SIZE chunks as the app embeds a knowledge base, batched in arrival order, by characters (the
 * embedder before) or by tokens (the embedder now); reranking each run's pairs in arrival order or by tokens (the
 * classifier).
 */
export async function tokenStats(models: BenchModels, chunks: readonly string[], args: Args, rerankBatch: number, sizes: readonly number[]) {
  configureModels({ localModelPath: models.root, allowRemote: false });
  const tok = await AutoTokenizer.from_pretrained(models.embedderId);
  const max = Number(tok.model_max_length);
  const unk = tok.encode('[UNK]', { add_special_tokens: false })[0];
  const ids = chunks.map((c) => tok.encode(c));
  const lens = ids.map((x) => Math.min(max, x.length));
  const unknown = ids.reduce((a, x) => a + x.filter((id) => id === unk).length, 0);
  const chars = chunks.map((c) => c.length);
  const embedBatches = (size: number, by: 'arrival' | 'chars' | 'tokens') => perCall(chunks.length, EMBED_CALL_SIZE, (rows) =>
    by === 'arrival' ? lengthSortedBatches(rows.map(() => 0), size) : lengthSortedBatches(rows.map((r) => (by === 'chars' ? chars : lens)[r]!), size));
  // Padded length per forward pass, batched as the app batches (by tokens, in calls of EMBED_CALL_SIZE).
  const padded = embedBatches(args.batch, 'tokens').map((rows) => Math.max(...rows.map((r) => lens[r]!)));
  const runs: number[][] = [];
  const span = Math.max(1, chunks.length - args.pairs);
  for (let run = 0; run < args.warmup + args.runs; run++) {
    const q = SOTU_BENCH_QUERIES[run % SOTU_BENCH_QUERIES.length]!;
    const offset = (run * args.pairs) % span;
    runs.push(chunks.slice(offset, offset + args.pairs).map((p) =>
      Math.min(max, (tok(q, { text_pair: p, return_tensor: false }) as unknown as { input_ids: number[] }).input_ids.length)));
  }
  const pairLens = runs.flat();
  const rerankShare = (size: number, sorted: boolean) => {
    let real = 0, pad = 0;
    for (const ls of runs) {
      const bs = sorted ? lengthSortedBatches(ls, size) : lengthSortedBatches(ls.map(() => 0), size);
      const share = paddingShare(ls, bs);
      const r = ls.reduce((a, b) => a + b, 0);
      real += r;
      pad += r * (1 + share);
    }
    return real ? pad / real - 1 : 0;
  };
  const pairPadded = runs.flatMap((ls) => lengthSortedBatches(ls, rerankBatch).map((rows) => Math.max(...rows.map((r) => ls[r]!))));
  return {
    chunkChars: dist(chars),
    charsPerToken: r2(chars.reduce((a, b) => a + b, 0) / lens.reduce((a, b) => a + b, 0)),
    unknownTokenShare: r2((unknown / lens.reduce((a, b) => a + b, 0)) * 1e4) / 1e4,
    modelMaxLength: max,
    tokensPerChunk: dist(lens),
    paddedTokensPerEmbedBatch: dist(padded),
    tokensPerPair: dist(pairLens),
    paddedTokensPerRerankPass: dist(pairPadded),
    paddingSharePct: sizes.map((size) => ({
      batch: size,
      embed: { arrival: pct(paddingShare(lens, embedBatches(size, 'arrival'))), byChars: pct(paddingShare(lens, embedBatches(size, 'chars'))), byTokens: pct(paddingShare(lens, embedBatches(size, 'tokens'))) },
      rerank: { arrival: pct(rerankShare(size, false)), byTokens: pct(rerankShare(size, true)) },
    })),
  };
}
