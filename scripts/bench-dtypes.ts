/**
 * `npm run bench:dtypes`: what each ONNX dtype variant does to retrieval quality, measured on BEIR SciFact with the
 * corpus-trained embedder (docs/corpus-embedder.md) as the proxy for a pretrained one (no pretrained weights can be
 * downloaded here; `npm run bench:models` measures the variants' speed and their agreement on MiniLM-shaped random
 * weights). Prints one JSON object on stdout; progress on stderr. A benchmark: nothing is asserted.
 *
 * 1. `rag-lab train-embedder` on SciFact's 5,183 documents (LSI, k = --dim) → corpus/scifact-lsi<k>, whose own q8
 *    is the trainer's per-row int8 table (what the app uses for trained models).
 * 2. scripts/bench/lsi-factor.py → corpus/scifact-lsi<k>-mm: the same function as Gather(G) · R with R a random
 *    orthogonal k × k matrix, so that it has a weight MatMul; then scripts/bench/models-quantize.py writes its q8,
 *    uint8, q4 (MatMulNBits) and fp16 variants exactly as for the MiniLM-shaped benchmark model.
 * 3. Each (model, dtype): `rag-lab eval-beir --modes dense --dtype D` (NDCG@10, recall@100 (r@100) over the 300 test
 *    queries), and in-process the embeddings of --probe documents against that model's fp32 (min / mean cosine).
 *
 * Options: --scifact DIR (default ../shared/data/scifact next to the repo), --dim K (default 256), --probe N
 * (default 512), --dtypes LIST (default fp32,q8,uint8,q4,fp16), --models-dir DIR (default a new temp folder, removed
 * afterwards). Needs Debian's python3-onnx and python3-numpy. Takes ~3–5 minutes on 2 cores.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configureModels } from '../src/lib/models/env.ts';
import { loadEmbedder } from '../src/lib/models/embedder.ts';
import { DTYPES, isDtype, type Dtype } from '../src/lib/models/types.ts';
import { agreement } from './bench/models-agreement.ts';
import { PYTHON } from './bench/models-fixtures.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(REPO_ROOT, 'cli/rag-lab.js');
const log = (m: string) => process.stderr.write(`[bench:dtypes] ${m}\n`);
const { values } = parseArgs({
  options: {
    scifact: { type: 'string' }, dim: { type: 'string', default: '256' }, probe: { type: 'string', default: '512' },
    dtypes: { type: 'string', default: 'fp32,q8,uint8,q4,fp16' }, 'models-dir': { type: 'string' },
  },
});
const data = values.scifact ? resolve(values.scifact) : resolve(REPO_ROOT, '../shared/data/scifact');
if (!existsSync(join(data, 'corpus.jsonl'))) {
  process.stderr.write(`SciFact not found at ${data} (corpus.jsonl); pass --scifact DIR\n`);
  process.exit(2);
}
const dtypes = values.dtypes!.split(',').map((s) => s.trim()) as Dtype[];
for (const d of dtypes) if (!isDtype(d)) { process.stderr.write(`--dtypes: "${d}" is not one of ${DTYPES.join(', ')}\n`); process.exit(2); }
if (!dtypes.includes('fp32')) dtypes.unshift('fp32');
const temp = values['models-dir'] ? null : mkdtempSync(join(tmpdir(), 'rag-lab-bench-dtypes-'));
const models = values['models-dir'] ? resolve(values['models-dir']) : temp!;
const base = `corpus/scifact-lsi${values.dim}`;
const factored = `${base}-mm`;
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);
const r4 = (x: number) => Number(x.toFixed(4));

async function probeVectors(id: string, dtype: Dtype, texts: readonly string[]): Promise<number[][]> {
  configureModels({ localModelPath: models, allowRemote: false, numThreads: 1 });
  const e = await loadEmbedder({ id, dtype, device: 'cpu' });
  try {
    const v = await e.embed(texts, 'passage');
    return Array.from({ length: texts.length }, (_, i) => Array.from(v.subarray(i * e.dim, (i + 1) * e.dim)));
  } finally {
    await e.dispose();
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  log(`training ${base} on ${data}`);
  const trained = lastJson(run(process.execPath, [CLI, 'train-embedder', '--data', data, '--out', join(models, base), '--dim', values.dim!, '--json']));
  log(run(PYTHON, [join(REPO_ROOT, 'scripts/bench/lsi-factor.py'), join(models, base), join(models, factored)]).trim());
  const variants = dtypes.filter((d) => d !== 'fp32');
  if (variants.length) log(run(PYTHON, [join(REPO_ROOT, 'scripts/bench/models-quantize.py'), join(models, factored), '--variants', variants.join(',')]).trim());

  const docs = readFileSync(join(data, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, Number(values.probe))
    .map((l) => { const d = JSON.parse(l) as { title?: string; text: string }; return `${d.title ?? ''}\n${d.text}`; });
  const configs: { model: string; dtype: Dtype; note: string }[] = [
    { model: base, dtype: 'fp32', note: 'trained model as written: Gather(E)' },
    { model: base, dtype: 'q8', note: "the trainer's own q8: per-row symmetric int8 table (what the app loads for a trained model)" },
    ...dtypes.map((dtype) => ({ model: factored, dtype, note: dtype === 'fp32' ? 'Gather(G) · R, fp32' : `Gather(G) · R, models-quantize.py ${dtype}` })),
  ];
  const refs = new Map<string, number[][]>();
  interface Row { model: string; dtype: Dtype; note: string; ndcgAt10: number | null; recallAt100: number | null; embeddingCosineVsFp32: ReturnType<typeof agreement>['embeddingCosine']; seconds: number; error: string | null }
  const rows: Row[] = [];
  for (const c of configs) {
    log(`${c.model} ${c.dtype}: eval-beir --modes dense`);
    const t = performance.now();
    let ndcg: number | null = null, recall: number | null = null, error: string | null = null;
    let cos: ReturnType<typeof agreement>['embeddingCosine'] = null;
    try {
      const out = lastJson(run(process.execPath, [CLI, 'eval-beir', '--data', data, '--modes', 'dense', '--models-dir', models, '--embedder', c.model, '--dtype', c.dtype, '--no-cache', '--no-predictors', '--json']));
      ndcg = r4(out.modes.dense['ndcg@10']);
      recall = out.modes.dense['r@100'] === undefined ? null : r4(out.modes.dense['r@100']);
      const vectors = await probeVectors(c.model, c.dtype, docs);
      if (c.dtype === 'fp32') refs.set(c.model, vectors);
      cos = agreement({ embeddings: refs.get(c.model) ?? [], scores: [] }, { embeddings: vectors, scores: [] }).embeddingCosine;
    } catch (e) {
      error = (e as Error).message.split('\n').slice(0, 3).join(' ');
      log(`  failed: ${error}`);
    }
    rows.push({ ...c, ndcgAt10: ndcg, recallAt100: recall, embeddingCosineVsFp32: cos, seconds: Number(((performance.now() - t) / 1000).toFixed(1)), error });
    log(`  NDCG@10 ${ndcg ?? 'x'}, cosine vs fp32 min ${cos?.min ?? '-'}`);
  }
  const fp32 = (model: string) => rows.find((r) => r.model === model && r.dtype === 'fp32')?.ndcgAt10 ?? null;
  console.log(JSON.stringify({
    benchmark: 'dtypes',
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? null, node: process.version },
    proxy: `BEIR SciFact test (${data}), dense mode only, corpus-trained LSI embedder (k = ${trained.dim}, vocabulary ${trained.vocabulary}) standing in for a pretrained model`,
    probe: `cosine of the first ${docs.length} documents' embeddings with the same model's fp32`,
    rows: rows.map((r) => ({ ...r, ndcgDeltaVsFp32: r.ndcgAt10 !== null && fp32(r.model) !== null ? r4(r.ndcgAt10 - fp32(r.model)!) : null })),
    commands: { train: `rag-lab train-embedder --data ${data} --dim ${values.dim}`, eval: 'rag-lab eval-beir --data SCIFACT --modes dense --embedder ID --dtype D --no-cache --no-predictors --json' },
    totalS: Number(((performance.now() - t0) / 1000).toFixed(1)),
  }, null, 2));
}

main().catch((e: unknown) => {
  process.stderr.write(`[bench:dtypes] ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 1;
}).finally(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
});
