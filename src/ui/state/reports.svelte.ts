/**
 * The saved reports (one owner): the list and the deleted archive as the store holds them, the opened report, the
 * import in progress and the Reports list's find. The Benchmark tab saves each finished run here as a draft (the 20
 * newest drafts are kept), imports and shared links save here, Hub sync pulls into the same store and pushes what
 * changes here (`onChange`).
 */
import { newReportId, parseReportText, type Report } from '../../lib/reports/format.ts';
import { reportFile, type ExportFile, type ExportKind } from '../../lib/reports/export.ts';
import { ReportFinder, type ReportMatch } from '../../lib/reports/find.ts';
import { draftsToPrune, hasFindTexts } from '../../lib/reports/meta.ts';
import type { ReportMeta, ReportOrigin, ReportStore } from '../../lib/reports/store-types.ts';
import { asReplacement, duplicateOf } from '../../lib/reports/title.ts';

export type ReportChange = { type: 'put' | 'remove' | 'restore' | 'purge'; id: string | null };

/** Drafts kept: when a run finishes and more drafts than this are saved, the oldest are deleted for good. */
export const MAX_DRAFTS = 20;

const messageOf = (e: unknown) => (e as Error)?.message || String(e);

/** An imported file whose id is already saved: waiting for the user to replace it or keep both. */
export interface PendingImport { report: Report; existing: ReportMeta; fileName: string }

/** A finished run (saved as a draft) that repeats a saved report: same config hash and rows. */
export interface PendingDuplicate { id: string; existing: ReportMeta }

export class ReportsState {
  list = $state.raw<ReportMeta[]>([]);
  deleted = $state.raw<ReportMeta[]>([]);
  /** The last failure (reading, saving, importing), in words; null when the last action worked. */
  error = $state<string | null>(null);
  /** Whether the store has been read once (tests and the empty-list text wait for it). */
  loaded = $state(false);
  /** Damaged stored records skipped on read, and other notes (pruned drafts). */
  notes = $state.raw<string[]>([]);
  /** The report shown in full, and whether it is from the archive. */
  opened = $state.raw<Report | null>(null);
  openedDeleted = $state(false);
  importError = $state<string | null>(null);
  pendingImport = $state.raw<PendingImport | null>(null);
  /** The last run's draft when it repeats a saved report: waits for "replace" or "keep both". */
  pendingDuplicate = $state.raw<PendingDuplicate | null>(null);
  /** The Reports list's find: the query and the matching reports (null: no query, every report shown). */
  findQuery = $state('');
  matches = $state.raw<ReportMatch[] | null>(null);
  /** Reports whose questions and answers are still being read for the find. */
  findPending = $state(0);
  private readonly changeListeners: ((change: ReportChange) => void)[] = [];

  private finder = new ReportFinder();
  /** savedAt of each report as indexed with its rows, so a changed report is indexed again. */
  private indexed = new Map<string, string>();
  private findRun = 0;

  constructor(readonly store: ReportStore) {}

  /** Runs `listener` after every change made here (Hub sync pushes it). */
  onChange(listener: (change: ReportChange) => void): void {
    this.changeListeners.push(listener);
  }

  /** A note shown above the list (each once). */
  note(message: string): void {
    if (!this.notes.includes(message)) this.notes = [...this.notes, message];
  }

  async reload(): Promise<void> {
    try {
      [this.list, this.deleted] = await Promise.all([this.store.list(), this.store.listDeleted()]);
    } catch (e) {
      this.error = `Saved reports could not be read: ${messageOf(e)}`;
      return;
    } finally {
      this.loaded = true;
    }
    if (this.findQuery.trim()) await this.find(this.findQuery);
  }

  get(id: string): Promise<Report | null> {
    return this.store.get(id);
  }

  /** Runs a change, reloads, and tells the `onChange` listeners; a failure becomes `error` (and is returned false). */
  private async change(what: () => Promise<void>, change: ReportChange): Promise<boolean> {
    this.error = null;
    try {
      await what();
    } catch (e) {
      this.error = messageOf(e);
      return false;
    }
    await this.reload();
    for (const listener of this.changeListeners) listener(change);
    return true;
  }

  /**
   * A finished run, saved automatically as a draft; drafts beyond the MAX_DRAFTS newest are deleted for good. A
   * failed save (quota) is shown in the tab (`error`), not thrown at the run that finished.
   */
  async saveDraft(report: Report): Promise<void> {
    const existing = duplicateOf(report, this.list);
    try {
      await this.save({ ...report, draft: true }, 'run');
    } catch {
      return;
    }
    this.pendingDuplicate = existing ? { id: report.id, existing } : null;
    const old = draftsToPrune(this.list, MAX_DRAFTS);
    if (!old.length) return;
    for (const m of old) {
      await this.change(async () => { await this.store.remove(m.id); await this.store.purge(m.id); }, { type: 'purge', id: m.id });
    }
    this.note(`${old.length} older draft${old.length === 1 ? ' was' : 's were'} deleted: only the ${MAX_DRAFTS} newest drafts are kept (Keep a draft to save it for good).`);
  }

  /**
   * The user's answer for a run that repeats a saved report: replace (the new run takes the old one's title, notes
   * and kept state; the old one moves to the deleted-reports archive) or keep both (nothing changes).
   */
  async resolveDuplicate(choice: 'replace' | 'keep-both'): Promise<void> {
    const p = this.pendingDuplicate;
    this.pendingDuplicate = null;
    if (!p || choice === 'keep-both') return;
    const report = await this.store.get(p.id).catch(() => null);
    if (!report) { this.error = 'The new run is no longer saved here (reload the list).'; return; }
    await this.save(asReplacement(report, p.existing), 'run').catch(() => undefined);
    if (this.error) return;
    await this.remove(p.existing.id);
  }

  /** Saves (inserts or replaces by id). */
  async save(report: Report, origin: ReportOrigin): Promise<void> {
    const ok = await this.change(() => this.store.put(report, origin), { type: 'put', id: report.id });
    if (ok && this.opened?.id === report.id && !this.openedDeleted) this.opened = report;
    if (!ok) throw new Error(this.error ?? 'the report could not be saved');
  }

  private async edit(id: string, patch: Partial<Pick<Report, 'title' | 'notes' | 'draft'>>): Promise<void> {
    const meta = this.list.find((m) => m.id === id);
    const report = this.opened?.id === id && !this.openedDeleted ? this.opened : await this.store.get(id).catch(() => null);
    if (!meta || !report) { this.error = 'That report is no longer saved here (reload the list).'; return; }
    await this.save({ ...report, ...patch }, meta.origin).catch(() => undefined);
  }

  rename(id: string, title: string): Promise<void> {
    return this.edit(id, { title: title.trim().slice(0, 200) });
  }

  setNotes(id: string, notes: string): Promise<void> {
    return this.edit(id, { notes: notes.slice(0, 20_000) });
  }

  /** Turns a draft into a saved report. */
  keep(id: string): Promise<void> {
    return this.edit(id, { draft: false });
  }

  async open(id: string, deleted = false): Promise<void> {
    this.error = null;
    try {
      const r = deleted ? await this.store.getDeleted(id) : await this.store.get(id);
      if (!r) { this.error = 'That report could not be opened (it is gone or damaged; see the notes above the list).'; return; }
      this.opened = r;
      this.openedDeleted = deleted;
    } catch (e) {
      this.error = `The report could not be read: ${messageOf(e)}`;
    }
  }

  close(): void {
    this.opened = null;
  }

  async remove(id: string): Promise<void> {
    if (await this.change(() => this.store.remove(id), { type: 'remove', id }) && this.opened?.id === id) this.opened = null;
  }

  async restore(id: string): Promise<void> {
    if (await this.change(() => this.store.restore(id), { type: 'restore', id }) && this.opened?.id === id && this.openedDeleted) this.opened = null;
  }

  /** Deletes one archived report for good, or empties the archive (no id). */
  async purge(id?: string): Promise<void> {
    const ok = await this.change(() => this.store.purge(id), { type: 'purge', id: id ?? null });
    if (ok && this.openedDeleted && (id === undefined || this.opened?.id === id)) this.opened = null;
  }

  /**
   * An imported file's text: a bad file sets `importError` and changes nothing; a file whose id is saved already
   * waits in `pendingImport` for `resolveImport`; otherwise it is saved.
   */
  async importText(text: string, fileName: string): Promise<void> {
    this.importError = null;
    this.pendingImport = null;
    const parsed = parseReportText(text, `"${fileName.slice(0, 200)}"`);
    if (!parsed.ok) { this.importError = `${fileName.slice(0, 200)}: ${parsed.message}`; return; }
    const existing = this.list.find((m) => m.id === parsed.report.id);
    if (existing) { this.pendingImport = { report: parsed.report, existing, fileName }; return; }
    await this.saveImport(parsed.report);
  }

  /** The user's answer for a file whose id is saved already: replace that report, keep both (new id), or cancel. */
  async resolveImport(choice: 'replace' | 'keep-both' | 'cancel'): Promise<void> {
    const p = this.pendingImport;
    this.pendingImport = null;
    if (!p || choice === 'cancel') return;
    await this.saveImport(choice === 'replace' ? p.report : { ...p.report, id: newReportId() });
  }

  private async saveImport(report: Report): Promise<void> {
    try {
      await this.save(report, 'import');
    } catch (e) {
      this.importError = messageOf(e);
    }
  }

  /** The opened report as a file to download. */
  exportOpened(kind: ExportKind): ExportFile | null {
    return this.opened ? reportFile(this.opened, kind) : null;
  }

  /**
   * The Reports list's find: titles and notes at once, questions and answers of each saved report loaded (once per
   * saved version) when a query is first typed.
   */
  async find(query: string): Promise<void> {
    this.findQuery = query;
    const run = ++this.findRun;
    if (!query.trim()) { this.matches = null; this.findPending = 0; return; }
    const ids = new Set(this.list.map((m) => m.id));
    for (const id of [...this.indexed.keys()]) if (!ids.has(id)) { this.finder.delete(id); this.indexed.delete(id); }
    const store = this.store;
    const texts = hasFindTexts(store)
      ? async (id: string) => (await store.findTexts(id))?.map(([question, answer]) => ({ question, answer })) ?? null
      : async (id: string) => (await store.get(id))?.rows ?? null;
    const todo = this.list.filter((m) => this.indexed.get(m.id) !== m.savedAt);
    // Titles and notes match at once; each report's questions and answers join as they are read.
    for (const m of todo) if (!this.finder.has(m.id)) this.finder.set(m.id, m, null);
    this.matches = this.finder.find(query).filter((x) => ids.has(x.id));
    this.findPending = todo.length;
    for (const m of todo) {
      const rows = await texts(m.id).catch(() => null);
      if (run !== this.findRun) return;
      this.finder.set(m.id, m, rows);
      this.indexed.set(m.id, m.savedAt);
      this.findPending--;
      this.matches = this.finder.find(query).filter((x) => ids.has(x.id));
    }
  }
}
