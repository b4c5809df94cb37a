/** Argument parsing for the CLI (node:util parseArgs) with errors that exit with code 2. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

export function numberArg(name: string, value: string | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new CliError(`--${name} must be ${what}, got "${value}"`);
  return n;
}
