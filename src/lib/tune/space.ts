/**
 * The tuner's search space, derived from the run settings' declarations (settings/retrieval-run.ts RUN_SETTINGS):
 * every setting declared with `tune` is a dimension over its values, in the modes it changes; the mode is one more
 * (the modes that can run with the models there). A setting the knowledge base fixes (an artifact's chunking and
 * BM25) or the caller fixes is left out, and the caller may narrow a dimension to some of its values. A new setting
 * joins the space by its declaration.
 *
 * A candidate is a mode and the values of its dimensions (every other setting is the base run's). Each mode's base
 * candidate (the base run's values) is always tried, first; the rest of the budget is a seeded sample without
 * replacement spread evenly over the modes (round robin), so a mode with many dimensions does not take the budget.
 */
import { seededRandom } from '../random.ts';
import type { RetrievalMode } from '../retrieval/modes.ts';
import { RUN_SETTINGS, type RunFlat, type RunFlatKey } from '../settings/retrieval-run.ts';
import * as v from 'valibot';
import { valueFromText, valueSchema, type Setting, type SettingsSchema } from '../settings/schema.ts';

export type TuneValue = number | string | boolean | null;

export interface TuneDimension {
  key: RunFlatKey;
  values: readonly TuneValue[];
  modes: readonly string[] | null;
  /** The values of other settings it only matters under (a chunk size: when chunked); absent: always. */
  requires?: Readonly<Partial<Record<RunFlatKey, TuneValue>>>;
  /** Tried beside the halving's finalists, one value at a time, not sampled (`finalistVariants`). */
  finalists?: boolean;
}

export interface TuneCandidate {
  mode: RetrievalMode;
  /** The tuned settings' values (the dimensions of this mode), in RUN_SETTINGS order. */
  values: Partial<Record<RunFlatKey, TuneValue>>;
  /** Another embedder than the current one (its index among the tune's `embedders`); absent: the current one. */
  embedder?: number;
}

/** Other embedders as a dimension: how many, and the modes they change (those with a dense side). */
export interface EmbedderDimension { count: number; modes: readonly RetrievalMode[] }

export interface SpaceOptions {
  /** Settings kept at the base run's value (e.g. an artifact's chunking and BM25). */
  fixed?: readonly RunFlatKey[];
  /** The dimensions whose values build the knowledge base again (chunking) are in the space. Default false. */
  rebuild?: boolean;
  /** A dimension narrowed to these values (each must be valid for its setting). */
  narrow?: Partial<Record<RunFlatKey, readonly TuneValue[]>>;
}

/** The run settings that are dimensions of the space (declared with `tune`). */
export const TUNED = (Object.entries(RUN_SETTINGS) as Array<[RunFlatKey, Setting]>).filter(([, s]) => s.tune);

export class SpaceError extends Error {
  constructor(message: string) { super(message); this.name = 'SpaceError'; }
}

/** The dimensions: each setting of the schema (the run settings') with `tune`, not fixed, with its values (or the narrowed ones). */
export function tuneDimensions(o: SpaceOptions = {}, schema: SettingsSchema = RUN_SETTINGS): TuneDimension[] {
  const out: TuneDimension[] = [];
  for (const [key, s] of Object.entries(schema) as Array<[RunFlatKey, Setting]>) {
    if (!s.tune || o.fixed?.includes(key) || (s.tune.rebuild && !o.rebuild)) continue;
    const narrowed = o.narrow?.[key];
    if (narrowed) {
      if (narrowed.length === 0) throw new SpaceError(`${s.flag ?? key}: no value left to try`);
      for (const x of narrowed) if (!v.is(valueSchema(s), x)) throw new SpaceError(`${s.flag ?? key}: ${JSON.stringify(x)} is not a value of this setting`);
    }
    out.push({
      key, values: [...new Set(narrowed ?? s.tune.values)], modes: s.tune.modes ?? null,
      ...(s.tune.requires ? { requires: s.tune.requires as TuneDimension['requires'] } : {}), ...(s.tune.finalists ? { finalists: true } : {}),
    });
  }
  for (const key of Object.keys(o.narrow ?? {})) {
    if (!out.some((d) => d.key === key)) throw new SpaceError(`${key} is not a setting the tuner varies (${out.map((d) => d.key).join(', ')})`);
  }
  return out;
}

const applies = (d: TuneDimension, mode: RetrievalMode) => d.modes === null || d.modes.includes(mode);

/** A candidate's identity: its mode and values. */
export const candidateKey = (c: TuneCandidate) => `${c.mode}|${Object.entries(c.values).map(([k, x]) => `${k}=${String(x)}`).join(',')}${c.embedder === undefined ? '' : `|e${c.embedder}`}`;

/** The values without those of dimensions whose `requires` they (or the base) do not meet: a chunk size unchunked is no setting. */
function effective(values: Partial<Record<RunFlatKey, TuneValue>>, dims: readonly TuneDimension[], base: RunFlat): Partial<Record<RunFlatKey, TuneValue>> {
  const out = { ...values };
  for (const d of dims) {
    if (d.requires && !Object.entries(d.requires).every(([k, want]) => (k in values ? values[k as RunFlatKey] : base[k as RunFlatKey]) === want)) delete out[d.key];
  }
  return out;
}

/** Every candidate of a mode (the product of its dimensions, less the values that do not apply), the base run's values first. */
export function modeCandidates(mode: RetrievalMode, dims: readonly TuneDimension[], base: RunFlat): TuneCandidate[] {
  const mine = dims.filter((d) => applies(d, mode));
  const baseValues = effective(Object.fromEntries(mine.map((d) => [d.key, base[d.key] as TuneValue])), mine, base);
  let all: Array<Partial<Record<RunFlatKey, TuneValue>>> = [{}];
  for (const d of mine) all = all.flatMap((v) => d.values.map((x) => ({ ...v, [d.key]: x })));
  all = all.map((v) => effective(v, mine, base));
  const first: TuneCandidate = { mode, values: baseValues };
  const seen = new Set([candidateKey(first)]);
  const out = [first];
  for (const values of all) {
    const c = { mode, values };
    if (!seen.has(candidateKey(c))) { seen.add(candidateKey(c)); out.push(c); }
  }
  return out;
}

/** The embedders a mode runs with: the current one (undefined), then each other one where the mode has a dense side. */
const embeddersOf = (mode: RetrievalMode, e?: EmbedderDimension): Array<number | undefined> =>
  [undefined, ...(e && e.modes.includes(mode) ? Array.from({ length: e.count }, (_, i) => i) : [])];

/** The space's size: candidates over every mode (and embedder). */
export const spaceSize = (modes: readonly RetrievalMode[], dims: readonly TuneDimension[], base: RunFlat, embedders?: EmbedderDimension) =>
  modes.reduce((n, m) => n + modeCandidates(m, dims, base).length * embeddersOf(m, embedders).length, 0);

/**
 * `budget` candidates (the dimensions tried beside the finalists left at the base's values): each mode's (and each
 * other embedder's) base candidate, then a seeded sample of the rest, round robin over the modes (in
 * the order given) until the budget or the space runs out.
 */
export function sampleCandidates(modes: readonly RetrievalMode[], dims: readonly TuneDimension[], base: RunFlat, budget: number, seed: number, embedders?: EmbedderDimension): TuneCandidate[] {
  if (modes.length === 0) throw new SpaceError('no mode can run: the space is empty');
  if (!(Number.isInteger(budget) && budget >= 1)) throw new SpaceError(`the budget must be a whole number of trials ≥ 1, got ${budget}`);
  const rand = seededRandom(seed);
  const sampled = dims.filter((d) => !d.finalists);
  // A pool per mode and embedder (the other embedders' pools after the current one's), each with its base first.
  const pools = modes.flatMap((m) => embeddersOf(m, embedders).map((e) => [m, e] as const)).map(([m, e]) => {
    const [first, ...rest] = modeCandidates(m, sampled, base).map((c) => (e === undefined ? c : { ...c, embedder: e }));
    for (let i = rest.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    }
    return [first!, ...rest];
  });
  const out: TuneCandidate[] = [];
  for (let round = 0; out.length < budget && pools.some((p) => p.length > round); round++) {
    for (const p of pools) if (round < p.length && out.length < budget) out.push(p[round]!);
  }
  return out;
}

/**
 * The candidates a finalist stage adds (dimensions declared `finalists`): for each finalist, each other value of each
 * such dimension that applies to its mode, the rest of its values kept; none that is already a candidate.
 */
export function finalistVariants(finalists: readonly TuneCandidate[], dims: readonly TuneDimension[], base: RunFlat, taken: readonly TuneCandidate[]): Array<{ of: number; c: TuneCandidate }> {
  const seen = new Set(taken.map(candidateKey));
  const out: Array<{ of: number; c: TuneCandidate }> = [];
  finalists.forEach((f, of) => {
    for (const d of dims) {
      if (!d.finalists || !applies(d, f.mode)) continue;
      for (const x of d.values) {
        const c: TuneCandidate = { ...f, values: { ...f.values, [d.key]: x } };
        if (x === (d.key in f.values ? f.values[d.key] : base[d.key]) || seen.has(candidateKey(c))) continue;
        seen.add(candidateKey(c));
        out.push({ of, c });
      }
    }
  });
  return out;
}

/** `--space k1=0.9,1.2`: each value read as its setting reads a flag ("auto" = unset). */
export function spaceFromFlags(given: readonly string[]): Partial<Record<RunFlatKey, TuneValue[]>> {
  const out: Partial<Record<RunFlatKey, TuneValue[]>> = {};
  for (const g of given) {
    const m = /^([\w-]+)=(.+)$/.exec(g.trim());
    const entry = m ? TUNED.find(([k, s]) => s.flag === m[1] || k === m[1]) : undefined;
    if (!m || !entry) throw new SpaceError(`--space ${g}: give a dimension and its values, e.g. --space alpha=0.3,0.5,0.7 (dimensions: ${TUNED.map(([, s]) => s.flag).join(', ')})`);
    const [key, s] = entry;
    out[key] = m[2]!.split(',').map((raw) => {
      const text = raw.trim();
      if (text === 'auto' && s.nullMeans !== undefined) return null;
      const x = valueFromText(s, text);
      if (x === undefined) throw new SpaceError(`--space ${s.flag}: "${text}" is not a value of ${s.flag}`);
      return x as TuneValue;
    });
  }
  return out;
}

/**
 * `--space FILE`: a JSON object of dimensions and their values (`{"alpha": [0.3, 0.7], "candidate_k": ["auto", 50]}`, a
 * dimension by its flag or key, null or "auto" for an unset k), as the `K=V,V` forms `spaceFromFlags` reads and checks.
 */
export function spaceFromFile(text: string, file = 'the space file'): string[] {
  let json: unknown;
  try { json = JSON.parse(text); } catch { throw new SpaceError(`${file} is not JSON`); }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new SpaceError(`${file}: give an object of dimensions and their values, e.g. {"alpha": [0.3, 0.7]}`);
  return Object.entries(json).map(([k, xs]) => {
    if (!Array.isArray(xs) || xs.length === 0 || !xs.every((x) => x === null || ['number', 'string', 'boolean'].includes(typeof x))) throw new SpaceError(`${file}: ${k} must be a list of values`);
    return `${k}=${xs.map((x) => (x === null ? 'auto' : String(x))).join(',')}`;
  });
}
