/** Opening a #ref= link against the loopback Hub: the file at the commit, validated; the token only with the Hub given. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { serializeReport } from '../../src/lib/reports/format.ts';
import { reportPath } from '../../src/lib/reports/share-link.ts';
import { fetchReportAtRef } from '../../src/lib/reports/share-ref.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { validateReport } from '../helpers/share-reports.ts';

const TOKEN = 'hf_testtoken123';
const enc = (s: string) => new TextEncoder().encode(s);
const report = validateReport({ perSubset: 30, id: 'sharedReport01' });
const path = reportPath(report.id);

let hub: HubRepoServer;
let sha: string;
beforeEach(async () => {
  hub = await serveHubRepos({ token: TOKEN });
  sha = hub.addRepo('me/reports', new Map([[path, enc(serializeReport(report))], ['reports/report_notjson01.json', enc('{nope')], ['reports/report_renamed01.json', enc(serializeReport(report))]]));
  hub.addRepo('me/private', new Map([[path, enc(serializeReport(report))]]), { private: true });
});
afterEach(async () => { await hub.close(); });

const fast = { retryDelayMs: 1, retries: 0 };

describe('fetchReportAtRef', () => {
  test('downloads the full report at the commit from the Hub given (not the link)', async () => {
    const r = await fetchReportAtRef({ repo: 'me/reports', commit: sha, path }, { hubUrl: hub.url, token: null, ...fast });
    expect(r).toEqual({ ok: true, report, note: null });
    expect(hub.requests.map((x) => x.path)).toEqual([`/datasets/me/reports/resolve/${sha}/${path}`]);
  });

  test('a file named for another id than the report it holds: shown, with a note naming both ids', async () => {
    const r = await fetchReportAtRef({ repo: 'me/reports', commit: sha, path: 'reports/report_renamed01.json' }, { hubUrl: hub.url, token: null, ...fast });
    expect(r.ok && r.report).toEqual(report);
    expect(r.ok && r.note).toBe('The file is named for report "renamed01" but holds report "sharedReport01": it may have been renamed or copied. It is shown as the file holds it.');
  });

  test('the old bytes at a commit after main moved', async () => {
    hub.commitFiles('me/reports', new Map([[path, enc(serializeReport({ ...report, title: 'changed' }))]]));
    const r = await fetchReportAtRef({ repo: 'me/reports', commit: sha, path }, { hubUrl: hub.url, token: null, ...fast });
    expect(r.ok && r.report.title).toBe(report.title);
  });

  test('a private repo needs the token, which goes only to the Hub given', async () => {
    const ref = { repo: 'me/private', commit: hub.head('me/private'), path };
    const no = await fetchReportAtRef(ref, { hubUrl: hub.url, token: null, ...fast });
    expect(no).toEqual({ ok: false, message: expect.stringMatching(/could not be downloaded .*private or gated: add a Hugging Face token/) });
    const yes = await fetchReportAtRef(ref, { hubUrl: hub.url, token: TOKEN, ...fast });
    expect(yes.ok).toBe(true);
    expect(hub.requests.filter((x) => x.status === 200).every((x) => x.auth)).toBe(true);
  });

  test('missing file, unknown commit, not a report, unreachable Hub: each says why', async () => {
    const missing = await fetchReportAtRef({ repo: 'me/reports', commit: sha, path: 'reports/report_missing01.json' }, { hubUrl: hub.url, token: null, ...fast });
    expect(missing).toEqual({ ok: false, message: expect.stringMatching(/not on the Hub: no reports\/report_missing01\.json in me\/reports@/) });
    const notJson = await fetchReportAtRef({ repo: 'me/reports', commit: sha, path: 'reports/report_notjson01.json' }, { hubUrl: hub.url, token: null, ...fast });
    expect(notJson).toEqual({ ok: false, message: expect.stringMatching(/^The shared report reports\/report_notjson01\.json in me\/reports@.* is not JSON/) });
    const down = await fetchReportAtRef({ repo: 'me/reports', commit: sha, path }, { hubUrl: 'http://127.0.0.1:9', token: null, ...fast });
    expect(down).toEqual({ ok: false, message: expect.stringMatching(/could not be downloaded .*could not reach 127\.0\.0\.1:9/) });
  });
});
