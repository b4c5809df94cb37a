/**
 * A schema's settings as `rag-lab` flags: the parseArgs options, the help lines, the numeric ranges the parser
 * enforces (`eval/flag-ranges.ts` takes them from here) and the values read back, checked, with one-line errors.
 */
import { expected, valueFromText, valueText, type Setting, type SettingsOf, type SettingsSchema } from './schema.ts';

export interface FlagRange {
  min: number;
  max: number;
  /** A whole number. */
  integer: boolean;
  /** What the flag counts, for the docs. */
  what: string;
}

type Flagged = [key: string, s: Setting & { flag: string }];
const flagged = (schema: SettingsSchema): Flagged[] => Object.entries(schema).filter((e): e is Flagged => e[1].flag !== undefined);

/** The parseArgs options of the schema's flags (a boolean setting is a switch; the rest take a value). */
export function flagOptions(schema: SettingsSchema): Record<string, { type: 'string' } | { type: 'boolean' }> {
  return Object.fromEntries(flagged(schema).map(([, s]) => [s.flag, s.type === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const }]));
}

/** The range of each numeric flag, by flag name. */
export function flagRanges(schema: SettingsSchema): Record<string, FlagRange> {
  return Object.fromEntries(flagged(schema).filter(([, s]) => s.type === 'int' || s.type === 'number')
    .map(([, s]) => [s.flag, { min: s.min!, max: s.max!, integer: s.type === 'int', what: s.describe }]));
}

const META: Record<string, string> = { int: 'N', number: 'X', enum: 'C', boolean: '', string: 'S' };

/** `text` in lines of at most `width` characters (never inside a range's brackets). */
function wrap(text: string, width: number): string[] {
  return text.split(/ (?![^[\]]*\])/).reduce<string[]>((lines, w) => {
    if (lines.length && `${lines.at(-1)!} ${w}`.length <= width) lines[lines.length - 1] += ` ${w}`;
    else lines.push(w);
    return lines;
  }, []);
}

/** One help line per flag: `  --top-k N          results per query (default 5)`, choices and ranges named. */
export function flagHelp(schema: SettingsSchema, defaults: Readonly<Record<string, unknown>> = {}): string {
  return flagged(schema).map(([key, s]) => {
    const head = `  --${s.flag}${s.type === 'boolean' ? '' : ` ${s.meta ?? META[s.type]}`}`;
    const d = key in defaults ? defaults[key] : s.default;
    const what = s.type === 'enum' ? `${s.describe}: ${s.choices!.join(' | ')}` : s.type === 'int' || s.type === 'number' ? `${s.describe}, in [${s.min}, ${s.max}]` : s.describe;
    // A switch says what it does; it is off unless given.
    const line = s.type === 'boolean' ? what : `${what} (default ${d === null ? s.nullMeans : valueText(d)})`;
    const body = wrap(line, 118 - 21).join(`\n${' '.repeat(21)}`);
    return head.length < 21 ? `${head.padEnd(21)}${body}` : `${head}\n${' '.repeat(21)}${body}`;
  }).join('\n');
}

/**
 * The settings the flags give (absent ones left out), each checked against its setting; `fail` makes the error
 * (`--top-k must be an integer in [1, 100], got "0"`), so each shell throws its own kind.
 */
export function readFlags<S extends SettingsSchema>(schema: S, values: Readonly<Record<string, unknown>>, fail: (message: string) => Error): Partial<SettingsOf<S>> {
  const out: Record<string, unknown> = {};
  for (const [key, s] of flagged(schema)) {
    const raw = values[s.flag];
    if (raw === undefined) continue;
    if (typeof raw === 'boolean') { if (s.type === 'boolean' && raw) out[key] = !s.negate; continue; }
    // A blank value is refused (never Number('') === 0).
    const x = String(raw).trim() === '' ? undefined : valueFromText(s, String(raw));
    if (x === undefined) throw fail(`--${s.flag} must be ${expected(s)}, got "${String(raw)}"`);
    out[key] = x;
  }
  return out as Partial<SettingsOf<S>>;
}
