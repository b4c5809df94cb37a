/** Argument parsing for the CLI (node:util parseArgs) with errors that exit with code 2. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

/**
 * Optimal-string-alignment distance: the fewest insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn `a` into `b` (d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+[a_i≠b_j], d[i-2][j-2]+1 on a swap)).
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `name` when it is close enough to be a typo (at most 2 edits, and under half its length). */
export function nearest(name: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const dist = editDistance(name, c);
    if (dist < bestD) { best = c; bestD = dist; }
  }
  return best !== null && bestD <= 2 && bestD < name.length / 2 ? best : null;
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    const unknown = /^Unknown option '([^']+)'/.exec((e as Error).message)?.[1];
    if (unknown === undefined) throw new CliError((e as Error).message);
    const flag = unknown.replace(/=.*$/, '');
    const names = Object.entries(options).flatMap(([long, o]) => [`--${long}`, ...(o.short ? [`-${o.short}`] : [])]);
    const guess = nearest(flag, names);
    throw new CliError(`unknown option ${flag}${guess ? ` (did you mean ${guess}?)` : ''}; see --help`);
  }
}

export function numberArg(name: string, value: string | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new CliError(`--${name} must be ${what}, got "${value}"`);
  return n;
}
