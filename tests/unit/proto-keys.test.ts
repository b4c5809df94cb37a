/**
 * Ids and keys that name Object.prototype's members (`__proto__`, `constructor`, `prototype`, `toString`,
 * `hasOwnProperty`) are data like any other: pushed through report import, Compare (the core, the config diff and
 * the tab's readers after a JSON round trip), the analysis, the sync settings, share links, the index list and the
 * facet filters. Each must come out present with its own value, and nothing may reach Object.prototype.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseIndexConfig } from '../../src/lib/artifact/format.ts';
import { facetsOf } from '../../src/lib/data/kb-source.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { analyzeRetrievalReport } from '../../src/lib/eval/analysis/analysis.ts';
import { compareReports, configDiff } from '../../src/lib/reports/compare.ts';
import type { CompareResult } from '../../src/lib/reports/compare-types.ts';
import { parseReportText, serializeReport, type Report } from '../../src/lib/reports/format.ts';
import { locateReport } from '../../src/lib/reports/hub-sync.ts';
import { encodeReportFragment, readShareFragment } from '../../src/lib/reports/share-link.ts';
import { compileFilters } from '../../src/lib/retrieval/filter.ts';
import { diffValue, questionDelta, questionRows, verdictOf } from '../../src/ui/compare/compare-view.ts';
import { readSyncSettings } from '../../src/ui/reports/report-sync.ts';
import { multiModeReport, spread } from '../helpers/retrieval-reports.ts';
import { syntheticReport } from '../helpers/synthetic-reports.ts';

const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'] as const;

const polluted = () => (({}) as Record<string, unknown>)['polluted'];
const protoKeys = () => Object.getOwnPropertyNames(Object.prototype).sort();
const cleanProto = protoKeys();
afterEach(() => {
  expect(polluted()).toBeUndefined();
  expect(protoKeys()).toEqual(cleanProto);
});

/** A report read back from its file text, as import, the CLI and Hub sync read one. */
function roundTrip(r: Report): Report {
  const p = parseReportText(serializeReport(r));
  if (!p.ok) throw new Error(p.message);
  return p.report;
}

type Ok = Extract<CompareResult, { ok: true }>;
const okOf = (r: CompareResult): Ok => { if (!r.ok) throw new Error(r.message); return r; };

describe.each(NAMES)('%s as a report id', (name) => {
  const hostile = roundTrip(syntheticReport({ id: name, rows: 24, noise: 0.1, seed: 1, title: '', config: { mode: 'validate', evaluator: 'lexical', toString: name } }));
  const other = roundTrip(syntheticReport({ id: 'report-b', rows: 24, noise: 0.3, seed: 2, title: 'other' }));

  it('imports with the id as it is', () => {
    expect(hostile.id).toBe(name);
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
  });

  it('compares as the baseline and as the other report: every per-report entry is its own, also after JSON', () => {
    for (const [reports, baselineId] of [[[hostile, other], name], [[other, hostile], 'report-b']] as const) {
      const res = okOf(compareReports(reports, { baselineId, iterations: 50, permutations: 50 }));
      expect(res.baselineId).toBe(baselineId);
      // What the worker posts or `--json` prints: the tab and the CLI read this copy.
      const copy = JSON.parse(JSON.stringify(res)) as Ok;
      for (const r of [res, copy]) {
        const q = r.questions[0]!;
        expect(Object.keys(q.byReport).sort()).toEqual([name, 'report-b'].sort());
        expect(Object.hasOwn(q.byReport, name)).toBe(true);
        expect(typeof own(q.byReport, name)?.perRow['auroc']).not.toBe('undefined');
        expect(verdictOf(q, name)).toBe(own(q.byReport, name)?.verdict ?? null);
        expect(questionDelta(q, 'relevance', 'report-b', name)).toBe(questionDelta(q, 'relevance', 'report-b', name));
        const hash = r.configDiff.find((d) => d.path === 'configHash')!;
        expect(diffValue(hash, name)).toBe(hostile.configHash);
        expect(diffValue(hash, 'report-b')).toBe(other.configHash);
        const rows = questionRows(r, { metric: 'relevance', against: r.reports.find((x) => x.id !== baselineId)!.id, order: 'desc', flippedOnly: false });
        expect(rows).toHaveLength(24);
        expect(rows.every((x) => x.sortDelta === null || Number.isFinite(x.sortDelta))).toBe(true);
      }
      // An id no report has reads as absent, never as Object.prototype's member.
      expect(verdictOf(copy.questions[0]!, 'valueOf')).toBeNull();
      expect(diffValue(copy.configDiff[0]!, 'valueOf')).toBe('—');
    }
  });

  it('the config diff keys each value by report id', () => {
    const rows = configDiff([hostile, other]);
    const seed = rows.find((d) => d.path === 'seed')!;
    expect(Object.keys(seed.values).sort()).toEqual([name, 'report-b'].sort());
    expect(diffValue(seed, name)).toBe(String(hostile.seed));
    const key = rows.find((d) => d.path === 'config.toString')!;
    expect([diffValue(key, name), diffValue(key, 'report-b'), key.differs]).toEqual([name, '—', true]);
  });

  it('a share link carries it and reads it back', async () => {
    const link = await readShareFragment(await encodeReportFragment(hostile));
    expect(link.kind).toBe('inline');
    if (link.kind === 'inline') expect(link.report.id).toBe(name);
  });
});

describe('the names as keys inside a report', () => {
  const base = syntheticReport({ id: 'report-keys', rows: 6, noise: 0.1, seed: 1 });

  it('row keys, groups and subsets are values: kept as they are', () => {
    const rows = base.rows.map((r, i) => ({ ...r, key: NAMES[i % NAMES.length]! + i, group: NAMES[i % NAMES.length]! }));
    const r = roundTrip({ ...base, rows, data: { ...base.data, subsets: [...NAMES] } });
    expect(r.rows.map((x) => x.group)).toEqual(rows.map((x) => x.group));
    expect(r.data.subsets).toEqual([...NAMES]);
  });

  it('score and config keys: toString and hasOwnProperty are fields like others; the three that reach prototypes are refused by name', () => {
    const text = (key: string) => serializeReport(base).replace('"scores":{', `"scores":{"${key}":0.5,`);
    for (const key of ['toString', 'hasOwnProperty']) {
      const p = parseReportText(text(key));
      expect(p.ok).toBe(true);
      if (p.ok) expect(Object.hasOwn(p.report.rows[0]!.scores, key) && p.report.rows[0]!.scores[key]).toBe(0.5);
    }
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const p = parseReportText(text(key));
      expect(p).toEqual({ ok: false, message: `The report was refused: a forbidden key "${key}" at rows.0.scores.` });
    }
  });
});

describe('the names as mode names in the analysis', () => {
  it('each is a mode with its own rows and mean', () => {
    const ndcg = Object.fromEntries(NAMES.map((m, j) => [m, spread(12, j + 1)]));
    const a = analyzeRetrievalReport(multiModeReport(ndcg), { iterations: 20, permutations: 20 });
    if (!a.ok) throw new Error(a.message);
    expect(a.modes).toEqual([...NAMES]);
    expect(a.queries).toBe(12);
    expect(a.h2).toHaveLength(10);
    expect(a.h2.every((r) => r.wins + r.ties + r.losses === 12)).toBe(true);
  });
});

describe('the names in the sync settings', () => {
  it('memo entries by report id are kept as their own entries; an id never seen is absent', () => {
    const memo = { head: null, files: { toString: { oid: 'a'.repeat(40), sha256: 'b'.repeat(64), local: 'c'.repeat(64), commit: 'd'.repeat(40) } } };
    const raw = `{"enabled":true,"repo":"acme/reports","memos":{"https://hf.co|acme/reports":${JSON.stringify(memo)}}}`;
    const { settings, note } = readSyncSettings(raw);
    expect(note).toBeNull();
    const m = settings.memos['https://hf.co|acme/reports']!;
    expect(locateReport(m, 'acme/reports', 'toString')).toEqual({ repo: 'acme/reports', commit: 'd'.repeat(40), path: 'reports/report_toString.json' });
    for (const id of ['hasOwnProperty', 'constructor', 'valueOf']) expect(locateReport(m, 'acme/reports', id)).toBeNull();
    expect(Object.hasOwn(settings.memos, 'toString')).toBe(false);
  });
});

describe('the names as index ids and metadata fields', () => {
  it('index_config.json lists them as ids', () => {
    const entry = { title: 't', description: '', path: '', counts: { documents: 1, chunks: 1 }, embedder: null, created: '2026-01-01T00:00:00Z', format_version: 1 };
    const cfg = parseIndexConfig({ format_version: 1, indexes: NAMES.map((id, i) => ({ ...entry, id, path: `p${i}` })) });
    expect(cfg.indexes.map((e) => e.id)).toEqual([...NAMES]);
  });

  it('facets and filters read a field only where the document has it', () => {
    const doc = (i: number, meta: Array<[string, string | number]>): SourceDocument => ({ id: `d${i}`, title: '', text: 'x', meta: Object.fromEntries(meta) });
    const docs = [doc(0, [['toString', 'a'], ['constructor', 1990]]), doc(1, [['toString', 'b'], ['constructor', 2000]]), doc(2, [['__proto__', 'c']]), doc(3, [])];
    const fields = NAMES.map((name) => ({ name, label: name, type: name === 'constructor' ? 'number' as const : 'string' as const }));
    expect(facetsOf(fields, docs)).toEqual([
      { field: 'constructor', label: 'constructor', type: 'range', min: 1990, max: 2000 },
      { field: 'toString', label: 'toString', type: 'values', values: ['a', 'b'] },
    ]);
    expect([...compileFilters(docs, [{ field: 'toString', values: ['a'] }])!]).toEqual([1, 0, 0, 0]);
    expect([...compileFilters(docs, [{ field: 'constructor', min: 1995 }])!]).toEqual([0, 1, 0, 0]);
    expect([...compileFilters(docs, [{ field: '__proto__', values: ['c'] }])!]).toEqual([0, 0, 1, 0]);
    expect([...compileFilters(docs, [{ field: 'hasOwnProperty', min: 0 }])!]).toEqual([0, 0, 0, 0]);
  });
});

function own<V>(o: Readonly<Record<string, V>>, k: string): V | undefined {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}
