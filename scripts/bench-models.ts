/**
 * `npm run bench:models`: speed of the project's model layer (src/lib/models: loadEmbedder, loadCrossEncoder) at
 * all-MiniLM-L6-v2's exact shape, in Node (onnxruntime-node, device 'cpu') and in headless Chromium (onnxruntime-web
 * WASM in a module Web Worker), at 1 and 2 threads. Prints one JSON object on stdout (indented with --pretty);
 * progress goes to stderr. A benchmark, not a test: nothing is asserted except that outputs are well-formed.
 *
 * Model: random weights (scores are meaningless), generated on first use outside the repository (default
 * `<os tmpdir>/rag-lab-minilm/`, see scripts/bench/models-fixtures.ts) from `scripts/make-fixture-models.py --minilm`
 * (fp32), plus a one-logit classifier head for the cross-encoder, and the q8, uint8, q4 and fp16 variants
 * (scripts/bench/models-quantize.py; `agreement` compares each with fp32, scripts/bench/models-agreement.ts). Needs Debian's
 * python3-onnx and python3-numpy (exit code 2 with the apt-get line when missing).
 *
 * Inputs: ~256 real State of the Union chunks (800/120 characters, the app's chunker), spread over the corpus,
 * embedded in calls of 128 as the app embeds a knowledge base, `--batch` per forward pass (grouped by tokens); reranking = one query of scripts/bench/sotu-queries.ts with `--pairs` chunks,
 * through the cross-encoder's default batch size unless --rerank-batch. Token counts are reported; by default the
 * tokenizer's vocabulary is swapped for a corpus one so the sequence lengths are realistic (--vocab, see
 * scripts/bench/models-vocab.ts).
 *
 * Chromium: one origin on 127.0.0.1 with COOP same-origin + COEP (--coep), ONNX Runtime's
 * ort-wasm-simd-threaded.asyncify.{mjs,wasm} served as the app serves them, the models in Hub layout. Each
 * configuration runs in a fresh worker; the JSON says whether it was crossOriginIsolated, the thread count ONNX
 * Runtime ended up with, the workers it spawned and CPU time / wall time of each timed phase.
 *
 * Start: first in a configuration's first size, the app's models session loads the embedder and the cross-encoder
 * with its warm-up batch; in the second size's, without (give two sizes, e.g. --batches 32,32): load, warm-up,
 * first query, next passages, first rerank (ms) in `start`; --no-start skips it.
 * Batch sizes: --batches 8,16,32,64 runs each configuration once per size (embedding and rerank at that size) and
 * prints `sweep` (passages/s, rerank ms, padding share per size) and the fastest sizes; padding shares per size are
 * in inputs.paddingSharePct.
 *
 * Options: --runtimes node,chromium  --dtypes q8,fp32 (any of fp32,q8,uint8,q4,fp16)  --threads 1,2  --chunks 256  --batch 8  --batches LIST  --pairs 20
 *          --runs 20  --warmup 2  --rerank-batch N  --embed-budget-s 12  --rerank-budget-s 15  --vocab corpus|fixture
 *          --coep require-corp|credentialless  --bar-ms 400  --models-dir DIR  --pretty
 * The time budgets bound each configuration: with the defaults a run takes ~5–8 minutes on 2 cores.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, platform, arch, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from '../src/lib/stats/summary.ts';
import { autoThreads, configureModels } from '../src/lib/models/env.ts';
import type { Dtype } from '../src/lib/models/types.ts';
import { startChromium, type ChromiumRun, type Coep } from './bench/models-browser.ts';
import { cpuSampler, descendantsCpuMs, ownCpuMs, type CpuSpans } from './bench/models-cpu.ts';
import { ensureBenchModels, SetupError } from './bench/models-fixtures.ts';
import { measure, type MeasurePlan, type MeasureResult } from './bench/models-measure.ts';
import { SOTU_BENCH_QUERIES } from './bench/sotu-queries.ts';
import { readArgs, UsageError } from './bench/models-args.ts';
import { agreement, COSINE_BAR, dtypeTables } from './bench/models-agreement.ts';
import { sampleChunks, tokenStats } from './bench/models-tokens.ts';
import { readSotuAddresses } from '../cli/sotu-corpus.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg: string) => process.stderr.write(`[bench:models] ${msg}\n`);
const r2 = (x: number) => Math.round(x * 100) / 100;
const BAR = 'Rerank of 20 pairs at MiniLM-L6 shape <= 400 ms in Chromium WASM';

interface NodeRun { dtype: Dtype; numThreads: number; batch: number; result: MeasureResult | null; error: string | null; cpu: CpuSpans; loadavg1: number }

/**
 * CPU time of the timed phases: cpuPerWall ≈ cores kept busy (1 thread on an idle core ≈ 1.0; under contention
 * less). With 1 thread, CPU ms per run estimates the latency on an idle core; with more it includes spinning threads.
 */
function cpuReport(spans: CpuSpans, r: MeasureResult | null) {
  const per = (cpuMs: number | undefined, n: number | undefined) => (cpuMs === undefined || !n ? null : r2(cpuMs / n));
  return {
    embed: spans.embed && { cpuPerWall: spans.embed.cpuPerWall, cpuMsPerPassage: per(spans.embed.cpuMs, r?.embed.passages) },
    rerank: spans.rerank && { cpuPerWall: spans.rerank.cpuPerWall, cpuMsPerRun: per(spans.rerank.cpuMs, r?.rerank.ms.n) },
  };
}

function resultSummary(r: MeasureResult) {
  const { probe: _probe, ...rest } = r;
  return rest;
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  const t0 = performance.now();
  const loadStart = loadavg();
  const addresses = readSotuAddresses();
  const texts = addresses.map((a) => a.text);
  const models = ensureBenchModels(args.modelsDir, args.vocab, () => texts, log);
  const chunks = sampleChunks(texts, args.chunks);
  log(`${chunks.length} SOTU chunks; models in ${models.root} (vocab: ${models.vocab})`);
  const rerankBatch = args.rerankBatch ?? 8; // loadCrossEncoder's default
  const sizes = args.batches ?? [args.batch];
  const tokens = await tokenStats(models, chunks, args, rerankBatch, [...new Set(args.batches ?? [args.batch, rerankBatch])]);
  log(`tokens per chunk: mean ${tokens.tokensPerChunk.mean}, max ${tokens.tokensPerChunk.max}; per pair: mean ${tokens.tokensPerPair.mean}`);

  const plan = (dtype: Dtype, device: 'cpu' | 'wasm', size: number, index: number): MeasurePlan => ({
    embedderId: models.embedderId, rerankerId: models.rerankerId, dtype, device, chunks, queries: SOTU_BENCH_QUERIES,
    embedBatch: size, pairs: args.pairs, runs: args.runs, warmup: args.warmup, rerankBatch: args.batches ? size : args.rerankBatch,
    embedBudgetMs: args.embedBudgetS * 1000, rerankBudgetMs: args.rerankBudgetS * 1000,
    // The start phase once per configuration, in its first (fresh) runtime.
    // (warm in the first size's runtime, cold in the second's).
    start: args.noStart ? null : index === 0 ? 'warm' : index === 1 ? 'cold' : null,
  });

  const nodeRuns: NodeRun[] = [];
  if (args.runtimes.includes('node')) {
    for (const dtype of args.dtypes) {
      for (const numThreads of args.threads) {
        for (const [index, batch] of sizes.entries()) {
          log(`node ${dtype}, ${numThreads} thread(s), batch ${batch}`);
          configureModels({ localModelPath: models.root, allowRemote: false, numThreads });
          const cpu = cpuSampler(ownCpuMs);
          const load1 = loadavg()[0]!;
          try {
            const result = await measure(plan(dtype, 'cpu', batch, index), log, cpu.mark);
            nodeRuns.push({ dtype, numThreads, batch, result, error: null, cpu: cpu.spans(), loadavg1: r2(load1) });
          } catch (e) {
            log(`  failed: ${(e as Error).message}`);
            nodeRuns.push({ dtype, numThreads, batch, result: null, error: (e as Error).message, cpu: cpu.spans(), loadavg1: r2(load1) });
          }
        }
      }
    }
  }

  const webRuns: (ChromiumRun & { batch: number; cpu: CpuSpans; loadavg1: number })[] = [];
  let chromium: { userAgent: string; coep: Coep; bundleMs: number } | null = null;
  let chromiumError: string | null = null;
  if (args.runtimes.includes('chromium')) {
    let sampler = cpuSampler(descendantsCpuMs);
    try {
      log('bundling the worker and starting Chromium');
      const session = await startChromium(models.root, args.coep, log, (p) => sampler.mark(p));
      chromium = { userAgent: session.userAgent, coep: session.coep, bundleMs: r2(session.bundleMs) };
      try {
        for (const dtype of args.dtypes) {
          for (const numThreads of args.threads) {
            for (const [index, batch] of sizes.entries()) {
              log(`chromium wasm ${dtype}, ${numThreads} thread(s), batch ${batch}`);
              sampler = cpuSampler(descendantsCpuMs);
              const load1 = loadavg()[0]!;
              const budget = (args.embedBudgetS + args.rerankBudgetS) * 1000 + 180_000;
              const run = await session.run(plan(dtype, 'wasm', batch, index), numThreads, budget);
              if (run.error) log(`  failed: ${run.error}`);
              else log(`  crossOriginIsolated ${run.report!.crossOriginIsolated}, ORT numThreads ${run.report!.ortNumThreads}, workers spawned ${run.report!.workersSpawned}`);
              webRuns.push({ ...run, batch, cpu: sampler.spans(), loadavg1: r2(load1) });
            }
          }
        }
      } finally {
        await session.close();
      }
    } catch (e) {
      chromiumError = (e as Error).message;
      log(`chromium failed: ${chromiumError}`);
    }
  }

  // Each dtype against fp32 in the same runtime (models-agreement.ts), and each dtype across the two runtimes.
  const nodeProbe = (d: Dtype) => nodeRuns.find((r) => r.dtype === d && r.result)?.result?.probe;
  const webProbe = (d: Dtype) => webRuns.find((r) => r.dtype === d && r.report)?.report?.result.probe;
  const dtypes = dtypeTables([
    ...nodeRuns.filter((r) => r.batch === sizes[0]).map((r) => ({
      runtime: 'node', dtype: r.dtype, threads: r.numThreads, passagesPerS: r.result?.embed.passagesPerS ?? null,
      rerankMeanMs: r.result?.rerank.ms.mean ?? null, probe: r.result?.probe, error: r.error,
    })),
    ...webRuns.filter((r) => r.batch === sizes[0]).map((r) => ({
      runtime: 'chromium', dtype: r.dtype, threads: r.numThreads, passagesPerS: r.report?.result.embed.passagesPerS ?? null,
      rerankMeanMs: r.report?.result.rerank.ms.mean ?? null, probe: r.report?.result.probe, error: r.error,
    })),
  ], models.bytes);
  const agreementOut = {
    rule: `default dtype per runtime = the fastest (passages/s) whose embeddings keep min cosine >= ${COSINE_BAR} with fp32 on the probe batch`,
    byRuntime: dtypes,
    nodeVsChromium: Object.fromEntries(args.dtypes.map((d) => [d, agreement(nodeProbe(d), webProbe(d))])),
  };
  for (const t of dtypes) {
    log(`dtypes, ${t.runtime} ${t.threads} thread(s): ` + t.rows.map((r) => `${r.dtype} ${r.passagesPerS ?? 'x'}/s ${r.rerankMeanMs ?? 'x'} ms cos ${r.embeddingCosine?.min ?? '-'}`).join('; ') +
      ` -> fastest keeping cos >= ${COSINE_BAR}: ${t.fastestKeepingBar ?? 'n/a (no fp32 run)'}`);
  }

  const bar = webRuns.map((r) => {
    const ms = r.report?.result.rerank.ms;
    const cpuMs = r.report ? cpuReport(r.cpu, r.report.result).rerank?.cpuMsPerRun ?? null : null;
    const threadsUsed = r.report?.ortNumThreads ?? null;
    return {
      dtype: r.dtype,
      batch: r.batch,
      requestedThreads: r.numThreads,
      threadsUsed,
      meanMs: ms?.mean ?? null,
      p95Ms: ms?.p95 ?? null,
      metByMean: ms ? ms.mean <= args.barMs : null,
      metByP95: ms ? ms.p95 <= args.barMs : null,
      // One thread: CPU time per run ≈ the latency on an idle core, whatever the machine's load was.
      idleCoreEstimateMs: threadsUsed === 1 ? cpuMs : null,
      metOnIdleCoreEstimate: threadsUsed === 1 && cpuMs !== null ? cpuMs <= args.barMs : null,
    };
  });
  const loads = [...nodeRuns.map((r) => r.loadavg1), ...webRuns.map((r) => r.loadavg1)];
  const cores = availableParallelism();
  const noise = {
    maxLoadavg1: loads.length ? Math.max(...loads) : null,
    cores,
    contended: loads.some((l) => l > cores),
    note: loads.some((l) => l > cores)
      ? 'The 1-minute load average exceeded the core count during the run: other processes competed for the CPU, so wall-clock numbers ' +
        'are inflated and noisy. cpu.*.cpuPerWall shows the share of a core each configuration got; with 1 thread, cpuMsPerRun / ' +
        'cpuMsPerPassage estimate the idle-core figures. Rerun on a quiet machine for clean numbers.'
      : 'The load average stayed at or below the core count.',
  };

  // Batch-size sweep: one row per configuration and size, and the fastest size of each configuration.
  const all = [
    ...nodeRuns.map((r) => ({ runtime: 'node', dtype: r.dtype, threads: r.numThreads, batch: r.batch, result: r.result, loadavg1: r.loadavg1, cpu: cpuReport(r.cpu, r.result) })),
    ...webRuns.map((r) => ({ runtime: 'chromium', dtype: r.dtype, threads: r.numThreads, batch: r.batch, result: r.report?.result ?? null, loadavg1: r.loadavg1, cpu: cpuReport(r.cpu, r.report?.result ?? null) })),
  ];
  const padOf = (b: number) => tokens.paddingSharePct.find((p) => p.batch === b);
  const rows = all.map((r) => ({
    runtime: r.runtime, dtype: r.dtype, threads: r.threads, batch: r.batch,
    passagesPerS: r.result?.embed.passagesPerS ?? null, rerankMeanMs: r.result?.rerank.ms.mean ?? null, rerankP95Ms: r.result?.rerank.ms.p95 ?? null,
    embedPaddingPct: padOf(r.batch)?.embed.byTokens ?? null, rerankPaddingPct: padOf(r.batch)?.rerank.byTokens ?? null,
    // CPU time per passage / per rerank run: with 1 thread, the idle-core cost whatever the machine's load.
    cpuMsPerPassage: r.cpu.embed?.cpuMsPerPassage ?? null, rerankCpuMsPerRun: r.cpu.rerank?.cpuMsPerRun ?? null,
    loadavg1: r.loadavg1,
  }));
  const configs = [...new Set(rows.map((r) => `${r.runtime} ${r.dtype} ${r.threads}`))];
  const sweep = args.batches
    ? {
        sizes,
        rows,
        // A size listed more than once (--batches 16,32,16,32: repeats interleaved against a drifting load) is
        // judged by the median of its runs.
        fastest: configs.map((c) => {
          const rs = rows.filter((r) => `${r.runtime} ${r.dtype} ${r.threads}` === c);
          type K = 'passagesPerS' | 'rerankMeanMs' | 'cpuMsPerPassage' | 'rerankCpuMsPerRun';
          const med = (b: number, k: K) => {
            const xs = rs.filter((r) => r.batch === b && r[k] !== null).map((r) => r[k]!);
            return xs.length ? r2(percentile(xs, 50)) : null;
          };
          const per = [...new Set(sizes)].map((b) => ({
            batch: b, passagesPerS: med(b, 'passagesPerS'), rerankMeanMs: med(b, 'rerankMeanMs'),
            cpuMsPerPassage: med(b, 'cpuMsPerPassage'), rerankCpuMsPerRun: med(b, 'rerankCpuMsPerRun'),
          }));
          const best = (k: K, sign: 1 | -1) => per.filter((p) => p[k] !== null).sort((a, b) => sign * (b[k]! - a[k]!))[0]?.batch ?? null;
          return {
            config: c, medians: per,
            byWall: { embedBatch: best('passagesPerS', 1), rerankBatch: best('rerankMeanMs', -1) },
            byCpu: { embedBatch: best('cpuMsPerPassage', -1), rerankBatch: best('rerankCpuMsPerRun', -1) },
          };
        }),
      }
    : null;
  const start = all.filter((r) => r.result?.start).map((r) => ({ runtime: r.runtime, dtype: r.dtype, threads: r.threads, ...r.result!.start! }));

  const pkg = (name: string): string | null => {
    try {
      return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return null;
    }
  };
  const config = JSON.parse(readFileSync(join(models.root, models.embedderId, 'config.json'), 'utf8')) as Record<string, number>;

  const out = {
    benchmark: 'models',
    note: 'Random weights with the exact all-MiniLM-L6-v2 shape: measures speed only; scores are meaningless.',
    machine: {
      cpu: cpus()[0]?.model ?? null,
      cores: cpus().length,
      availableParallelism: availableParallelism(),
      memoryGiB: r2(totalmem() / 2 ** 30),
      os: `${platform()} ${release()} ${arch()}`,
      node: process.version,
      chromium: chromium?.userAgent ?? null,
      loadavgStart: loadStart.map(r2),
      loadavgEnd: loadavg().map(r2),
    },
    versions: {
      transformers: pkg('@huggingface/transformers'),
      onnxruntimeNode: pkg('onnxruntime-node'),
      onnxruntimeWeb: pkg('onnxruntime-web'),
      playwrightCore: pkg('playwright-core'),
    },
    model: {
      shape: {
        layers: config.num_hidden_layers, hidden: config.hidden_size, heads: config.num_attention_heads,
        intermediate: config.intermediate_size, vocab: config.vocab_size, maxPositions: config.max_position_embeddings,
      },
      root: models.root,
      generatedThisRun: models.generated,
      embedder: `${models.embedderId}: BertModel, output last_hidden_state; mean pooling + L2 norm (loadEmbedder)`,
      reranker: `${models.rerankerId}: the same encoder + [CLS] tanh pooler (384x384 Gemm) + 384x1 Gemm -> logits [n, 1] (loadCrossEncoder)`,
      dtypes: {
        fp32: 'onnx/model.onnx as scripts/make-fixture-models.py --minilm writes it (fp32 weights and compute)',
        q8: 'onnx/model_quantized.onnx from scripts/bench/models-quantize.py: the pattern of onnxruntime quantize_dynamic(QInt8, per-tensor, ' +
          'MatMulConstBOnly) - DynamicQuantizeLinear + MatMulInteger on the 36 weight MatMuls, int8 word-embedding table; ' +
          'attention score MatMuls and the classifier head stay fp32. Written with onnx.helper (onnxruntime.quantization is not installed here).',
        uint8: 'onnx/model_uint8.onnx: the same with quantize_dynamic(QUInt8): asymmetric uint8 weights with a zero point',
        q4: 'onnx/model_q4.onnx: MatMul4BitsQuantizer defaults - com.microsoft MatMulNBits (4-bit, block 32 along K, asymmetric, ' +
          'accuracy_level unset) on the 36 weight MatMuls; word embeddings, attention and the classifier head stay fp32',
        fp16: 'onnx/model_fp16.onnx: float16 weights and compute, float32 inputs/outputs (convert_float_to_float16(keep_io_types=True))',
      },
      bytes: models.bytes,
      tokenizer: models.vocab === 'corpus'
        ? { vocab: 'corpus', note: 'WordPiece vocabulary = the fixture tokens + every SOTU word (models-vocab.ts): one token per word or punctuation mark, somewhat fewer tokens than bert-base-uncased would give (slightly optimistic latencies)', ...models.vocabStats }
        : { vocab: 'fixture', note: "scripts/make-fixture-models.py's own vocabulary: ~250 real words and no punctuation, so English mostly splits into letters" },
    },
    inputs: {
      chunks: chunks.length,
      chunking: '800/120 characters (src/lib/retrieval/chunk.ts), evenly spaced over all 233 addresses',
      embedBatch: args.batches ? `swept: ${sizes.join(', ')}` : args.batch,
      embedCall: '128 chunks per embed() call (dense-build.ts EMBED_CALL_SIZE), grouped by token count into forward passes',
      rerank: { pairs: args.pairs, batchSize: rerankBatch, batchSizeNote: args.rerankBatch ? 'from --rerank-batch' : "loadCrossEncoder's default (what the app uses)", queries: 'scripts/bench/sotu-queries.ts, one per run' },
      warmup: `1 untimed embedding batch; ${args.warmup} untimed rerank runs`,
      budgets: { embedS: args.embedBudgetS, rerankS: args.rerankBudgetS, note: 'per configuration; a loop stops early when its budget is spent (budgetHit)' },
      ...tokens,
    },
    node: nodeRuns.map((r) => ({
      device: 'cpu (onnxruntime-node)', dtype: r.dtype, numThreads: r.numThreads, batch: r.batch, setting: 'configureModels({ numThreads }) -> intraOpNumThreads',
      ...(r.result ? resultSummary(r.result) : { error: r.error }),
      cpu: cpuReport(r.cpu, r.result), loadavg1AtStart: r.loadavg1,
    })),
    chromium: chromium || chromiumError
      ? {
          ...(chromium ?? {}),
          error: chromiumError,
          // What the app's 'auto' thread setting gives on this machine when cross-origin isolated (env.ts autoThreads).
          appDefaultThreads: webRuns[0]?.report ? autoThreads(webRuns[0].report.hardwareConcurrency, true) : null,
          runs: webRuns.map((r) => ({
            device: 'wasm (onnxruntime-web, module Web Worker)', dtype: r.dtype, requestedThreads: r.numThreads, batch: r.batch,
            crossOriginIsolated: r.report ? r.report.crossOriginIsolated && r.report.pageCrossOriginIsolated : null,
            threadsUsed: r.report?.ortNumThreads ?? null,
            ortWorkersSpawned: r.report?.workersSpawned ?? null,
            hardwareConcurrency: r.report?.hardwareConcurrency ?? null,
            ...(r.report ? resultSummary(r.report.result) : { error: r.error }),
            cpu: cpuReport(r.cpu, r.report?.result ?? null), loadavg1AtStart: r.loadavg1, wallMs: r2(r.wallMs),
          })),
        }
      : null,
    sweep,
    start,
    bar: { rule: BAR, thresholdMs: args.barMs, pairs: args.pairs, results: bar },
    noise,
    agreement: agreementOut,
    totalS: r2((performance.now() - t0) / 1000),
  };
  process.stdout.write(`${JSON.stringify(out, null, args.pretty ? 2 : undefined)}\n`);
}

main().catch((e: unknown) => {
  if (e instanceof SetupError) {
    process.stderr.write(`[bench:models] ${e.message}\n`);
    process.exit(e.exitCode);
  }
  if (e instanceof UsageError) {
    process.stderr.write(`[bench:models] ${e.message} (see --help)\n`);
    process.exit(2);
  }
  process.stderr.write(`[bench:models] ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
