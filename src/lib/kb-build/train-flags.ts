/**
 * The training options of `rag-lab train-embedder` from its flags, checked before any work (a bad flag is a
 * {@link BuildError} naming it, as build-flags.ts does for build-index), and the summary line it prints.
 */
import { ANALYSES, type Analysis } from '../models/corpus-embedder/stem-analysis.ts';
import { TRAIN_DEFAULTS, type TrainOptions, type TrainSummary } from '../models/corpus-embedder/train.ts';
import { BuildError } from './build-kb.ts';

export interface TrainFlags {
  dim?: string | undefined; seed?: string | undefined; 'min-df'?: string | undefined; 'max-vocab'?: string | undefined;
  'power-iterations'?: string | undefined; 'idf-power'?: string | undefined; analysis?: string | undefined;
}

function numberFlag(name: string, value: string | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new BuildError(`--${name} must be ${what}, got "${value}"`);
  return n;
}

const whole = (name: string, v: string | undefined, min: number) => numberFlag(name, v, (n) => Number.isInteger(n) && n >= min, `a whole number ≥ ${min}`);

/** The options the flags give (only those given; the trainer's defaults fill the rest). */
export function checkTrainFlags(values: TrainFlags): Omit<TrainOptions, 'trainedOn' | 'onProgress'> {
  const given = {
    dim: whole('dim', values.dim, 1),
    seed: whole('seed', values.seed, 0),
    minDf: whole('min-df', values['min-df'], 1),
    maxVocab: whole('max-vocab', values['max-vocab'], 1),
    powerIterations: whole('power-iterations', values['power-iterations'], 0),
    idfPower: numberFlag('idf-power', values['idf-power'], (n) => n >= 0 && n <= 8, 'a number from 0 to 8'),
  };
  const analysis = values.analysis as Analysis | undefined;
  if (analysis !== undefined && !ANALYSES.includes(analysis)) throw new BuildError(`--analysis must be one of ${ANALYSES.join(', ')}, got ${analysis}`);
  const options: Omit<TrainOptions, 'trainedOn' | 'onProgress'> = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return analysis !== undefined ? { ...options, analysis } : options;
}

/** The line train-embedder prints when done: what was trained, from what, where it went and how to use it. */
export function trainedLine(s: TrainSummary, opts: { id: string; analysis: Analysis | undefined; chunked: boolean; out: string; bytes: number; modelsDir: string }): string {
  const stems = (opts.analysis ?? TRAIN_DEFAULTS.analysis) === 'stems' ? ` (stems; ${s.tokens - 5} surface words)` : '';
  return `trained ${opts.id}: corpus-trained LSI, ${s.dim}-d, ${s.vocabulary} terms${stems}, ${s.documents} ${opts.chunked ? 'chunks' : 'documents'} in ${s.seconds.toFixed(1)} s; wrote ${opts.out} (${(opts.bytes / 1e6).toFixed(1)} MB): use --models-dir ${opts.modelsDir} --embedder ${opts.id}`;
}
