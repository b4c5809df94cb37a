/**
 * The report stores (memory and IndexedDB, fake-indexeddb here) behave alike: put replaces by id, remove moves into
 * the archive, restore moves back (a new id when the id was saved again meanwhile), purge deletes for good. The
 * IndexedDB store checks records read back: a damaged one is skipped with a note, the others still list.
 */
import 'fake-indexeddb/auto';
import { openDB, type IDBPDatabase } from 'idb';
import { describe, expect, it } from 'vitest';
import { MemoryReportStore } from '../../src/lib/reports/memory-store.ts';
import type { ReportStore } from '../../src/lib/reports/store-types.ts';
import type { ReportTextSource } from '../../src/lib/reports/meta.ts';
import { IndexedDbReportStore, getRawReportRecord, putRawReportRecord, REPORT_STORES, reportWriteError } from '../../src/lib/reports/report-store.ts';
import { quotaFullOn } from '../helpers/failing-db.ts';
import { testReport as makeReport, validateRow } from '../helpers/reports.ts';
import type { BuildReportInput } from '../../src/lib/reports/build.ts';
import { multiModeReport } from '../helpers/retrieval-reports.ts';

/** A 30-row validate report (both gold classes, so AUROC has an interval). */
const testReport = (over: Partial<BuildReportInput> = {}) => makeReport(Array.from({ length: 30 }, (_, i) => validateRow(i, (i % 10) / 10, i % 3 !== 0)), over);

let dbs = 0;
/** A fresh database with the app's report stores (each test its own). */
function freshDb(): () => Promise<IDBPDatabase> {
  const name = `reports-test-${dbs++}`;
  const p = openDB(name, 1, { upgrade(d) { for (const s of Object.values(REPORT_STORES)) d.createObjectStore(s, { keyPath: 'key' }); } });
  return () => p;
}

const stores: Array<[string, () => { store: ReportStore & ReportTextSource; problems: string[]; db: (() => Promise<IDBPDatabase>) | null }]> = [
  ['memory', () => ({ store: new MemoryReportStore(), problems: [], db: null })],
  ['IndexedDB', () => {
    const problems: string[] = [];
    const db = freshDb();
    return { store: new IndexedDbReportStore({ db, onProblem: (m) => problems.push(m) }), problems, db };
  }],
];

describe.each(stores)('%s report store', (_name, make) => {
  it('round trips a report and its list entry; put replaces by id', async () => {
    const { store } = make();
    const a = testReport({ id: 'report-aaaa', title: 'first', createdAt: '2026-01-01T00:00:00.000Z' });
    const b = testReport({ id: 'report-bbbb', title: 'second', createdAt: '2026-01-03T00:00:00.000Z' });
    await store.put(a, 'import');
    await store.put(b, 'run');
    expect(await store.get('report-aaaa')).toEqual(a);
    const list = await store.list();
    expect(list.map((m) => m.id)).toEqual(['report-bbbb', 'report-aaaa']);
    const meta = list[1]!;
    expect(meta).toMatchObject({ title: 'first', kind: 'ragbench-validate', n: 30, origin: 'import', draft: false, dataset: 'rungalileo/ragbench' });
    const pooled = a.summary.metrics.filter((m) => m.group === null);
    expect(meta.headline).toEqual(pooled.map((m) => ({ id: m.id, value: m.value, ci: m.ci })));
    expect(meta.headline.find((h) => h.id === 'auroc')?.ci).not.toBeNull();
    await store.put({ ...a, title: 'renamed' }, 'import');
    expect((await store.list()).map((m) => m.title)).toEqual(['second', 'renamed']);
    expect((await store.get('report-aaaa'))?.title).toBe('renamed');
    expect(await store.get('missing-id')).toBeNull();
    expect((await store.findTexts('report-aaaa'))?.[3]).toEqual([a.rows[3]!.question, a.rows[3]!.answer]);
    expect(await store.findTexts('missing-id')).toBeNull();
  });

  it('remove moves into the archive, restore brings it back, purge deletes for good', async () => {
    const { store } = make();
    const a = testReport({ id: 'report-aaaa' });
    const b = testReport({ id: 'report-bbbb' });
    await store.put(a, 'run');
    await store.put(b, 'run');
    await store.remove('report-aaaa');
    expect((await store.list()).map((m) => m.id)).toEqual(['report-bbbb']);
    expect(await store.get('report-aaaa')).toBeNull();
    expect((await store.listDeleted()).map((m) => m.id)).toEqual(['report-aaaa']);
    expect(await store.getDeleted('report-aaaa')).toEqual(a);
    expect(await store.findTexts('report-aaaa')).toBeNull();
    await store.restore('report-aaaa');
    expect(await store.findTexts('report-aaaa')).toHaveLength(30);
    expect((await store.list()).map((m) => m.id).sort()).toEqual(['report-aaaa', 'report-bbbb']);
    expect(await store.listDeleted()).toEqual([]);
    await store.remove('report-aaaa');
    await store.remove('report-bbbb');
    await store.purge('report-aaaa');
    expect((await store.listDeleted()).map((m) => m.id)).toEqual(['report-bbbb']);
    await store.put(a, 'run');
    await store.purge();
    expect(await store.listDeleted()).toEqual([]);
    expect((await store.list()).map((m) => m.id)).toEqual(['report-aaaa']);
  });

  it('restoring an id that was saved again keeps both: the restored one gets a new id', async () => {
    const { store } = make();
    const a = testReport({ id: 'report-aaaa', title: 'old' });
    await store.put(a, 'run');
    await store.remove('report-aaaa');
    await store.put({ ...a, title: 'new' }, 'import');
    await store.restore('report-aaaa');
    const list = await store.list();
    expect(list.map((m) => m.title).sort()).toEqual(['new', 'old']);
    const restored = list.find((m) => m.title === 'old')!;
    expect(restored.id).not.toBe('report-aaaa');
    expect((await store.get(restored.id))?.id).toBe(restored.id);
    expect((await store.get('report-aaaa'))?.title).toBe('new');
  });

  it('keeps copies: changing a report after put or get does not change what is stored', async () => {
    const { store } = make();
    const a = testReport({ id: 'report-aaaa', title: 'kept' });
    await store.put(a, 'run');
    a.title = 'changed';
    const got = (await store.get('report-aaaa'))!;
    got.rows[0]!.question = 'changed';
    expect((await store.get('report-aaaa'))?.title).toBe('kept');
    expect((await store.get('report-aaaa'))?.rows[0]!.question).not.toBe('changed');
  });
});

describe('IndexedDB report store: damaged records', () => {
  it('skips a list entry of the wrong shape with a note, and lists the others', async () => {
    const { store, problems, db } = stores[1]![1]();
    await store.put(testReport({ id: 'report-good' }), 'run');
    await store.put(testReport({ id: 'report-bad1' }), 'run');
    const rec = (await getRawReportRecord(REPORT_STORES.meta, 'report-bad1', db!)) as { meta: Record<string, unknown> };
    await putRawReportRecord(REPORT_STORES.meta, { ...rec, meta: { ...rec.meta, n: 'thirty' } }, db!);
    expect((await store.list()).map((m) => m.id)).toEqual(['report-good']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/saved-report entry has the wrong shape \(meta\.n: .*report-bad1 was skipped/);
  });

  it('an entry saved before generated titles (no generated / details / fingerprint) lists with them, made from its body', async () => {
    const { store, problems, db } = stores[1]![1]();
    const r = testReport({ id: 'report-old1', seed: 4 });
    await store.put(r, 'run');
    const rec = (await getRawReportRecord(REPORT_STORES.meta, 'report-old1', db!)) as { meta: Record<string, unknown> };
    const { generated: _g, details: _d, fingerprint: _f, ...old } = rec.meta;
    await putRawReportRecord(REPORT_STORES.meta, { ...rec, meta: old }, db!);
    const [m] = await store.list();
    expect(m).toMatchObject({ id: 'report-old1', generated: 'RAGBench · emanual · lexical · seed 4', details: expect.stringContaining('seed 4'), fingerprint: expect.stringContaining(r.configHash) });
    expect(problems).toEqual([]);
  });

  it('a multi-mode retrieval entry saved with a pooled headline (no mode) lists with its per-mode figures, made from its body', async () => {
    const { store, problems, db } = stores[1]![1]();
    const r = { ...multiModeReport({ sparse: [1, 0.5], dense: [0, 0.5] }), id: 'report-modes1' };
    await store.put(r, 'run');
    const rec = (await getRawReportRecord(REPORT_STORES.meta, 'report-modes1', db!)) as { meta: Record<string, unknown> };
    // As an older version saved it: the mean over both modes' rows, no mode named.
    await putRawReportRecord(REPORT_STORES.meta, { ...rec, meta: { ...rec.meta, headline: [{ id: 'ndcg@10', value: 0.5, ci: null }] } }, db!);
    const [m] = await store.list();
    expect(m!.headline.filter((h) => h.id === 'ndcg@10')).toEqual([{ id: 'ndcg@10', value: 0.75, ci: null, pipeline: 'sparse' }, { id: 'ndcg@10', value: 0.25, ci: null, pipeline: 'dense' }]);
    expect(problems).toEqual([]);
  });

  it('a body whose text was changed (checksum) or whose report is not valid cannot be opened, with a note', async () => {
    const { store, problems, db } = stores[1]![1]();
    await store.put(testReport({ id: 'report-edit' }), 'run');
    const rec = (await getRawReportRecord(REPORT_STORES.body, 'report-edit', db!)) as { text: string; checksum: string };
    await putRawReportRecord(REPORT_STORES.body, { ...rec, text: rec.text.replace('"lexical"', '"nli"') }, db!);
    expect(await store.get('report-edit')).toBeNull();
    expect(problems.at(-1)).toMatch(/report-edit is damaged \(its checksum does not match\)/);
    await putRawReportRecord(REPORT_STORES.body, { key: 'report-edit', schemaVersion: 1, checksum: 'x', text: 1 }, db!);
    expect(await store.get('report-edit')).toBeNull();
    expect(problems.at(-1)).toMatch(/wrong shape/);
    // The list entry is still there: the user sees the report and can delete it.
    expect((await store.list()).map((m) => m.id)).toEqual(['report-edit']);
  });

  it('a failed write changes nothing and says why (a full quota names what to free)', async () => {
    const db = freshDb();
    const real = await db();
    // A connection whose body store refuses the write as a full quota would, after the list entry was written.
    const failing = quotaFullOn(real, REPORT_STORES.body);
    const store = new IndexedDbReportStore({ db: async () => failing });
    await expect(store.put(testReport({ id: 'report-full' }), 'run')).rejects.toThrow(/storage quota is full\. Nothing was changed/);
    expect(await new IndexedDbReportStore({ db }).list()).toEqual([]);
    expect(reportWriteError(new Error('disk'), 'Saving').message).toBe('Saving failed (disk). Nothing was changed.');
  });
});
