import { describe, expect, it } from 'vitest';
import { parseReport, type Report } from '../../src/lib/reports/format.ts';
import {
  decodeReportPayload, deflateRaw, encodeReportFragment, formatReportRef, fromBase64Url, inflateRawCapped, parseReportRef,
  readShareFragment, SHARE_LINK_LIMITS, toBase64Url,
} from '../../src/lib/reports/share-link.ts';
import { SHARE_STEPS, shareSummary, summaryAt, worstRows } from '../../src/lib/reports/share-summary.ts';
import { validateReport } from '../helpers/share-reports.ts';

/** A fragment value `v1.<payload>` carrying any JSON value (hostile payloads the encoder would never make). */
async function payloadOf(json: unknown, ver = 1): Promise<string> {
  return `v${ver}.${toBase64Url(await deflateRaw(new TextEncoder().encode(typeof json === 'string' ? json : JSON.stringify(json))))}`;
}

describe('base64url', () => {
  it('round trips every byte value and a large array without overflowing the stack', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const s = toBase64Url(all);
    expect(s).toMatch(/^[A-Za-z0-9_-]+$/);
    expect([...fromBase64Url(s)!]).toEqual([...all]);
    const big = new Uint8Array(1_000_001);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 255;
    const bs = toBase64Url(big);
    expect(bs).toBe(Buffer.from(big).toString('base64url'));
    expect(Buffer.from(fromBase64Url(bs)!).equals(Buffer.from(big))).toBe(true);
  });
  it('matches the standard alphabet with +/ replaced and no padding', () => {
    const b = new Uint8Array([0xfb, 0xff, 0xbf, 0x01]);
    expect(toBase64Url(b)).toBe(Buffer.from(b).toString('base64url'));
  });
  it('refuses text that is not base64url', () => {
    expect(fromBase64Url('ab+c')).toBeNull();
    expect(fromBase64Url('abc=')).toBeNull();
    expect(fromBase64Url('abcde')).toBeNull(); // length 1 mod 4 cannot be base64
    expect(fromBase64Url('a b')).toBeNull();
  });
});

describe('inline report links', () => {
  it('round trip: the decoded report equals the summary report', async () => {
    const r = validateReport({ subsets: ['covidqa', 'hotpotqa', 'msmarco'], perSubset: 15 });
    const s = await shareSummary(r);
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.fragment.startsWith('r=v1.')).toBe(true);
    const back = await readShareFragment(`#${s.fragment}`);
    expect(back).toEqual({ kind: 'inline', report: s.report });
    // Same summary, config, data and environment as the full report; the full row count kept.
    const full = r;
    expect(s.report.summary).toEqual(full.summary);
    expect(s.report.config).toEqual(full.config);
    expect(s.report.environment).toEqual(full.environment);
    expect(s.report.truncated).toEqual({ rows: 45 });
    expect(s.report.rows.length).toBe(20);
  });

  it('keeps the worst rows by the first metric (validate: largest adherence error first)', () => {
    const r = validateReport({ perSubset: 10 });
    const err = (row: Report['rows'][number]) => Math.abs((row.scores['adherence'] as number) - (row.gold['adherence'] ? 1 : 0));
    const ranked = worstRows(r).map(err);
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]).toBeGreaterThanOrEqual(ranked[i]!);
    const top = summaryAt(r, SHARE_STEPS[3]!).rows;
    expect(top.length).toBe(10);
    const cutoff = Math.min(...top.map(err));
    expect(r.rows.filter((x) => err(x) > cutoff).length).toBeLessThan(10);
  });

  it('rows without a value of the metric come last', () => {
    const r = validateReport({ perSubset: 5 });
    const rows = r.rows.map((x, i) => (i === 0 ? { ...x, scores: { ...x.scores, adherence: null } } : x));
    expect(worstRows({ ...r, rows }).at(-1)!.key).toBe(rows[0]!.key);
  });

  it('stays within the budget and shrinks in order: contexts first, then text, then rows', async () => {
    const r = validateReport({ subsets: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], perSubset: 20, answerWords: 80 });
    const sizes: number[] = [];
    for (const step of SHARE_STEPS) sizes.push((await encodeReportFragment(summaryAt(r, step))).length + 1);
    // each step is smaller than the one before
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]!);
    for (let i = 0; i < SHARE_STEPS.length; i++) {
      const s = await shareSummary(r, { budget: sizes[i]! });
      expect(s.ok && s.step).toBe(i);
      if (!s.ok) continue;
      expect(s.chars).toBeLessThanOrEqual(sizes[i]!);
      expect(s.fragment.length + 1).toBe(s.chars);
    }
    const s1 = await shareSummary(r, { budget: sizes[1]! });
    expect(s1.ok && s1.report.rows.every((x) => x.contexts === undefined)).toBe(true);
    expect(s1.ok && s1.report.rows.length).toBe(20);
    const s0 = await shareSummary(r, { budget: sizes[0]! });
    expect(s0.ok && s0.report.rows.every((x) => x.contexts!.length === 2 && x.contexts!.every((c) => c.length <= 300))).toBe(true);
    const d = await shareSummary(r);
    expect(d.ok).toBe(true);
    if (d.ok) expect(d.chars).toBeLessThanOrEqual(SHARE_LINK_LIMITS.budget);
  });

  it('over budget even without rows: says so and gives no link', async () => {
    const r = validateReport({ perSubset: 3 });
    const s = await shareSummary(r, { budget: 200 });
    expect(s.ok).toBe(false);
    if (s.ok) return;
    expect(s.message).toMatch(/too large for a link \(\d+ KB even without rows/);
    expect(s.chars).toBeGreaterThan(200);
    expect('fragment' in s).toBe(false);
  });

  it('cuts long texts with an ellipsis and keeps questions/answers shorter than the step allows', () => {
    const r = validateReport({ perSubset: 5, answerWords: 300 });
    const s = summaryAt(r, SHARE_STEPS[2]!);
    for (const row of s.rows) {
      expect(row.answer.length).toBeLessThanOrEqual(200);
      expect(row.answer.endsWith('…')).toBe(true);
    }
    expect(parseReport(JSON.parse(JSON.stringify(s))).ok).toBe(true);
  });

  it('a decompression bomb (50 MB of zeros) is refused at the decoded-bytes cap', async () => {
    const zeros = new Uint8Array(50 * 1024 * 1024);
    const payload = `v1.${toBase64Url(await deflateRaw(zeros))}`;
    expect(payload.length).toBeLessThan(SHARE_LINK_LIMITS.fragmentChars);
    const r = await decodeReportPayload(payload);
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/decompresses to more than 4096 KB/) });
    // the inflater itself stops at the cap
    expect(await inflateRawCapped(await deflateRaw(zeros.subarray(0, 100_000)), 50_000)).toBeNull();
    expect((await inflateRawCapped(await deflateRaw(zeros.subarray(0, 100_000)), 100_000))!.length).toBe(100_000);
  });

  it('refuses a fragment longer than the cap before decoding it', async () => {
    const r = await readShareFragment(`#r=v1.${'A'.repeat(SHARE_LINK_LIMITS.fragmentChars)}`);
    expect(r).toEqual({ kind: 'error', message: expect.stringMatching(/refused: it is \d+ KB long, more than the 2048 KB/) });
  });

  it('bad base64, a damaged stream, not JSON: clear messages', async () => {
    expect(await decodeReportPayload('v1.@@@')).toEqual({ ok: false, message: expect.stringMatching(/not base64url/) });
    expect(await decodeReportPayload('v1.')).toEqual({ ok: false, message: expect.stringMatching(/not base64url/) });
    const good = await payloadOf({ a: 1 });
    expect(await decodeReportPayload(good.slice(0, 6))).toEqual({ ok: false, message: expect.stringMatching(/does not decompress|not JSON/) });
    expect(await decodeReportPayload(`v1.${toBase64Url(new Uint8Array([0xff, 0xff, 0xff, 0xff]))}`)).toEqual({ ok: false, message: expect.stringMatching(/does not decompress/) });
    expect(await decodeReportPayload(await payloadOf('{"format": '))).toEqual({ ok: false, message: expect.stringMatching(/not JSON/) });
    expect(await decodeReportPayload('nonsense')).toEqual({ ok: false, message: expect.stringMatching(/does not start with a version/) });
  });

  it('a newer link version says a newer RAG Lab made it; an unknown older one is refused', async () => {
    const r = validateReport({ perSubset: 2 });
    const p = await payloadOf(r, 2);
    expect(await decodeReportPayload(p)).toEqual({ ok: false, message: expect.stringMatching(/made by a newer RAG Lab/) });
    expect(await decodeReportPayload(await payloadOf(r, 0))).toEqual({ ok: false, message: expect.stringMatching(/unknown format version v0/) });
    // a future report version inside a v1 link: the schema module's message
    expect(await decodeReportPayload(await payloadOf({ ...r, version: 3 }))).toEqual({ ok: false, message: expect.stringMatching(/v3, newer than this app reads/) });
  });

  it('__proto__ / constructor keys, NaN-like numbers and secrets are refused by the schema', async () => {
    const r = validateReport({ perSubset: 2 });
    const json = JSON.stringify(r);
    const proto = json.replace('"config":{', '"config":{"__proto__":{"polluted":true},');
    const out = await decodeReportPayload(await payloadOf(proto));
    expect(out).toEqual({ ok: false, message: expect.stringMatching(/forbidden key "__proto__"/) });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const ctor = json.replace('"config":{', '"config":{"constructor":{"x":1},');
    expect(await decodeReportPayload(await payloadOf(ctor))).toEqual({ ok: false, message: expect.stringMatching(/forbidden key "constructor"/) });
    const inf = json.replace(/"seed":1,/, '"seed":1e999,');
    expect((await decodeReportPayload(await payloadOf(inf))).ok).toBe(false);
    const secret = { ...r, config: { ...r.config, apiKey: 'sk-abcdefghijklmnopqrstuvwxyz' } };
    expect(await decodeReportPayload(await payloadOf(secret))).toEqual({ ok: false, message: expect.stringMatching(/looks like a key or token/) });
    expect(await decodeReportPayload(await payloadOf({ ...r, title: 'x'.repeat(201) }))).toEqual({ ok: false, message: expect.stringMatching(/title/) });
  });

  it('HTML in the title and question is accepted as text (it is schema-checked, never markup)', async () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const r = validateReport({ perSubset: 2, title: evil });
    r.rows[0]!.question = evil;
    const back = await readShareFragment(await encodeReportFragment(r));
    expect(back.kind).toBe('inline');
    if (back.kind !== 'inline') return;
    expect(back.report.title).toBe(evil);
    expect(back.report.rows[0]!.question).toBe(evil);
  });

  it('a hostile config naming other endpoints decodes as plain data (the UI never applies it)', async () => {
    const r = validateReport({ perSubset: 2, config: { hubUrl: 'https://evil.example', baseUrl: 'https://evil.example/v1' } });
    const back = await readShareFragment(await encodeReportFragment(r));
    expect(back.kind === 'inline' && back.report.config).toEqual({ hubUrl: 'https://evil.example', baseUrl: 'https://evil.example/v1' });
  });

  it('a hash that is not a share link is nothing of ours', async () => {
    expect(await readShareFragment('')).toEqual({ kind: 'none' });
    expect(await readShareFragment('#section-2')).toEqual({ kind: 'none' });
  });
});

describe('#ref= links', () => {
  const sha = 'a'.repeat(40);
  it('formats and parses a reference', async () => {
    const ref = { repo: 'me/my-reports', commit: sha, path: 'reports/report_abcDEF_12-x.json' };
    const f = formatReportRef(ref);
    expect(f).toBe(`ref=me/my-reports@${sha}/reports/report_abcDEF_12-x.json`);
    expect(await readShareFragment(`#${f}`)).toEqual({ kind: 'ref', ref });
    expect(parseReportRef(`me/r.v2@${sha}/reports/report_abcdef.json`).ok).toBe(true);
    // %-escaped as some channels do
    expect(parseReportRef(`me%2Fr@${sha}/reports/report_abcdef.json`)).toEqual({ ok: true, ref: { repo: 'me/r', commit: sha, path: 'reports/report_abcdef.json' } });
  });
  it.each([
    ['no sha', 'me/r@main/reports/report_abcdef.json', /commit must be 40/],
    ['short sha', `me/r@${sha.slice(1)}/reports/report_abcdef.json`, /commit must be 40/],
    ['upper-case sha', `me/r@${sha.toUpperCase()}/reports/report_abcdef.json`, /commit must be 40/],
    ['other path', `me/r@${sha}/index.json`, /path must be reports\/report_<id>\.json/],
    ['dot-dot', `me/r@${sha}/reports/../secrets.json`, /path must be/],
    ['dot-dot in id', `me/r@${sha}/reports/report_..abcdef.json`, /path must be/],
    ['nested path', `me/r@${sha}/reports/x/report_abcdef.json`, /path must be/],
    ['short id', `me/r@${sha}/reports/report_abc.json`, /path must be/],
    ['repo with three parts', `a/b/c@${sha}/reports/report_abcdef.json`, /expected #ref=/],
    ['repo with ..', `me/r..x@${sha}/reports/report_abcdef.json`, /repo must be/],
    ['repo starting with -', `-me/r@${sha}/reports/report_abcdef.json`, /repo must be/],
    ['repo with a space', `me/r x@${sha}/reports/report_abcdef.json`, /repo must be/],
    ['host in the repo', `https:/evil.example@${sha}/reports/report_abcdef.json`, /repo must be/],
    ['no repo', `@${sha}/reports/report_abcdef.json`, /expected #ref=/],
    ['broken escape', `me%2/r@${sha}/reports/report_abcdef.json`, /./],
  ])('refuses %s', (_name, value, re) => {
    const r = parseReportRef(value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(re);
  });
  it('refuses to format an invalid reference', () => {
    expect(() => formatReportRef({ repo: 'me/r', commit: 'main', path: 'reports/report_abcdef.json' })).toThrow(/commit/);
  });
});
