/**
 * Sync of the saved reports with an HF dataset repo (one owner): opt-in (off by default), the repo `owner/name` and
 * what was last seen per Hub + repo in localStorage `rag-lab:report-sync` (src/ui/reports/report-sync.ts), the token from
 * HubTokenState and the Hub URL from Settings (`access`), never from a link or a report. It pulls on start when
 * enabled and on Refresh, and pushes every change ReportsState makes (`onChange`), queued and one at a time (pulls
 * take the same queue). A failure leaves the local reports as they are and shows its message (`error`); a change
 * that failed is found again by the next pull (local-ahead puts and deletions) and pushed then.
 */
import type { HubAccess } from '../../lib/hub/access.ts';
import { emptyMemo, locateReport, pullReports, pushChange, type SyncChange, type SyncMemo } from '../../lib/reports/hub-sync.ts';
import { defaultSyncSettings, memoKey, parseRepoName, readSyncSettings, statusLine, SYNC_STORAGE_KEY, type SyncSettings } from '../reports/report-sync.ts';
import type { ReportsState } from './reports.svelte.ts';


export class ReportSyncState {
  enabled = $state(false);
  repo = $state('');
  busy = $state(false);
  /** Local changes (saves, deletions) waiting to be pushed; a pull is not one. */
  pending = $state(0);
  lastCommit = $state<string | null>(null);
  lastSyncedAt = $state<string | null>(null);
  error = $state<string | null>(null);
  /** Notes of the last sync (skipped files, kept conflicts, reports saved under a new id). */
  notes = $state.raw<string[]>([]);
  private settings: SyncSettings = defaultSyncSettings();
  private queue: Promise<void> = Promise.resolve();
  /** Tasks (pulls and pushes) queued or running. */
  private tasks = 0;

  constructor(
    private readonly reports: ReportsState,
    private readonly access: () => HubAccess,
    private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null = globalThis.localStorage ?? null,
  ) {}

  get status(): string {
    return statusLine({ enabled: this.enabled, repo: this.repo, busy: this.busy, pending: this.pending, lastCommit: this.lastCommit, lastSyncedAt: this.lastSyncedAt, failed: this.error !== null });
  }

  /** Reads the settings, listens to ReportsState's changes and, when enabled, pulls. */
  start(): Promise<void> {
    let raw: string | null = null;
    try { raw = this.storage?.getItem(SYNC_STORAGE_KEY) ?? null; } catch { /* storage blocked: defaults */ }
    const { settings, note } = readSyncSettings(raw);
    this.settings = settings;
    this.enabled = settings.enabled;
    this.repo = settings.repo;
    this.lastCommit = this.memo().head;
    if (note) this.error = note;
    this.reports.onChange((change) => this.changed(change));
    return this.enabled && this.repo ? this.refresh() : Promise.resolve();
  }

  /** Sets the repo (validated); a new repo starts from nothing seen. False with `error` set when malformed. */
  setRepo(raw: string): boolean {
    if (raw.trim() === '') { this.repo = ''; this.save(); return true; }
    const r = parseRepoName(raw);
    if (!r.ok) { this.error = r.message; return false; }
    this.repo = r.repo;
    this.error = null;
    this.lastCommit = this.memo().head;
    this.save();
    return true;
  }

  async setEnabled(on: boolean): Promise<void> {
    this.enabled = on;
    this.error = null;
    this.save();
    if (on && this.repo) await this.refresh();
  }

  /** Pulls (and then pushes what the pull found only here). */
  refresh(): Promise<void> {
    if (!this.repo) { this.error = 'Set the dataset repo (owner/name) to sync with first.'; return Promise.resolve(); }
    return this.enqueue(async () => {
      const a = this.target();
      const out = await pullReports(a, this.reports.store, this.memoAt(a.key));
      this.setMemo(a.key, out.memo);
      this.notes = out.notes;
      if (out.added.length || out.updated.length || out.removed.length) await this.reports.reload();
      for (const c of out.localAhead) void this.push(c);
    }, false);
  }

  /** Where a synced report's file is on the Hub, at a commit (for share links); null when not synced here. */
  locate(id: string): { repo: string; commit: string; path: string } | null {
    if (!this.enabled || !this.repo) return null;
    return locateReport(this.memo(), this.repo, id);
  }

  private changed(change: SyncChange): void {
    if (this.enabled && this.repo) void this.push(change);
  }

  private push(change: SyncChange): Promise<void> {
    return this.enqueue(async () => {
      const a = this.target();
      const meta = change.id ? this.reports.list.find((m) => m.id === change.id) : undefined;
      const out = await pushChange(a, this.reports.store, this.memoAt(a.key), change, meta?.origin ?? 'run');
      this.setMemo(a.key, out.memo);
      this.notes = out.notes;
      if (out.renamed) await this.reports.reload();
    }, true);
  }

  private enqueue(task: () => Promise<void>, isChange: boolean): Promise<void> {
    this.tasks++;
    if (isChange) this.pending++;
    this.busy = true;
    const run = async () => {
      try {
        await task();
        this.error = null;
        this.lastSyncedAt = new Date().toLocaleTimeString();
      } catch (e) {
        this.error = (e as Error).message || String(e);
      } finally {
        this.tasks--;
        if (isChange) this.pending--;
        this.busy = this.tasks > 0;
      }
    };
    this.queue = this.queue.then(run);
    return this.queue;
  }

  /** The repo, the Hub URL of Settings and the token, as they are when a task starts. */
  private target() {
    const { hubUrl, token } = this.access();
    const url = hubUrl.replace(/\/+$/, '');
    return { repo: this.repo, hubUrl: url, token, key: memoKey(url, this.repo) };
  }

  private memoAt(key: string): SyncMemo {
    return Object.hasOwn(this.settings.memos, key) ? this.settings.memos[key]! : emptyMemo();
  }

  private memo(): SyncMemo {
    return this.memoAt(memoKey(this.access().hubUrl, this.repo));
  }

  private setMemo(key: string, memo: SyncMemo): void {
    this.settings.memos[key] = memo;
    if (key === memoKey(this.access().hubUrl, this.repo)) this.lastCommit = memo.head;
    this.save();
  }

  private save(): void {
    this.settings.enabled = this.enabled;
    this.settings.repo = this.repo;
    // Memos of other repos beyond the last few are dropped (what was seen is re-learnt by a pull).
    const keys = Object.keys(this.settings.memos);
    for (const k of keys.slice(0, Math.max(0, keys.length - 10))) delete this.settings.memos[k];
    try {
      this.storage?.setItem(SYNC_STORAGE_KEY, JSON.stringify(this.settings));
    } catch {
      this.error = 'The sync settings could not be saved in this browser (storage full or blocked): sync works for this tab only.';
    }
  }
}
