/**
 * A RAGBench run's own settings are declared once (eval/ragbench-run/ragbench-run-schema.ts): each is a flag of
 * `eval-ragbench` (in its help with its range, parsed, refused out of range, the range FLAG_RANGES gives), and each
 * with a link parameter round-trips through the Benchmark tab's link, a refused value named in its warnings.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseArgs } from 'node:util';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { FLAG_RANGES } from '../../src/lib/eval/core/flag-ranges.ts';
import { RAGBENCH_RUN_DEFAULTS, RAGBENCH_RUN_SETTINGS } from '../../src/lib/eval/ragbench-run/ragbench-run-schema.ts';
import { BOOTSTRAP_ITERATIONS } from '../../src/lib/eval/ragbench/bootstrap.ts';
import { DEFAULT_EVALUATOR } from '../../src/lib/eval/score/evaluators.ts';
import { flagOptions, readFlags } from '../../src/lib/settings/cli-flags.ts';
import { valueText, type Setting } from '../../src/lib/settings/schema.ts';
import { benchLink, readBenchLink } from '../../src/ui/bench/bench-link.ts';

const entries = Object.entries(RAGBENCH_RUN_SETTINGS) as Array<[keyof typeof RAGBENCH_RUN_SETTINGS, Setting]>;

function samples(s: Setting): { good: string | number; bad: string } {
  if (s.type === 'enum') return { good: s.choices!.find((x) => x !== s.default)!, bad: 'bogus' };
  return { good: s.type === 'int' ? s.max! : (s.min! + s.max!) / 2, bad: String(s.max! + 1) };
}

afterEach(() => vi.restoreAllMocks());

describe("a RAGBench run's settings, declared once", () => {
  it("start from the CLI's defaults: validate, lexical, every row, seed 0, 1000 resamples, one row at a time, one judge call", () => {
    expect(RAGBENCH_RUN_DEFAULTS).toEqual({ mode: 'validate', evaluator: DEFAULT_EVALUATOR, n: null, seed: 0, bootstrap: BOOTSTRAP_ITERATIONS, concurrency: 1, repeats: 1, temperature: null });
  });

  it('are flags of eval-ragbench: in its help with their range, parsed, refused out of range, bounded as FLAG_RANGES says', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await evalRagbenchCommand(['--help']);
    const help = log.mock.calls.map((c) => String(c[0])).join('\n');
    for (const [key, s] of entries) {
      expect(help, key).toMatch(new RegExp(`^  --${s.flag}\\b`, 'm'));
      const { good, bad } = samples(s);
      const { values } = parseArgs({ args: [`--${s.flag}`, valueText(good)], options: flagOptions(RAGBENCH_RUN_SETTINGS), strict: true });
      expect(readFlags(RAGBENCH_RUN_SETTINGS, values, (m) => new Error(m)), key).toEqual({ [key]: good });
      expect(() => readFlags(RAGBENCH_RUN_SETTINGS, { [s.flag!]: bad }, (m) => new Error(m)), key).toThrow(`--${s.flag} must be`);
      if (s.type === 'int' || s.type === 'number') expect(FLAG_RANGES[s.flag!], key).toMatchObject({ min: s.min, max: s.max });
    }
    await expect(evalRagbenchCommand(['--data', '/nonexistent', '--concurrency', '0'])).rejects.toThrow('--concurrency must be an integer in [1, 64], got "0"');
  });

  it("round-trip through the Benchmark tab's link where they have a parameter; a refused value is named, the rest kept", () => {
    const base = { subsets: ['emanual'], n: 20, seed: 0, evaluator: DEFAULT_EVALUATOR, mode: 'validate' as const };
    const judge = { provider: 'openai' as const, baseUrl: null, model: 'judge', repeats: 1, rpm: null, tpm: null };
    const linked = entries.filter(([, s]) => s.url !== undefined);
    expect(linked.map(([k]) => k)).toEqual(['mode', 'evaluator', 'n', 'seed', 'repeats']);
    for (const [key, s] of linked) {
      const { good, bad } = samples(s);
      const state = key === 'repeats' ? base : { ...base, [key]: good };
      const link = benchLink(state, { ...judge, repeats: key === 'repeats' ? (good as number) : 1 }, true);
      expect(link.get(s.url!), key).toBe(valueText(good));
      const back = readBenchLink(`?${link}`);
      expect(key === 'repeats' ? back.judge.repeats : (back as unknown as Record<string, unknown>)[key], key).toBe(good);
      expect(back.warnings, key).toEqual([]);
      // The tab reads more rows than any subset holds as all rows; too few is refused.
      const refusedValue = key === 'n' ? '0' : bad;
      const refused = readBenchLink(`?${new URLSearchParams({ ...Object.fromEntries(link), [s.url!]: refusedValue })}`);
      expect(refused.warnings.join(' '), key).toContain(refusedValue);
      expect(key === 'repeats' ? refused.judge.repeats : (refused as unknown as Record<string, unknown>)[key], key).toBeUndefined();
    }
  });

  it('leave the judge out of a link unless it is used', () => {
    const link = benchLink({ subsets: ['emanual'], n: null, seed: 3, evaluator: 'lexical', mode: 'validate' }, null, false);
    expect(link.toString()).toBe('b_sub=emanual&b_n=all&b_seed=3&b_eval=lexical');
    expect(readBenchLink(`?${link}`)).toEqual({ subsets: ['emanual'], n: null, seed: 3, judge: {}, warnings: [] });
  });
});
