/**
 * The search settings are declared once (src/lib/settings/search.ts): every setting reaches the Search tab's link
 * codec, `rag-lab search`'s flags (parsed and in its help), the flag ranges, the recorded config and the RAG
 * pipeline's config; and a setting added to a schema reaches the link, the flags and the recorded config with no
 * other edit (the codec, the flags and the config are built from the schema they are given).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseArgs } from 'node:util';
import { searchCommand } from '../../cli/search.ts';
import { FLAG_RANGES } from '../../src/lib/eval/core/flag-ranges.ts';
import { DEFAULT_RAG_CONFIG, cloneConfig, fromUrlParams, parseRagConfig, toUrlParams } from '../../src/lib/rag/config.ts';
import { DEFAULT_SEARCH } from '../../src/lib/retrieval/search-types.ts';
import { flagHelp, flagOptions, flagRanges, readFlags } from '../../src/lib/settings/cli-flags.ts';
import { RAG_RETRIEVAL_SETTINGS } from '../../src/lib/settings/rag.ts';
import { defaultsOf, int, objectSchema, recordedConfig, type Setting, type SettingsSchema } from '../../src/lib/settings/schema.ts';
import { SEARCH_DEFAULTS, SEARCH_SETTINGS, searchSettingsOf } from '../../src/lib/settings/search.ts';
import { urlCodec } from '../../src/lib/settings/url-codec.ts';
import { DEFAULT_URL_STATE, parseUrlState, SEARCH_PARAMS, serializeUrlState } from '../../src/ui/search/url-state.ts';
import * as v from 'valibot';

/** A valid value other than the default, and one the setting refuses. */
function samples(s: Setting): { good: string | number | boolean; text: string; bad: string } {
  if (s.type === 'enum') { const c = s.choices!.find((x) => x !== s.default)!; return { good: c, text: c, bad: 'bogus' }; }
  if (s.type === 'boolean') return { good: !s.default, text: s.default ? '0' : '1', bad: 'maybe' };
  // the middle of the range, or three quarters up when the middle is the default (α's 0.5)
  const x = s.type === 'int' ? s.max! : (s.min! + s.max!) / 2 === s.default ? (s.min! + 3 * s.max!) / 4 : (s.min! + s.max!) / 2;
  return { good: x, text: String(x), bad: String(s.max! + 1) };
}

afterEach(() => vi.restoreAllMocks());

async function searchHelp(): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await searchCommand(['--help']);
  return log.mock.calls.map((c) => String(c[0])).join('\n');
}

describe('every search setting, declared once', () => {
  const entries = Object.entries(SEARCH_SETTINGS) as Array<[keyof typeof SEARCH_SETTINGS, Setting]>;

  it('has its default from the core, and every link parameter of the tab but the query and filters is one of them', () => {
    for (const [key, s] of entries) expect(s.default, key).toBe(DEFAULT_SEARCH[key]);
    expect([...SEARCH_PARAMS].filter((p) => !['q', 'ymin', 'ymax', 'party'].includes(p))).toEqual(entries.map(([, s]) => s.url));
  });

  it('round-trips through the Search tab\'s link; a refused value is named and the default kept', () => {
    for (const [key, s] of entries) {
      const { good, text, bad } = samples(s);
      const link = serializeUrlState({ ...DEFAULT_URL_STATE, [key]: good });
      expect(link, key).toBe(`?${s.url}=${encodeURIComponent(text)}`);
      expect(parseUrlState(link).state[key], key).toBe(good);
      const refused = parseUrlState(`?${s.url}=${bad}`);
      expect(refused.state[key], key).toBe(DEFAULT_URL_STATE[key]);
      expect(refused.warnings.join(' '), key).toContain(bad);
    }
  });

  it("is a flag of rag-lab search: in its help with its range, parsed, refused out of range, and in FLAG_RANGES", async () => {
    const help = await searchHelp();
    for (const [key, s] of entries) {
      const { good, text, bad } = samples(s);
      expect(help, key).toMatch(new RegExp(`^  --${s.flag}\\b`, 'm'));
      const { values } = parseArgs({ args: [`--${s.flag}`, text], options: flagOptions(SEARCH_SETTINGS), strict: true });
      expect(readFlags(SEARCH_SETTINGS, values, (m) => new Error(m)), key).toEqual({ [key]: good });
      await expect(searchCommand([`--${s.flag}`, bad, 'query']), key).rejects.toThrow(`--${s.flag} must be`);
      if (s.type === 'int' || s.type === 'number') expect(FLAG_RANGES[s.flag!], key).toMatchObject({ min: s.min, max: s.max, integer: s.type === 'int' });
    }
  });

  it('is in the recorded config, and in the RAG pipeline\'s config with the same default, link parameter and flag', () => {
    const recorded = recordedConfig(SEARCH_SETTINGS, SEARCH_DEFAULTS);
    expect(Object.keys(recorded)).toEqual(entries.map(([k]) => k));
    for (const [key, s] of entries) {
      expect(recorded[key], key).toBe(SEARCH_DEFAULTS[key]);
      const rag = RAG_RETRIEVAL_SETTINGS[key];
      expect([rag.url, rag.flag], key).toEqual([s.url, s.flag]);
      if (key !== 'rejectThreshold') expect(DEFAULT_RAG_CONFIG.retrieval[key], key).toBe(s.default);
      // The Ask tab's link carries it under the same parameter.
      const c = cloneConfig(DEFAULT_RAG_CONFIG);
      const { good } = samples(rag);
      (c.retrieval as Record<string, unknown>)[key] = good;
      expect(toUrlParams(c).has(s.url!), key).toBe(true);
      expect(fromUrlParams(toUrlParams(c)).config.retrieval[key], key).toBe(good);
    }
  });
});

describe('the settings a search is sent with', () => {
  it('are the declared ones only; a value its declaration refuses (blank, out of range) is the default', () => {
    const form = { ...SEARCH_DEFAULTS, alpha: 0.7, candidateK: 50, extra: 'kept out' } as typeof SEARCH_DEFAULTS;
    expect(searchSettingsOf(form)).toEqual({ ...SEARCH_DEFAULTS, alpha: 0.7, candidateK: 50 });
    const bad = { ...SEARCH_DEFAULTS, alpha: 1.5, candidateK: null as unknown as number, topK: 0, bm25K: null };
    expect(searchSettingsOf(bad)).toEqual(SEARCH_DEFAULTS);
  });
});

describe('a setting added to a schema', () => {
  // A fixture: the search settings plus one more, declared once and nowhere else.
  const FIXTURE = {
    ...SEARCH_SETTINGS,
    rrfK: int({ default: 60, min: 1, max: 500, url: 'rrf', flag: 'rrf-k', describe: 'the RRF constant k of 1 / (k + rank)' }),
  } satisfies SettingsSchema;

  it('reaches the link codec, the flags (options, help, range, values) and the recorded config with no other edit', () => {
    const values = { ...defaultsOf(FIXTURE), rrfK: 42 };
    const p = new URLSearchParams();
    const codec = urlCodec(FIXTURE);
    codec.serialize(values, p);
    expect(p.toString()).toBe('rrf=42');
    expect(codec.params).toContain('rrf');
    const back = defaultsOf(FIXTURE), warnings: string[] = [];
    codec.parse(new URLSearchParams('rrf=7&k=3'), back, warnings);
    expect([back.rrfK, back.topK, warnings]).toEqual([7, 3, []]);
    codec.parse(new URLSearchParams('rrf=9999'), back, warnings);
    expect([back.rrfK, warnings]).toEqual([7, ['Ignored invalid rrf="9999" in the link.']]);

    expect(flagOptions(FIXTURE)['rrf-k']).toEqual({ type: 'string' });
    expect(flagHelp(FIXTURE)).toMatch(/^ {2}--rrf-k N +the RRF constant k of 1 \/ \(k \+ rank\), in \[1, 500\] \(default 60\)$/m);
    expect(flagRanges(FIXTURE)['rrf-k']).toEqual({ min: 1, max: 500, integer: true, what: 'the RRF constant k of 1 / (k + rank)' });
    expect(readFlags(FIXTURE, { 'rrf-k': '12' }, (m) => new Error(m))).toEqual({ rrfK: 12 });
    expect(() => readFlags(FIXTURE, { 'rrf-k': '0' }, (m) => new Error(m))).toThrow('--rrf-k must be an integer in [1, 500], got "0"');

    expect(recordedConfig(FIXTURE, values)).toMatchObject({ rrfK: 42, topK: 5 });
    const config = v.safeParse(objectSchema(FIXTURE, 'is not a setting'), { rrfK: 501 });
    expect(config.success).toBe(false);
    expect(v.parse(objectSchema(FIXTURE, 'is not a setting'), {})).toMatchObject({ rrfK: 60, topK: 5 });
  });

  it("the RAG pipeline's config schema refuses a value out of a declared range, naming the field", () => {
    expect(parseRagConfig({ retrieval: { topK: 51 } })).toMatchObject({ ok: false, errors: ['retrieval.topK: must be at most 50, got 51'] });
  });
});
