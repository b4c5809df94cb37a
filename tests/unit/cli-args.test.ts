/** The CLI's argument errors: edit distance and the "did you mean" suggestion. */
import { describe, expect, it } from 'vitest';
import { CliError, editDistance, nearest, parse } from '../../cli/args.ts';

describe('editDistance (optimal string alignment)', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3); // k→s, e→i, +g
    expect(editDistance('--mdoes', '--modes')).toBe(1); // one swap
    expect(editDistance('--mode', '--modes')).toBe(1);
    expect(editDistance('ca', 'abc')).toBe(3); // OSA: no edit of a swapped pair
  });
});

describe('nearest', () => {
  const flags = ['--modes', '--data', '--json', '--run-out'];
  it('suggests the closest candidate within two edits', () => {
    expect(nearest('--mdoes', flags)).toBe('--modes');
    expect(nearest('--jsno', flags)).toBe('--json');
    expect(nearest('--runout', flags)).toBe('--run-out');
  });
  it('suggests nothing for a flag far from every candidate', () => {
    expect(nearest('--temperature', flags)).toBeNull();
    expect(nearest('-x', ['-h'])).toBeNull(); // one edit, but half of a two-letter flag
  });
});

describe('parse', () => {
  const options = { modes: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  it('names an unknown flag and the nearest known one, as a CliError with exit code 2', () => {
    const e = (() => { try { parse(['--mdoes', 'all'], options); } catch (x) { return x; } return null; })();
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(2);
    expect((e as CliError).message).toBe('unknown option --mdoes (did you mean --modes?); see --help');
  });
  it('gives no guess when none is close, and keeps parseArgs messages for other faults', () => {
    expect(() => parse(['--frobnicate'], options)).toThrow(/^unknown option --frobnicate; see --help$/);
    expect(() => parse(['--modes'], options)).toThrow(/argument missing/);
    expect(parse(['--modes', 'all', '--json'], options).values).toEqual({ modes: 'all', json: true });
  });
});
