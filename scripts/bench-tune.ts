/**
 * `npm run bench:tune`: `rag-lab tune --data <SciFact> --train-embedder --budget 40 --no-cache --json` as a user runs it
 * (a child process; wall time, cold: the embedder trained and the documents embedded in the run; the bar is ≤ 60 s
 * on 2 cores), twice, to show the second run picks the same winner. Prints one JSON object: the seconds of each run,
 * the split and rungs, the winner, the front, and the held-out figures against the current settings (BM25).
 *
 * Options: --scifact DIR (default ../shared/data/scifact next to the repo), --budget N (default 40), --seed S (default 0).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { scifact: { type: 'string' }, budget: { type: 'string', default: '40' }, seed: { type: 'string', default: '0' } } });
const data = values.scifact ? resolve(values.scifact) : resolve(REPO_ROOT, '../shared/data/scifact');
if (!existsSync(join(data, 'corpus.jsonl'))) {
  process.stderr.write(`SciFact not found at ${data} (corpus.jsonl); pass --scifact DIR\n`);
  process.exit(2);
}
const args = ['tune', '--data', data, '--train-embedder', '--no-cache', '--budget', values.budget, '--seed', values.seed, '--json'];
function run() {
  const t0 = Date.now();
  const out = execFileSync(process.execPath, [join(REPO_ROOT, 'cli/rag-lab.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
  return { seconds: (Date.now() - t0) / 1000, result: JSON.parse(out.trim().split('\n').at(-1)!) };
}
const first = run(), second = run();
const r = first.result;
const label = (id: number) => r.trials[id].label;
console.log(JSON.stringify({
  command: `rag-lab ${args.join(' ')}`, identity: r.identity, cpus: cpus().length, seconds: [first.seconds, second.seconds],
  sameWinner: second.result.winner === r.winner && second.result.trials[r.winner].configHash === r.trials[r.winner].configHash,
  split: r.split, rungs: r.rungs, spaceSize: r.space.size,
  winner: { trial: r.winner, label: label(r.winner), tuning: r.trials[r.winner].score },
  front: r.front.map((id: number) => ({ trial: id, label: label(id), tuning: r.trials[id].score, p95Ms: r.trials[id].p95Ms })),
  heldOut: { current: r.heldOut.current, figures: r.heldOut.figures },
  verdict: r.verdict,
}, null, 2));
