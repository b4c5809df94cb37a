/** Argument parsing for the CLI (node:util parseArgs) with errors that exit with code 2; numeric flags bounded by FLAG_RANGES. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { nearest } from '../src/lib/util/edit-distance.ts';
import { flagRangeProblem } from '../src/lib/eval/core/flag-ranges.ts';

export { editDistance, nearest } from '../src/lib/util/edit-distance.ts';

export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

/** The flags parsed (strict); a numeric flag over its range (`src/lib/eval/core/flag-ranges.ts`) is refused here, before the command runs. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = false) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    const unknown = /^Unknown option '([^']+)'/.exec((e as Error).message)?.[1];
    if (unknown === undefined) throw new CliError((e as Error).message);
    const flag = unknown.replace(/=.*$/, '');
    const names = Object.entries(options).flatMap(([long, o]) => [`--${long}`, ...(o.short ? [`-${o.short}`] : [])]);
    const guess = nearest(flag, names);
    throw new CliError(`unknown option ${flag}${guess ? ` (did you mean ${guess}?)` : ''}; see --help`);
  }
  for (const [name, value] of Object.entries(parsed.values)) {
    const problem = typeof value === 'string' ? flagRangeProblem(name, value) : null;
    if (problem) throw new CliError(problem);
  }
  return parsed;
}

export function numberArg(name: string, value: string | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new CliError(`--${name} must be ${what}, got "${value}"`);
  return n;
}
