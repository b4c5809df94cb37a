/**
 * `npm run bench:train-embedder`: trains the corpus-trained embedder (LSI, docs/corpus-embedder.md) on BEIR SciFact's
 * 5,183 documents with `rag-lab train-embedder` (wall time; the bar is < 60 s on 2 cores), then evaluates it with
 * `rag-lab eval-beir --modes sparse,dense,rrf,hybrid_fixed,hybrid_calibrated --no-cache` (bars: dense NDCG@10 ≥ 0.45,
 * some hybrid mode ≥ sparse). Both are the CLI as a user runs it (child processes). Prints one JSON object.
 *
 * Options: --scifact DIR (default ../shared/data/scifact next to the repo), --dim K (default 256), --seed S
 * (default 0), --idf-power B (default 1), --models-dir DIR (default a new temp folder, removed afterwards; the model is corpus/scifact-lsi<K>).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(REPO_ROOT, 'cli/rag-lab.js');
const { values } = parseArgs({ options: { scifact: { type: 'string' }, dim: { type: 'string', default: '256' }, seed: { type: 'string', default: '0' }, 'idf-power': { type: 'string', default: '1' }, 'models-dir': { type: 'string' } } });
const data = values.scifact ? resolve(values.scifact) : resolve(REPO_ROOT, '../shared/data/scifact');
if (!existsSync(join(data, 'corpus.jsonl'))) {
  process.stderr.write(`SciFact not found at ${data} (corpus.jsonl); pass --scifact DIR\n`);
  process.exit(2);
}
const temp = values['models-dir'] ? null : mkdtempSync(join(tmpdir(), 'rag-lab-bench-lsi-'));
const models = values['models-dir'] ? resolve(values['models-dir']) : temp!;
const id = `corpus/scifact-lsi${values.dim}`;
const cli = (args: string[]) => execFileSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);

try {
  const t0 = performance.now();
  const trained = lastJson(cli(['train-embedder', '--data', data, '--out', join(models, id), '--dim', values.dim!, '--seed', values.seed!, '--idf-power', values['idf-power']!, '--json']));
  const trainWall = (performance.now() - t0) / 1000;
  const modes = ['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated'];
  const evalArgs = ['eval-beir', '--data', data, '--modes', modes.join(','), '--models-dir', models, '--embedder', id, '--no-cache', '--no-predictors', '--json'];
  const t1 = performance.now();
  const result = lastJson(cli(evalArgs));
  const ndcg = Object.fromEntries(modes.map((m) => [m, Number(result.modes[m]['ndcg@10'].toFixed(4))]));
  const bestHybrid = Math.max(ndcg.rrf!, ndcg.hybrid_fixed!, ndcg.hybrid_calibrated!);
  console.log(JSON.stringify({
    machine: { cpus: cpus().length, node: process.version },
    train: { model: id, documents: trained.documents, vocabulary: trained.vocabulary, dim: trained.dim, seconds: Number(trained.seconds.toFixed(1)), wallSeconds: Number(trainWall.toFixed(1)), megabytes: Number((trained.bytes / 1e6).toFixed(1)), notes: trained.notes },
    eval: { queries: result.queries, ndcgAt10: ndcg, seconds: Number(((performance.now() - t1) / 1000).toFixed(1)), command: `rag-lab ${evalArgs.join(' ')}` },
    bars: { trainUnder60s: trainWall < 60, denseAtLeast045: ndcg.dense! >= 0.45, hybridAtLeastSparse: bestHybrid >= ndcg.sparse! },
  }, null, 2));
} finally {
  if (temp) rmSync(temp, { recursive: true, force: true });
}
