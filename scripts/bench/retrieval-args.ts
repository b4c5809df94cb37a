/** The command line of `npm run bench` (scripts/bench.ts): its options, defaults and checks. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface BenchArgs {
  scifact: string; scifactExplicit: boolean; reps: number; minSamples: number; buildReps: number; pretty: boolean;
  /** Only the exact-scan section (scripts/bench/scan-kernels.ts). */
  scanOnly: boolean;
}

/** Passes over a query set: at least `reps`, and enough for `minSamples` timings (a stable p95 on short lists). */
export function repsFor(args: BenchArgs, queries: number): number {
  return Math.max(args.reps, Math.ceil(args.minSamples / Math.max(1, queries)));
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number >= 1, got "${value}"`);
  return n;
}

export class UsageError extends Error {}

export function readArgs(argv: string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        scifact: { type: 'string' }, reps: { type: 'string' }, 'min-samples': { type: 'string' }, 'build-reps': { type: 'string' },
        pretty: { type: 'boolean', default: false }, 'scan-only': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) {
    process.stderr.write('Usage: npm run bench -- [--scifact DIR] [--reps N] [--min-samples N] [--build-reps N] [--scan-only] [--pretty]\n');
    process.exit(0);
  }
  const fromFlag = values.scifact, fromEnv = process.env.RAG_LAB_SCIFACT;
  const scifact = fromFlag ? resolve(fromFlag) : fromEnv ? resolve(fromEnv) : resolve(REPO_ROOT, '../shared/data/scifact');
  return {
    scifact,
    scifactExplicit: Boolean(fromFlag || fromEnv),
    reps: positiveInt('reps', values.reps, 3),
    minSamples: positiveInt('min-samples', values['min-samples'], 300),
    buildReps: positiveInt('build-reps', values['build-reps'], 3),
    pretty: values.pretty ?? false,
    scanOnly: values['scan-only'] ?? false,
  };
}
