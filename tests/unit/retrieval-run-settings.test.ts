/**
 * A retrieval run's settings are declared once (src/lib/settings/retrieval-run.ts RUN_SETTINGS): every setting is a
 * flag of `rag-lab eval-beir` (in its help with its range, parsed, refused out of range, in FLAG_RANGES), maps to the
 * session's settings and back, reaches the recorded config, and the tab's form reads it as the flag does; a setting
 * added to the schema reaches the flags, their help and ranges with no other edit.
 */
import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { evalBeirCommand } from '../../cli/eval-beir.ts';
import { FLAG_RANGES } from '../../src/lib/eval/core/flag-ranges.ts';
import { RUN_FLAG_OPTIONS, settingsFromFlags } from '../../src/lib/eval/retrieval/retrieval-flags.ts';
import { buildRunKb, PROTOCOLS, retrievalRunConfig, runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { presetFlat, runFromGiven, runOfFlat } from '../../src/lib/eval/retrieval/run-settings-map.ts';
import { flagHelp, flagOptions, flagRanges, readFlags } from '../../src/lib/settings/cli-flags.ts';
import { DEFAULT_RUN_SETTINGS, flatOfRun, RUN_DEFAULTS, RUN_SETTINGS, type RunFlat, type RunFlatKey } from '../../src/lib/settings/retrieval-run.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { bool, int, type Setting } from '../../src/lib/settings/schema.ts';
import { presetFields, runOverrides } from '../../src/ui/bench/retrieval-bench-view.ts';

/** A valid value other than the default, its flag text, and one the setting refuses (null: none, e.g. a switch). */
function samples(s: Setting): { good: unknown; args: string[]; bad: string | null } {
  if (s.type === 'enum') { const c = s.choices!.find((x) => x !== s.default)!; return { good: c, args: [`--${s.flag}`, c], bad: 'bogus' }; }
  if (s.type === 'boolean') return { good: !s.default, args: [`--${s.flag}`], bad: null };
  if (s.type === 'string') return { good: 'dev', args: [`--${s.flag}`, 'dev'], bad: null };
  // Within every protocol's other settings: a chunk size above the preset's overlap, an overlap below its chunk size.
  const x = s.type === 'int' ? Math.min(s.max!, Math.max(s.min!, s.default === DEFAULT_CHUNKING.overlap ? 100 : 900)) : (s.min! + s.max!) / 2 === s.default ? (s.min! + 3 * s.max!) / 4 : (s.min! + s.max!) / 2;
  return { good: x, args: [`--${s.flag}`, String(x)], bad: String(s.max! + 1) };
}
const entries = Object.entries(RUN_SETTINGS) as Array<[RunFlatKey, Setting]>;

afterEach(() => vi.restoreAllMocks());

async function help(): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await evalBeirCommand(['--help']);
  return log.mock.calls.map((c) => String(c[0])).join('\n');
}

describe('every retrieval-run setting, declared once', () => {
  it("has the session's default, and each protocol's preset maps to flat values and back unchanged", () => {
    expect(flatOfRun(DEFAULT_RUN_SETTINGS)).toEqual(RUN_DEFAULTS);
    for (const p of PROTOCOLS) expect(runOfFlat(presetFlat(p)), p).toEqual(runSettings(p));
  });

  it('is a flag of eval-beir: in its help with its range, parsed over the preset, refused out of range, in FLAG_RANGES', async () => {
    const text = await help();
    for (const [key, s] of entries) {
      expect(text, key).toMatch(new RegExp(`^  --${s.flag}\\b`, 'm'));
      const { good, args, bad } = samples(s);
      const { values } = parseArgs({ args, options: RUN_FLAG_OPTIONS, strict: true });
      expect(flatOfRun(settingsFromFlags(values))[key], key).toEqual(good);
      if (bad !== null) expect(() => settingsFromFlags({ [s.flag!]: bad }), key).toThrow(`--${s.flag} must be`);
      if (s.type === 'int' || s.type === 'number') {
        expect(FLAG_RANGES[s.flag!]!.min, key).toBeLessThanOrEqual(s.min!);
        expect(FLAG_RANGES[s.flag!]!.max, key).toBeGreaterThanOrEqual(s.max!);
      }
    }
  });

  it('is in the recorded config of a run', async () => {
    const docs = Array.from({ length: 4 }, (_, i) => ({ id: `d${i}`, title: `T${i}`, text: `text of document ${i} `.repeat(80) }));
    const id = { dataKey: 'k', dataset: 'fixture', kb: null, embedder: null, reranker: null };
    // The config's name of each setting (the session's own where it nests them).
    const recordedAs: Partial<Record<RunFlatKey, (c: Record<string, unknown>) => unknown>> = {
      pool: (c) => (c['growPool'] ? 'grow' : 'fixed'), chunked: (c) => c['chunking'] !== null,
      chunkSize: (c) => (c['chunking'] as { chunkSize: number } | null)?.chunkSize, overlap: (c) => (c['chunking'] as { overlap: number } | null)?.overlap,
    };
    for (const [key, s] of entries) {
      const { good } = samples(s);
      const given: Partial<RunFlat> = { [key]: good, ...(key === 'chunkSize' || key === 'overlap' ? { chunked: true } : {}) };
      const r = runFromGiven(given);
      const { config } = await retrievalRunConfig(r, buildRunKb(docs, r), id, { modes: ['sparse'] });
      const read = recordedAs[key] ?? ((c: Record<string, unknown>) => c[key]);
      expect(read(config), key).toEqual(good);
    }
  });

  it("the tab's form reads a field as eval-beir reads the flag (the same bounds and message)", () => {
    const form = presetFields('default');
    expect(runOverrides('default', { ...form, candidateK: '1001' }, true)).toEqual({ ok: false, message: `candidate_k must be an integer in [1, ${RUN_SETTINGS.candidateK.max}], got "1001"` });
    expect(() => settingsFromFlags({ 'candidate-k': '1001' })).toThrow(`--candidate-k must be an integer in [1, ${RUN_SETTINGS.candidateK.max}], got "1001"`);
  });
});

describe('a setting added to the schema', () => {
  const withNew = { ...RUN_SETTINGS, rrfK: int({ default: 60, min: 1, max: 500, flag: 'rrf-k', describe: 'RRF constant' }), trace: bool({ default: true, flag: 'no-trace', negate: true, describe: 'skip tracing' }) };
  it('reaches the flags, their help and ranges with no other edit (a negated switch turns its setting off)', () => {
    expect(flagOptions(withNew)).toMatchObject({ 'rrf-k': { type: 'string' }, 'no-trace': { type: 'boolean' } });
    expect(flagHelp(withNew)).toMatch(/^ {2}--rrf-k N +RRF constant, in \[1, 500\] \(default 60\)$/m);
    expect(flagHelp(withNew)).toMatch(/^ {2}--no-trace +skip tracing$/m);
    expect(flagRanges(withNew)['rrf-k']).toEqual({ min: 1, max: 500, integer: true, what: 'RRF constant' });
    const { values } = parseArgs({ args: ['--rrf-k', '30', '--no-trace'], options: flagOptions(withNew), strict: true });
    expect(readFlags(withNew, values, (m) => new Error(m))).toEqual({ rrfK: 30, trace: false });
  });
});
