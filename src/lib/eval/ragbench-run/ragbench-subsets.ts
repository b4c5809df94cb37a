/**
 * The RAGBench subsets of the Benchmark tab, as the bench worker holds them: files picked in the tab (parsed here, a
 * later file of a subset replacing the one before, each remembered in a file store so that a reload resumes without
 * the Hub) and subsets read from the Hub (parquet in byte ranges, the dataset viewer as fallback), kept for the
 * worker's life per Hub, viewer and subset. `rowsOf` is a run's subset loader (subset-loading.ts).
 */
import { formatIssue, type RagbenchRow } from '../../data/ragbench.ts';
import { parseRagbenchFile } from '../../data/ragbench-files.ts';
import { loadRagbenchSubset } from '../../data/ragbench-hub.ts';
import type { RagbenchFileStore } from '../../store/ragbench-file-store.ts';
import type { BenchConfig, LocalFileReport, RestoredFiles } from './ragbench-tab-config.ts';
import type { LoadedSubset } from './subset-loading.ts';

/** A picked file: its name and a reader of its bytes (called once, in turn). */
export interface PickedRagbenchFile { name: string; read(): Promise<Uint8Array> }

/** A subset's load progress, as a run reports it. */
export type SubsetLoadEmit = (p: { phase: 'load'; subset: string; loaded: number; total: number }) => void;

const messageOf = (e: unknown) => (e as Error).message || String(e);

export class RagbenchSubsets {
  /** Subsets read from the Hub, by Hub, viewer and subset. */
  private readonly hub = new Map<string, { rows: RagbenchRow[]; source: 'hub' | 'viewer' }>();
  /** Subsets loaded from local files, by subset name. */
  private readonly local = new Map<string, { file: string; rows: RagbenchRow[] }>();

  constructor(private readonly files: RagbenchFileStore, private readonly loadHub: typeof loadRagbenchSubset = loadRagbenchSubset) {}

  /** Parses one local file into the local subsets; the report names the subset, or why the file was refused. */
  private async parse(name: string, bytes: Uint8Array): Promise<LocalFileReport> {
    try {
      const r = await parseRagbenchFile(name, bytes);
      this.local.set(r.subset, { file: name, rows: r.rows });
      return { file: name, subset: r.subset, rows: r.rows.length, skipped: r.skipped.length, issues: r.skipped.slice(0, 20).map(formatIssue), error: null, remembered: null };
    } catch (e) {
      return { file: name, subset: null, rows: 0, skipped: 0, issues: [], error: messageOf(e), remembered: null };
    }
  }

  /** Parses picked files, one after the other; each one accepted is remembered for the next visit (bounded). */
  async addFiles(files: Iterable<PickedRagbenchFile>): Promise<LocalFileReport[]> {
    const out: LocalFileReport[] = [];
    for (const f of files) {
      const bytes = await f.read();
      const r = await this.parse(f.name, bytes);
      if (r.subset !== null) {
        // A failed write costs only the remembering.
        r.remembered = await this.files.remember(r.subset, f.name, bytes).then((kept) => (kept ? 'yes' : 'too-large'), () => 'failed');
      }
      out.push(r);
    }
    return out;
  }

  /** Reads back the remembered files, as at a reload; one that no longer parses is forgotten, with its reason. */
  async restore(): Promise<RestoredFiles> {
    const files: LocalFileReport[] = [];
    const forgotten: RestoredFiles['forgotten'] = [];
    let problems: string[] = [];
    try {
      const listed = await this.files.list();
      problems = listed.problems;
      for (const x of listed.files) {
        if (x.bytes === null) { forgotten.push({ file: x.file, subset: x.subset, size: x.size }); continue; }
        const r = await this.parse(x.file, x.bytes);
        if (r.subset === null) { await this.files.forget(x.subset).catch(() => {}); problems.push(r.error ?? `${x.file}: could not be read again`); continue; }
        files.push({ ...r, remembered: 'restored' });
      }
    } catch (e) {
      problems.push(`The remembered RAGBench files could not be read (${messageOf(e)}): pick them again.`);
    }
    return { files, forgotten, problems };
  }

  /** One subset's rows: its local file when the run names it local, else the cache or the Hub. */
  async rowsOf(config: Pick<BenchConfig, 'localSubsets' | 'hubUrl' | 'datasetsHost'>, subset: string, signal: AbortSignal, emit: SubsetLoadEmit): Promise<LoadedSubset> {
    if (config.localSubsets.includes(subset)) {
      const file = this.local.get(subset);
      if (!file) throw new Error(`the local file for ${subset} is no longer loaded (the page was reloaded): pick it again`);
      return { rows: file.rows, source: 'local', issues: [] };
    }
    const cacheKey = `${config.hubUrl}|${config.datasetsHost}|${subset}`;
    const cached = this.hub.get(cacheKey);
    if (cached) return { ...cached, issues: [] };
    emit({ phase: 'load', subset, loaded: 0, total: 0 });
    const res = await this.loadHub(subset, {
      hubUrl: config.hubUrl, viewerUrl: config.datasetsHost, signal,
      onProgress: (l, t) => emit({ phase: 'load', subset, loaded: l, total: t }),
    });
    const all = { rows: res.rows, source: res.source === 'parquet' ? 'hub' as const : 'viewer' as const };
    this.hub.set(cacheKey, all);
    return { ...all, issues: [...res.notes, ...res.skipped.map(formatIssue)] };
  }
}
