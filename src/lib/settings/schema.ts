/**
 * A settings family declared once, as MiniSearch documents its options: each setting with its type, default, bounds
 * or choices, URL parameter, CLI flag and a one-line description. The defaults, the URL codec (`url-codec.ts`), the
 * CLI flags with their help and ranges (`cli-flags.ts`) and the recorded config (`recordedConfig`) are built from a
 * schema passed in, so a setting added to a schema reaches all of them with no other edit.
 */
import * as v from 'valibot';

export type SettingType = 'int' | 'number' | 'enum' | 'boolean' | 'string';

/** One setting. `V` is its value's type (null included when `nullMeans` is set). */
export interface Setting<V = unknown> {
  type: SettingType;
  default: V;
  /** Bounds of a number (inclusive). */
  min?: number;
  max?: number;
  /** The values an enum takes. */
  choices?: readonly string[];
  /** What null means (the setting may be unset): "candidate_k", "the mode's default". */
  nullMeans?: string;
  /** The parameter that carries it in a link; absent: not in links. */
  url?: string;
  /** The `rag-lab` flag that sets it (without `--`); absent: no flag. */
  flag?: string;
  /** A boolean whose flag turns it off (`--no-predictors`): given, the setting is false. */
  negate?: boolean;
  /** The flag's value placeholder in the help ("N", "MODE"). */
  meta?: string;
  /** The name an enum's warnings use ("mode", "calibration"); defaults to the key. */
  label?: string;
  /** One line: what it does. */
  describe: string;
  /** false: not part of the recorded config. */
  record?: boolean;
  /** The value's own check where type and bounds do not say it all (a URL without credentials, a trimmed name). */
  check?: v.GenericSchema;
  /** What `check` accepts, for messages ("an http(s) URL without credentials"). */
  expects?: string;
  /**
   * The values the tuner tries by default (tune/space.ts: a setting with `tune` is a dimension of the search space),
   * and the retrieval modes it changes anything in (absent: every mode). `rebuild`: each value is a knowledge base
   * built again (chunking), a dimension only when the tune may rebuild; `requires`: the values of other settings it
   * only matters under (a chunk size, when chunked); `finalists`: tried on the halving's finalists only, one value at a
   * time beside each (a setting that moves latency and hardly the score: sampling it would spend the budget on
   * settings the objective cannot tell apart).
   */
  tune?: { values: readonly (number | string | boolean | null)[]; modes?: readonly string[]; rebuild?: boolean; requires?: Readonly<Record<string, number | string | boolean | null>>; finalists?: boolean };
}

export type SettingsSchema = Readonly<Record<string, Setting>>;
/** The values a schema describes. */
export type SettingsOf<S extends SettingsSchema> = { -readonly [K in keyof S]: S[K] extends Setting<infer V> ? V : never };

type Common = Omit<Setting, 'type' | 'default' | 'min' | 'max' | 'choices' | 'nullMeans'>;

/** A whole number in [min, max]; with `nullMeans`, null allowed (unset). */
export function int(d: Common & { default: number; min: number; max: number }): Setting<number>;
export function int(d: Common & { default: number | null; min: number; max: number; nullMeans: string }): Setting<number | null>;
export function int(d: Common & { default: number | null; min: number; max: number; nullMeans?: string }): Setting<number | null> {
  return { ...d, type: 'int' };
}
/** A finite number in [min, max]; with `nullMeans`, null allowed (unset). */
export function num(d: Common & { default: number; min: number; max: number }): Setting<number>;
export function num(d: Common & { default: number | null; min: number; max: number; nullMeans: string }): Setting<number | null>;
export function num(d: Common & { default: number | null; min: number; max: number; nullMeans?: string }): Setting<number | null> {
  return { ...d, type: 'number' };
}
export const oneOf = <T extends string>(choices: readonly T[], d: Common & { default: T }): Setting<T> => ({ ...d, choices, type: 'enum' });
export const bool = (d: Common & { default: boolean }): Setting<boolean> => ({ ...d, type: 'boolean' });
/** Text (`check` says what text); with `nullMeans`, null allowed (unset; the pipeline's link reads a blank value as null: rag/config.ts). */
export function text(d: Common & { default: string }): Setting<string>;
export function text(d: Common & { default: string | null; nullMeans: string }): Setting<string | null>;
export function text(d: Common & { default: string | null; nullMeans?: string }): Setting<string | null> {
  return { ...d, type: 'string' };
}

/** Every setting's default. */
export function defaultsOf<S extends SettingsSchema>(schema: S): SettingsOf<S> {
  return Object.fromEntries(Object.entries(schema).map(([k, s]) => [k, s.default])) as SettingsOf<S>;
}

/** The schema's own settings of `values` (what a request or a form sends on), in the schema's order. */
export function pickSettings<S extends SettingsSchema>(schema: S, values: SettingsOf<S>): SettingsOf<S> {
  return Object.fromEntries(Object.keys(schema).map((k) => [k, values[k as keyof S]])) as SettingsOf<S>;
}

/**
 * The settings as a report's config records them, in the schema's order (those with `record: false` left out;
 * `omitNull`: unset ones left out too, as `rag-lab search --json` prints them).
 */
export function recordedConfig<S extends SettingsSchema>(schema: S, values: SettingsOf<S>, o: { omitNull?: boolean } = {}): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, s] of Object.entries(schema)) {
    const x = values[k as keyof S] as string | number | boolean | null;
    if (s.record === false || (o.omitNull && x === null)) continue;
    out[k] = x;
  }
  return out;
}

/** "an integer in [1, 100]" / "a number in [0, 1]" / "one of a, b". */
export function expected(s: Setting): string {
  if (s.expects !== undefined) return s.expects;
  if (s.type === 'int') return `an integer in [${s.min}, ${s.max}]`;
  if (s.type === 'number') return `a number in [${s.min}, ${s.max}]`;
  if (s.type === 'enum') return `one of ${s.choices!.join(', ')}`;
  if (s.type === 'boolean') return 'true or false (1 or 0)';
  return 'a string';
}

/** The valibot check of a setting's value written as text (a link's parameter, a flag). */
function textSchema(s: Setting) {
  const bounded = (x: v.GenericSchema<string, number>) => v.pipe(x, v.minValue(s.min!), v.maxValue(s.max!));
  switch (s.type) {
    case 'int': return bounded(v.pipe(v.string(), v.transform(Number), v.number(), v.integer()));
    case 'number': return bounded(v.pipe(v.string(), v.transform(Number), v.number(), v.finite()));
    case 'enum': return v.picklist(s.choices!);
    case 'boolean': return v.pipe(v.picklist(['1', '0', 'true', 'false']), v.transform((x) => x === '1' || x === 'true'));
    default: return s.check ?? v.string();
  }
}

/** A setting's value from text (not blank: blank means absent to both links and flags), or undefined when invalid. */
export function valueFromText(s: Setting, raw: string): unknown {
  const r = v.safeParse(textSchema(s), raw);
  return r.success ? r.output : undefined;
}

/** A value as text in a link or a help line (booleans as 1 / 0). */
export const valueText = (x: unknown): string => (typeof x === 'boolean' ? (x ? '1' : '0') : String(x));

/** The valibot check of a setting's value in a config object (messages as `parseRagConfig` gives them). */
export function valueSchema(s: Setting): v.GenericSchema {
  const lo = s.min!, hi = s.max!;
  const one: v.GenericSchema = s.check ? s.check : s.type === 'int'
    ? v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(lo, `must be at least ${lo}`), v.maxValue(hi, `must be at most ${hi}`))
    : s.type === 'number'
      ? v.pipe(v.number('must be a number'), v.finite('must be a finite number'), v.minValue(lo, `must be at least ${lo}`), v.maxValue(hi, `must be at most ${hi}`))
      : s.type === 'enum' ? v.picklist(s.choices!, `must be one of ${s.choices!.join(', ')}`)
        : s.type === 'boolean' ? v.boolean('must be true or false') : v.string('must be a string');
  return s.nullMeans !== undefined ? v.nullable(one) : one;
}

/** The strict object of a schema's settings, each optional with its default (unknown keys refused with `unknown`). */
export function objectSchema(schema: SettingsSchema, unknown: string) {
  return v.strictObject(Object.fromEntries(Object.entries(schema).map(([k, s]) => [k, v.optional(valueSchema(s), s.default as never)])), unknown);
}
