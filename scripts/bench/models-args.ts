/** The command line of `npm run bench:models` (scripts/bench-models.ts): its options, defaults and checks. */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DTYPES, type Dtype } from '../../src/lib/models/types.ts';
import type { Coep } from './models-browser.ts';

export class UsageError extends Error {}

export interface Args {
  runtimes: ('node' | 'chromium')[];
  dtypes: Dtype[];
  threads: number[];
  chunks: number;
  batch: number;
  /** Batch sizes to sweep (embedding and rerank alike); null = --batch and --rerank-batch only. */
  batches: number[] | null;
  /** Skip the models-session start phase (warm start vs none). */
  noStart: boolean;
  pairs: number;
  runs: number;
  warmup: number;
  rerankBatch: number | null;
  embedBudgetS: number;
  rerankBudgetS: number;
  vocab: 'corpus' | 'fixture';
  coep: Coep;
  barMs: number;
  modelsDir: string;
  pretty: boolean;
}

export function readArgs(argv: string[]): Args {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        runtimes: { type: 'string', default: 'node,chromium' },
        dtypes: { type: 'string', default: 'q8,fp32' },
        threads: { type: 'string', default: '1,2' },
        chunks: { type: 'string', default: '256' },
        batch: { type: 'string', default: '8' },
        batches: { type: 'string' },
        'no-start': { type: 'boolean', default: false },
        pairs: { type: 'string', default: '20' },
        runs: { type: 'string', default: '20' },
        warmup: { type: 'string', default: '2' },
        'rerank-batch': { type: 'string' },
        'embed-budget-s': { type: 'string', default: '12' },
        'rerank-budget-s': { type: 'string', default: '15' },
        vocab: { type: 'string', default: 'corpus' },
        coep: { type: 'string', default: 'require-corp' },
        'bar-ms': { type: 'string', default: '400' },
        'models-dir': { type: 'string', default: join(tmpdir(), 'rag-lab-minilm') },
        pretty: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) {
    process.stderr.write('Usage: npm run bench:models -- [--runtimes node,chromium] [--dtypes q8,fp32 (any of fp32,q8,uint8,q4,fp16)] [--threads 1,2] [--chunks 256] ' +
      '[--batch 8] [--batches 8,16,32,64] [--no-start] [--pairs 20] [--runs 20] [--warmup 2] [--rerank-batch N] [--embed-budget-s 12] [--rerank-budget-s 15] ' +
      '[--vocab corpus|fixture] [--coep require-corp|credentialless] [--bar-ms 400] [--models-dir DIR] [--pretty]\n');
    process.exit(0);
  }
  const int = (name: string, v: string, min = 1) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number >= ${min}, got "${v}"`);
    return n;
  };
  const list = <T extends string>(name: string, v: string, allowed: readonly T[]): T[] => {
    const xs = v.split(',').map((s) => s.trim()).filter(Boolean);
    for (const x of xs) if (!allowed.includes(x as T)) throw new UsageError(`--${name}: "${x}" is not one of ${allowed.join(', ')}`);
    if (!xs.length) throw new UsageError(`--${name} is empty`);
    return xs as T[];
  };
  const one = <T extends string>(name: string, v: string, allowed: readonly T[]): T => list(name, v, allowed)[0]!;
  return {
    runtimes: list('runtimes', values.runtimes, ['node', 'chromium'] as const),
    dtypes: list('dtypes', values.dtypes, DTYPES),
    threads: values.threads.split(',').map((s) => int('threads', s.trim())),
    chunks: int('chunks', values.chunks),
    batch: int('batch', values.batch),
    batches: values.batches === undefined ? null : values.batches.split(',').map((x) => int('batches', x.trim())),
    noStart: values['no-start'] ?? false,
    pairs: int('pairs', values.pairs),
    runs: int('runs', values.runs),
    warmup: int('warmup', values.warmup),
    rerankBatch: values['rerank-batch'] === undefined ? null : int('rerank-batch', values['rerank-batch']),
    embedBudgetS: int('embed-budget-s', values['embed-budget-s']),
    rerankBudgetS: int('rerank-budget-s', values['rerank-budget-s']),
    vocab: one('vocab', values.vocab, ['corpus', 'fixture'] as const),
    coep: one('coep', values.coep, ['require-corp', 'credentialless'] as const),
    barMs: int('bar-ms', values['bar-ms']),
    modelsDir: resolve(values['models-dir']),
    pretty: values.pretty ?? false,
  };
}
