import { describe, expect, test } from 'vitest';
import { newReportId, parseReport, parseReportText, REPORT_ID, secretPaths, serializeReport } from '../../src/lib/reports/format.ts';
import { buildReport } from '../../src/lib/reports/build.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const rows = Array.from({ length: 24 }, (_, i) => validateRow(i, (i % 5) / 4, i % 3 !== 0, i % 2 ? 'emanual' : 'covidqa'));

describe('report format v1', () => {
  test('serialize → parse round trip gives the same report', () => {
    const r = testReport(rows, { title: 'run <b>1</b>', notes: 'n' });
    const p = parseReportText(serializeReport(r));
    expect(p.ok).toBe(true);
    if (p.ok) expect(p.report).toEqual(r);
  });

  test('serializeReport writes one row per line', () => {
    const text = serializeReport(testReport(rows));
    expect(text.split('\n').filter((l) => l.startsWith('{"key":')).length).toBe(rows.length);
  });

  test('other formats, versions and shapes are refused with a message', () => {
    const good = JSON.parse(serializeReport(testReport(rows)));
    const cases: Array<[unknown, RegExp]> = [
      [[], /expected a JSON object/],
      [{ ...good, format: 'other' }, /Not a RAG Lab report/],
      [{ ...good, version: 2 }, /v2, newer than this app reads/],
      [{ ...good, version: 0 }, /Unknown report version/],
      [{ ...good, kind: 'nope' }, /kind/],
      [{ ...good, id: '../x' }, /id/],
      [{ ...good, rows: [{ ...good.rows[0], scores: { adherence: 'NaN' } }] }, /rows\.0\.scores/],
      [{ ...good, createdAt: 'yesterday' }, /createdAt/],
      [{ ...good, title: 'x'.repeat(201) }, /title/],
    ];
    for (const [raw, msg] of cases) {
      const p = parseReport(raw);
      expect(p.ok, JSON.stringify(raw).slice(0, 80)).toBe(false);
      if (!p.ok) expect(p.message).toMatch(msg);
    }
  });

  test('non-finite numbers from JSON text (1e999) are refused', () => {
    const text = serializeReport(testReport(rows)).replace('"adherence":0,', '"adherence":1e999,');
    expect(text).toContain('1e999');
    const p = parseReportText(text);
    expect(p.ok).toBe(false);
  });

  test('__proto__ and constructor keys anywhere are refused', () => {
    const text = serializeReport(testReport(rows));
    for (const t of [
      text.replace('"config": {', '"config": {"__proto__": {"polluted": 1},'),
      text.replace('"scores":{', '"scores":{"constructor":1,'),
    ]) {
      const p = parseReportText(t);
      expect(p.ok).toBe(false);
      if (!p.ok) expect(p.message).toMatch(/forbidden key/);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  test('a report carrying a key or token is refused, and buildReport will not write one', () => {
    const good = JSON.parse(serializeReport(testReport(rows)));
    for (const config of [{ apiKey: 'abc' }, { llm: { baseUrl: 'x', note: 'hf_abcdefghijklmnopqrstuvwxyz' } }, { judge: { token: 'gsk_1' } }]) {
      const p = parseReport({ ...good, config });
      expect(p.ok).toBe(false);
      if (!p.ok) expect(p.message).toMatch(/key or token/);
    }
    expect(() => testReport(rows, { config: { llm: { apiKey: 'sk-abcdefghijklmnopqrstuvwxyz' } } })).toThrow(/secret/);
    expect(secretPaths({ llm: { apiKey: null, baseUrl: 'https://api.groq.com' } })).toEqual([]);
  });

  test('oversized text is refused, not truncated silently', () => {
    const r = testReport(rows);
    const p = parseReport({ ...JSON.parse(serializeReport(r)), notes: 'x'.repeat(20_001) });
    expect(p.ok).toBe(false);
  });

  test('a large report parses (no value-count cap below the row limit); deep nesting is refused', () => {
    const r = testReport(rows, { iterations: 0 });
    const big = { ...JSON.parse(serializeReport(r)), rows: Array.from({ length: 30_000 }, (_, i) => ({ ...r.rows[i % r.rows.length]!, key: `k${i}` })) };
    expect(parseReport(big).ok).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = { d: deep };
    const p = parseReport({ ...big, rows: [], config: { deep } });
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.message).toMatch(/nested deeper than 16 levels at config\.deep/);
  });

  test('unknown fields are dropped', () => {
    const p = parseReport({ ...JSON.parse(serializeReport(testReport(rows))), extraField: '<script>' });
    expect(p.ok && 'extraField' in p.report).toBe(false);
  });

  test('new ids are url-safe and unique', () => {
    const ids = new Set(Array.from({ length: 200 }, newReportId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(REPORT_ID);
  });

  test('buildReport refuses rows that do not fit the schema', () => {
    expect(() => buildReport({ ...baseInput(), rows: [{ ...validateRow(0, 1, true), key: '' }] })).toThrow(/not valid/);
  });
});

function baseInput() {
  return {
    kind: 'ragbench-validate' as const, evaluator: 'lexical', config: {}, configHash: 'abcdef012345',
    data: { dataset: 'd', revision: null, subsets: [], source: 'local', kb: null }, seed: 0, n: null, rows: [],
    environment: { app: '0', runtime: 'node' as const, agent: '', models: [], llm: null, judge: null },
  };
}

describe('truncated.rows (issue 22)', () => {
  test('a count below the rows the report holds is refused; at or above it the report reads', () => {
    const r = testReport([0, 1, 2, 3, 4].map((i) => validateRow(i, 0.5, i % 2 === 0)));
    expect(parseReport(JSON.parse(JSON.stringify({ ...r, truncated: { rows: 3 } })))).toEqual({
      ok: false, message: 'The report is not valid: truncated.rows: it says the full report has 3 rows, but this one holds 5.',
    });
    for (const rows of [5, 30]) expect(parseReport(JSON.parse(JSON.stringify({ ...r, truncated: { rows } }))).ok).toBe(true);
  });
});
