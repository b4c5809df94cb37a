/**
 * The saved reports in IndexedDB (ReportStore, src/lib/reports/store-types.ts). Five object stores (db.ts, version
 * 6): `reports` and `deleted-reports` hold each report's list entry (ReportMeta), `report-bodies` and
 * `deleted-report-bodies` its full JSON text (serializeReport) with a SHA-256 checksum, so the list loads without
 * reading thousands of rows per report; `report-texts` the questions and answers of saved reports, which the
 * Reports list's find reads instead of parsing every report. Every write touching a report's entry and body is one transaction: a full
 * quota (or any failure) aborts it whole, with a message saying so, and nothing is half-written.
 *
 * Records are checked when read back: a list entry of the wrong shape, a body whose checksum or report schema does
 * not hold, is skipped (the list shows the others) and reported through `onProblem`, never passed on.
 */
import type { IDBPDatabase } from 'idb';
import * as v from 'valibot';
import { newReportId, parseReportText, serializeReport, type Report } from './format.ts';
import { byCreated, bySaved, headlineOutdated, reportMeta, ReportMetaSchema, type ReportTextSource } from './meta.ts';
import type { ReportMeta, ReportOrigin, ReportStore } from './store-types.ts';
import { sha256Hex } from '../checksum.ts';
import { database } from '../store/db.ts';
import { checkRecord } from '../store/record-schemas.ts';
import { writeTransaction, type WriteTx } from '../store/write-tx.ts';

/** Bump when the record layout changes. */
export const REPORT_RECORD_VERSION = 1;
export const REPORT_STORES = { meta: 'reports', body: 'report-bodies', texts: 'report-texts', deletedMeta: 'deleted-reports', deletedBody: 'deleted-report-bodies' } as const;

export const MetaRecordSchema = v.object({ key: v.string(), schemaVersion: v.literal(REPORT_RECORD_VERSION), meta: ReportMetaSchema });
export const BodyRecordSchema = v.object({ key: v.string(), schemaVersion: v.literal(REPORT_RECORD_VERSION), checksum: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)), text: v.string() });
/** `report-texts`: the questions and answers of a saved report, for the Reports list's find (no rows to parse). */
export const TextsRecordSchema = v.object({ key: v.string(), schemaVersion: v.literal(REPORT_RECORD_VERSION), texts: v.array(v.tuple([v.string(), v.string()])) });
export type MetaRecord = v.InferOutput<typeof MetaRecordSchema>;
export type BodyRecord = v.InferOutput<typeof BodyRecordSchema>;

/** A failed write in words: a full quota says what to free; the transaction was aborted, so nothing changed. */
export function reportWriteError(e: unknown, what: string): Error {
  const err = e as DOMException | undefined;
  if (err?.name === 'QuotaExceededError') {
    return new Error(`${what} failed: the browser storage quota is full. Nothing was changed; free space (empty the deleted-reports archive, delete reports for good, or clear cached indexes) and try again.`);
  }
  return new Error(`${what} failed (${err?.message || String(e)}). Nothing was changed.`);
}

const textsRecord = (report: Report) => ({ key: report.id, schemaVersion: REPORT_RECORD_VERSION, texts: report.rows.map((r) => [r.question, r.answer]) });

async function bodyRecord(report: Report): Promise<BodyRecord> {
  const text = serializeReport(report);
  return { key: report.id, schemaVersion: REPORT_RECORD_VERSION, checksum: await sha256Hex(text), text };
}

export interface IndexedDbReportStoreOptions {
  /** The connection (default: the app's database). */
  db?: () => Promise<IDBPDatabase>;
  /** Told about each damaged record skipped on read. */
  onProblem?: (message: string) => void;
}

export class IndexedDbReportStore implements ReportStore, ReportTextSource {
  private readonly db: () => Promise<IDBPDatabase>;
  onProblem: ((message: string) => void) | null;

  constructor(opts: IndexedDbReportStoreOptions = {}) {
    this.db = opts.db ?? database;
    this.onProblem = opts.onProblem ?? null;
  }

  private problem(message: string) {
    this.onProblem?.(message);
  }

  private async metas(store: string, where: string): Promise<ReportMeta[]> {
    const recs = await (await this.db()).getAll(store);
    const out: ReportMeta[] = [];
    for (const rec of recs) {
      const check = checkRecord(MetaRecordSchema, rec, `A ${where} entry`);
      const key = typeof (rec as { key?: unknown })?.key === 'string' ? (rec as { key: string }).key : '?';
      if (!check.ok) { this.problem(`${check.reason}: report ${key.slice(0, 64)} was skipped.`); continue; }
      const meta = (rec as MetaRecord).meta;
      if (meta.id !== key) { this.problem(`A ${where} entry is filed under ${key.slice(0, 64)} but names report ${meta.id}: it was skipped.`); continue; }
      out.push(meta);
    }
    return out;
  }

  private async body(store: string, id: string, where: string): Promise<Report | null> {
    const rec = await (await this.db()).get(store, id);
    if (rec === undefined) return null;
    const check = checkRecord(BodyRecordSchema, rec, `The ${where} report ${id}`);
    if (!check.ok) { this.problem(`${check.reason}: it cannot be opened.`); return null; }
    const body = rec as BodyRecord;
    if ((await sha256Hex(body.text)) !== body.checksum) { this.problem(`The ${where} report ${id} is damaged (its checksum does not match): it cannot be opened.`); return null; }
    const parsed = parseReportText(body.text, `The ${where} report ${id}`);
    if (!parsed.ok) { this.problem(`The ${where} report ${id} cannot be opened: ${parsed.message}`); return null; }
    if (parsed.report.id !== id) { this.problem(`The ${where} report ${id} holds report ${parsed.report.id}: it cannot be opened.`); return null; }
    return parsed.report;
  }

  /**
   * Entries saved before generated titles existed lack `generated`, `details` and `fingerprint`, and retrieval
   * entries saved before figures named their mode have a pooled headline (`headlineOutdated`): they are made from
   * the report's body here (in memory; the next save stores them), so old reports are listed like new ones.
   */
  private async upgraded(metas: ReportMeta[], bodyStore: string, where: 'saved' | 'deleted'): Promise<ReportMeta[]> {
    return Promise.all(metas.map(async (m) => {
      if (m.generated !== undefined && m.fingerprint !== undefined && !headlineOutdated(m)) return m;
      const body = await this.body(bodyStore, m.id, where).catch(() => null);
      if (!body) return m;
      const fresh = reportMeta(body, m.origin, m.savedAt);
      return { ...m, generated: fresh.generated!, details: fresh.details!, fingerprint: fresh.fingerprint!, headline: fresh.headline };
    }));
  }

  async list(): Promise<ReportMeta[]> {
    return (await this.upgraded(await this.metas(REPORT_STORES.meta, 'saved-report'), REPORT_STORES.body, 'saved')).sort(byCreated);
  }

  async listDeleted(): Promise<ReportMeta[]> {
    return (await this.upgraded(await this.metas(REPORT_STORES.deletedMeta, 'deleted-report'), REPORT_STORES.deletedBody, 'deleted')).sort(bySaved);
  }

  get(id: string): Promise<Report | null> {
    return this.body(REPORT_STORES.body, id, 'saved');
  }

  getDeleted(id: string): Promise<Report | null> {
    return this.body(REPORT_STORES.deletedBody, id, 'deleted');
  }

  /** The questions and answers of a saved report (the find box's input); null when not stored or damaged. */
  async findTexts(id: string): Promise<Array<[string, string]> | null> {
    const rec = await (await this.db()).get(REPORT_STORES.texts, id);
    if (rec === undefined) return null;
    const check = checkRecord(TextsRecordSchema, rec, `The find text of report ${id}`);
    if (!check.ok) { this.problem(`${check.reason}: its questions and answers are not searched.`); return null; }
    return (rec as v.InferOutput<typeof TextsRecordSchema>).texts;
  }

  async put(report: Report, origin: ReportOrigin): Promise<void> {
    const body = await bodyRecord(report);
    const meta: MetaRecord = { key: report.id, schemaVersion: REPORT_RECORD_VERSION, meta: reportMeta(report, origin) };
    await this.write([REPORT_STORES.meta, REPORT_STORES.body, REPORT_STORES.texts], `Saving report "${report.title || report.id}"`, async (tx) => {
      await Promise.all([tx.objectStore(REPORT_STORES.meta).put(meta), tx.objectStore(REPORT_STORES.body).put(body), tx.objectStore(REPORT_STORES.texts).put(textsRecord(report))]);
    });
  }

  async remove(id: string): Promise<void> {
    const all = Object.values(REPORT_STORES);
    await this.write(all, 'Deleting the report', async (tx) => {
      const [meta, body] = await Promise.all([tx.objectStore(REPORT_STORES.meta).get(id), tx.objectStore(REPORT_STORES.body).get(id)]);
      if (meta === undefined && body === undefined) return;
      const ops: Promise<unknown>[] = [tx.objectStore(REPORT_STORES.meta).delete(id), tx.objectStore(REPORT_STORES.body).delete(id), tx.objectStore(REPORT_STORES.texts).delete(id)];
      // The entry is kept as stored (a damaged one stays damaged, reported when listed), with the deletion time.
      const m = meta as MetaRecord | undefined;
      if (m !== undefined) ops.push(tx.objectStore(REPORT_STORES.deletedMeta).put(m?.meta ? { ...m, meta: { ...m.meta, savedAt: new Date().toISOString() } } : m));
      if (body !== undefined) ops.push(tx.objectStore(REPORT_STORES.deletedBody).put(body));
      await Promise.all(ops);
    });
  }

  async restore(id: string): Promise<void> {
    const d = await this.db();
    const [metaRec, taken] = await Promise.all([d.get(REPORT_STORES.deletedMeta, id), d.getKey(REPORT_STORES.meta, id)]);
    if (metaRec === undefined) return;
    const check = checkRecord(MetaRecordSchema, metaRec, `The deleted report ${id}`);
    if (!check.ok) throw new Error(`${check.reason}: it cannot be restored (delete it for good).`);
    const report = await this.getDeleted(id);
    if (!report) throw new Error(`The deleted report ${id} is damaged and cannot be restored (delete it for good).`);
    // A report saved under the same id since keeps it: the restored one gets a new id (nothing is overwritten).
    const restored = taken === undefined ? report : { ...report, id: newReportId() };
    const body = await bodyRecord(restored);
    const meta: MetaRecord = { key: restored.id, schemaVersion: REPORT_RECORD_VERSION, meta: reportMeta(restored, (metaRec as MetaRecord).meta.origin) };
    await this.write(Object.values(REPORT_STORES), 'Restoring the report', async (tx) => {
      await Promise.all([
        tx.objectStore(REPORT_STORES.meta).put(meta), tx.objectStore(REPORT_STORES.body).put(body), tx.objectStore(REPORT_STORES.texts).put(textsRecord(restored)),
        tx.objectStore(REPORT_STORES.deletedMeta).delete(id), tx.objectStore(REPORT_STORES.deletedBody).delete(id),
      ]);
    });
  }

  async purge(id?: string): Promise<void> {
    await this.write([REPORT_STORES.deletedMeta, REPORT_STORES.deletedBody], id === undefined ? 'Emptying the archive' : 'Deleting the report for good', async (tx) => {
      const stores = [tx.objectStore(REPORT_STORES.deletedMeta), tx.objectStore(REPORT_STORES.deletedBody)];
      await Promise.all(stores.map((s) => (id === undefined ? s.clear() : s.delete(id))));
    });
  }

  /** One read-write transaction over `stores`: committed whole, or aborted whole with the reason in words. */
  private async write(stores: string[], what: string, body: (tx: WriteTx) => Promise<void>): Promise<void> {
    await writeTransaction(await this.db(), stores, body, (e) => reportWriteError(e, what));
  }
}

/** For tests: a raw record as stored, and storing one as-is (to simulate a damaged record). */
export async function getRawReportRecord(store: string, id: string, db: () => Promise<IDBPDatabase> = database): Promise<unknown> {
  return (await db()).get(store, id);
}

export async function putRawReportRecord(store: string, rec: unknown, db: () => Promise<IDBPDatabase> = database): Promise<void> {
  await (await db()).put(store, rec);
}
