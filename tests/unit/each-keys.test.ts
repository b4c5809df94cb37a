/**
 * Svelte 5 throws `each_key_duplicate` when a keyed each meets two equal keys, and the component tree dies (a blank
 * tab). So every `{#each xs as x (key)}` in the components is keyed by its index, or by a key this file lists with
 * the reason it is unique, and the constant lists among those are checked here for duplicates. A new data-derived
 * key fails the first test until it is audited.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RAGBENCH_SUBSETS } from '../../src/lib/data/ragbench.ts';
import { BROWSER_PROVIDER, PROVIDERS } from '../../src/lib/llm/registry.ts';
import { findCitations } from '../../src/lib/rag/citations.ts';
import { TRANSFORMS } from '../../src/lib/rag/config.ts';
import { CALIBRATIONS } from '../../src/lib/retrieval/calibrate.ts';
import { MODE_IDS } from '../../src/lib/retrieval/modes.ts';
import { IR_METRIC_IDS } from '../../src/lib/stats/ir-metrics.ts';
import { MODEL_OPTIONS } from '../../src/lib/models/registry.ts';
import { spaceFields } from '../../src/ui/tune/tune-view.ts';

const ROOT = join(import.meta.dirname, '../../src/ui');
const FILES = [join(ROOT, 'App.svelte'), ...readdirSync(join(ROOT, 'components')).filter((f) => f.endsWith('.svelte')).map((f) => join(ROOT, 'components', f))];

/** `file: list → key`, each with why its keys cannot repeat. */
const AUDITED: Record<string, string> = {
  'App.svelte: tabs → t.id': 'a constant list',
  'PublishKb.svelte: publish.testSets → t.id': 'test sets are stored by id (one record per id)',
  'TunePanel.svelte: tune.sets.filter((x) => x.id !== tune.selected) → s.id': 'test sets are stored by id (one record per id)',
  'TunePanel.svelte: tune.sets → s.id': 'test sets are stored by id (one record per id)',
  'TunePanel.svelte: tune.modeChoices → m.id': 'MODE_IDS, a constant list',
  'TunePanel.svelte: view.heldOut → h.group': "one row per group: current, winner, front #<trial> (tune-extra.ts tuneGroup; the winner and front as a set)",
  'TunePanel.svelte: showAll ? rows : rows.slice(0, 20) → row.id': 'trial ids are their index in the trials list',
  'TunePanel.svelte: spaceFields(tune.rebuild) → f.flag': 'one field per tuned setting; flags are distinct (checked below)',
  'TunePanel.svelte: IR_METRIC_IDS → m': 'a constant list (checked below)',
  'TunePanel.svelte: MODEL_OPTIONS.embedder → o.id': 'a constant list (checked below)',
  'App.svelte: THEMES → t': 'a constant list (checked below)',
  "NoticeList.svelte: shown → n.feature + '/' + n.key": 'NoticesState keeps one notice per (feature, key): a repeat replaces it',
  'AnswerText.svelte: p.numbers → n': 'findCitations lists each number once per group (tested below)',
  'AskTab.svelte: PROVIDER_IDS → id': 'the keys of the provider registry',
  'AskTab.svelte: meta?.models ?? BROWSER_PROVIDER.models → m': 'registry constants (checked below)',
  'AskTab.svelte: MODE_IDS → m': 'a constant list (checked below)',
  'AskTab.svelte: TRANSFORMS → t': 'a constant list (checked below)',
  'AskTab.svelte: contexts → s.n': 'windowContexts numbers the sources 1..k',
  'BenchmarkTab.svelte: Object.values(PROVIDERS) → m.id': 'the registry is keyed by id (checked below)',
  'HitCard.svelte: scores → label': 'six constant labels',
  'ModelStatus.svelte: downloading → `${f.model}/${f.file}`': 'values of a record keyed by exactly this string',
  'ModelStatus.svelte: fetched → `${f.model}/${f.file}`': 'values of a record keyed by exactly this string',
  'SearchTab.svelte: MODE_IDS → m': 'a constant list (checked below)',
  'SearchTab.svelte: CALIBRATIONS → c': 'a constant list (checked below)',
  'SearchTab.svelte: unavailable → m': 'a filter of MODE_IDS',
  'SearchTab.svelte: res.hits → hit.id': 'search returns each item (chunk id) at most once',
  "SettingsTab.svelte: [['Embedding model', 'embedder'], ['Cross-encoder', 'crossEncoder'], ['NLI model (Benchmark)', 'nli']] as const → key": 'a constant list',
  'SettingsTab.svelte: DTYPES → d': 'a constant list of distinct names (models/types.ts)',
  'ModelStatus.svelte: models.embedders.trainedList() → m.id': 'trained-model ids are the trained-model store\'s keys (store/trained-models.ts), so they cannot repeat',
  'SettingsTab.svelte: threadChoices → n': 'built from a Set',
  'SettingsTab.svelte: totals → id': 'entries of a Map',
};

interface KeyedEach { file: string; list: string; item: string; index: string | null; key: string }

/** Every keyed each block of `source`: `{#each LIST as ITEM[, INDEX] (KEY)}`. */
function keyedEaches(file: string, source: string): KeyedEach[] {
  const out: KeyedEach[] = [];
  for (const m of source.matchAll(/\{#each\s+([\s\S]+?)\s+as\s+(\[[^\]]*\]|[\w$]+)\s*(?:,\s*([\w$]+)\s*)?\(([^)]*(?:\([^)]*\)[^)]*)*)\)\s*\}/g)) {
    out.push({ file, list: m[1]!, item: m[2]!, index: m[3] ?? null, key: m[4]!.trim() });
  }
  return out;
}

const all = FILES.flatMap((f) => keyedEaches(f.split('/').pop()!, readFileSync(f, 'utf8')));

describe('keyed each blocks', () => {
  it('finds the keyed eaches (the pattern still matches the components)', () => {
    expect(all.length).toBeGreaterThan(30);
    const total = FILES.reduce((n, f) => n + (readFileSync(f, 'utf8').match(/\{#each\s/g)?.length ?? 0), 0);
    expect(all).toHaveLength(total);
  });

  it('keys each block by its index or by an audited key that cannot repeat', () => {
    const unaudited = all.filter((e) => e.key !== e.index).map((e) => `${e.file}: ${e.list} → ${e.key}`).filter((k) => !(k in AUDITED));
    expect(unaudited).toEqual([]);
  });

  it('audits no key that is gone (the list stays true)', () => {
    const present = new Set(all.map((e) => `${e.file}: ${e.list} → ${e.key}`));
    expect(Object.keys(AUDITED).filter((k) => !present.has(k))).toEqual([]);
  });

  it('the constant lists used as keys hold no duplicates', () => {
    const lists: Record<string, readonly string[]> = {
      MODE_IDS, TRANSFORMS, CALIBRATIONS, RAGBENCH_SUBSETS, IR_METRIC_IDS, providers: Object.values(PROVIDERS).map((p) => p.id),
      spaceFlags: spaceFields(true).map((f) => f.flag), embedderOptions: MODEL_OPTIONS.embedder.map((o) => o.id),
      browserModels: BROWSER_PROVIDER.models, ...Object.fromEntries(Object.values(PROVIDERS).map((p) => [`${p.id} models`, p.models])),
    };
    for (const [name, xs] of Object.entries(lists)) expect(new Set(xs).size, name).toBe(xs.length);
  });

  it('citation buttons get one key per number even when the answer repeats one', () => {
    for (const m of findCitations('[1, 1] [1-3, 2, 3] [Source 4; 4] [2][2]')) expect(new Set(m.numbers).size).toBe(m.numbers.length);
  });
});
