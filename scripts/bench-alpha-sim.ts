/**
 * `npx tsx scripts/bench-alpha-sim.ts [--candidates N] [--calls N]`: the cost of one α-simulator update
 * (alpha-sim.ts `simulateFusion`: re-fuse, sort, best item per document, NDCG@10, gold ranks), which
 * state/alpha-sim.svelte.ts runs on the main thread on every slider move. Synthetic seeded candidates (default 200:
 * the union of two top-100 lists at most); prints µs per call (the mean over --calls after a warm-up).
 */
import { parseArgs } from 'node:util';
import { simulateFusion, type FusionCandidates } from '../src/lib/retrieval/alpha-sim.ts';
import { CALIBRATIONS, type Calibration } from '../src/lib/retrieval/calibrate.ts';

const { values } = parseArgs({ options: { candidates: { type: 'string', default: '200' }, calls: { type: 'string', default: '5000' } } });
const n = Number(values.candidates);
const calls = Number(values.calls);
if (!(Number.isInteger(n) && n > 0 && Number.isInteger(calls) && calls > 0)) throw new Error('--candidates and --calls must be whole numbers > 0');

let s = 1;
const rand = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
const per = <T>(f: () => T) => Object.fromEntries(CALIBRATIONS.map((c) => [c, f()])) as Record<Calibration, T>;
const c: FusionCandidates = {
  queryId: 'q', query: 'q', candidateK: Math.ceil(n / 2), k: { sparse: Math.ceil(n / 2), dense: Math.ceil(n / 2) }, modeAlpha: 0.5, calibration: 'cdf', basis: 'calibrated',
  candidates: Array.from({ length: n }, (_, i) => ({ id: `i${i}`, docId: `d${i}`, title: `t${i}`, sparse: rand(), dense: rand(), cal: per(() => ({ sparse: rand(), dense: rand() })) })),
  gold: { d3: 1, [`d${Math.floor(n / 4)}`]: 2, [`d${n - 1}`]: 1 },
  entropy: per(() => ({ sparse: 1, dense: 1, alpha: 0.5 })),
};
for (let i = 0; i < 1000; i++) simulateFusion(c, (i % 101) / 100, 'cdf');
const t0 = performance.now();
for (let i = 0; i < calls; i++) simulateFusion(c, (i % 101) / 100, 'cdf');
console.log(`simulateFusion, ${n} candidates: ${(((performance.now() - t0) / calls) * 1000).toFixed(1)} µs per call (mean of ${calls})`);
