/// <reference lib="webworker" />
/**
 * Benchmark worker: loads RAGBench subsets from local files (parsed here) or the Hub (parquet in byte ranges, the
 * dataset viewer as fallback) and runs the Benchmark tab's session (src/lib/eval/bench-session.ts, over the same
 * sessions as the CLI's): validate mode with results cached per row in IndexedDB (a reload or crash resumes),
 * pipeline mode with the Ask tab's pipeline; each run comes back with its report v1. The retrieval
 * benchmark on BEIR datasets (runRetrieval, loadBeirFiles, fusionCandidates) is in bench-retrieval.ts.
 */
import * as Comlink from 'comlink';
import { formatIssue, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { parseRagbenchFile } from '../src/lib/data/ragbench-files.ts';
import { loadRagbenchSubset } from '../src/lib/data/ragbench-hub.ts';
import { benchEstimate, benchValidateHash, runBenchSession } from '../src/lib/eval/bench-session.ts';
import type { LoadedSubset } from '../src/lib/eval/subset-loading.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { IndexedDbRagbenchFileStore } from '../src/lib/store/ragbench-file-store.ts';
import { indexedDbResultStore } from '../src/lib/eval/result-cache.ts';
import type { BenchConfig, BenchWorkerApi, LocalFileReport } from './bench-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';
import * as retrieval from './bench-retrieval.ts';

const loaded = new Map<string, { rows: RagbenchRow[]; source: 'hub' | 'viewer' }>();
/** Subsets loaded from local files, by subset name. */
const local = new Map<string, { file: string; rows: RagbenchRow[] }>();
/** Picked files remembered across a reload (IndexedDB, bounded). */
const fileStore = new IndexedDbRagbenchFileStore();
let models: Comlink.Remote<ModelsWorkerApi> | null = null;

/** Parses one local file into the worker's `local` map; the report names the subset, or why the file was refused. */
async function parseLocal(name: string, bytes: Uint8Array): Promise<LocalFileReport> {
  try {
    const r = await parseRagbenchFile(name, bytes);
    local.set(r.subset, { file: name, rows: r.rows });
    return { file: name, subset: r.subset, rows: r.rows.length, skipped: r.skipped.length, issues: r.skipped.slice(0, 20).map(formatIssue), error: null, remembered: null };
  } catch (e) {
    return { file: name, subset: null, rows: 0, skipped: 0, issues: [], error: (e as Error).message || String(e), remembered: null };
  }
}
let controller: AbortController | null = null;

/** One subset's rows: a local file, the worker's cache, or the Hub (parquet in byte ranges, the viewer as fallback). */
async function rowsOf(config: BenchConfig, subset: string, signal: AbortSignal, emit: (p: { phase: 'load'; subset: string; loaded: number; total: number }) => void): Promise<LoadedSubset> {
  if (config.localSubsets.includes(subset)) {
    const file = local.get(subset);
    if (!file) throw new Error(`the local file for ${subset} is no longer loaded (the page was reloaded): pick it again`);
    return { rows: file.rows, source: 'local', issues: [] };
  }
  const cacheKey = `${config.hubUrl}|${config.datasetsHost}|${subset}`;
  const cached = loaded.get(cacheKey);
  if (cached) return { ...cached, issues: [] };
  emit({ phase: 'load', subset, loaded: 0, total: 0 });
  const res = await loadRagbenchSubset(subset, {
    hubUrl: config.hubUrl, viewerUrl: config.datasetsHost, signal,
    onProgress: (l, t) => emit({ phase: 'load', subset, loaded: l, total: t }),
  });
  const all = { rows: res.rows, source: res.source === 'parquet' ? 'hub' as const : 'viewer' as const };
  loaded.set(cacheKey, all);
  return { ...all, issues: [...res.notes, ...res.skipped.map(formatIssue)] };
}

const api: BenchWorkerApi = {
  async runRetrieval(config, token, onProgress) {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    try {
      return await retrieval.runRetrieval(config, token, models, ctl.signal, onProgress);
    } catch (e) {
      if (ctl.signal.aborted) throw new Error('The run was cancelled. Finished rows are kept and a new run resumes from them.');
      throw new Error(redactSecrets((e as Error).message || String(e), [token]));
    } finally {
      if (controller === ctl) controller = null;
    }
  },
  loadBeirFiles(files) {
    return retrieval.loadBeirFiles(files);
  },
  fusionCandidates(queryId) {
    return retrieval.fusionCandidates(queryId, models);
  },
  attachModels(port) {
    models = Comlink.wrap<ModelsWorkerApi>(port);
  },

  async run(config, apiKey, onProgress) {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    try {
      const env = { models, store: indexedDbResultStore, attachDense, loadSubset: (subset: string, signal: AbortSignal, emit: Parameters<typeof rowsOf>[3]) => rowsOf(config, subset, signal, emit) };
      return await runBenchSession(config, env, apiKey, ctl.signal, onProgress);
    } catch (e) {
      if (ctl.signal.aborted) throw new Error('The run was cancelled. Finished rows are kept and a new run resumes from them.');
      throw new Error(redactSecrets((e as Error).message || String(e), [apiKey]));
    } finally {
      if (controller === ctl) controller = null;
    }
  },

  estimate(config, onProgress) {
    return benchEstimate(config, (subset) => rowsOf(config, subset, new AbortController().signal, (p) => onProgress({ ...p, subsets: [] })));
  },

  async loadFiles(files) {
    const out: LocalFileReport[] = [];
    for (const f of files) {
      const bytes = new Uint8Array(await f.arrayBuffer());
      const r = await parseLocal(f.name, bytes);
      if (r.subset !== null) {
        // Remembered for the next visit (bounded); a failed write costs only that.
        r.remembered = await fileStore.remember(r.subset, f.name, bytes).then((kept) => (kept ? 'yes' : 'too-large'), () => 'failed');
      }
      out.push(r);
    }
    return out;
  },

  async restoreFiles() {
    const files: LocalFileReport[] = [];
    const forgotten: Array<{ file: string; subset: string; size: number }> = [];
    let problems: string[] = [];
    try {
      const listed = await fileStore.list();
      problems = listed.problems;
      for (const x of listed.files) {
        if (x.bytes === null) { forgotten.push({ file: x.file, subset: x.subset, size: x.size }); continue; }
        const r = await parseLocal(x.file, x.bytes);
        if (r.subset === null) { await fileStore.forget(x.subset).catch(() => {}); problems.push(r.error ?? `${x.file}: could not be read again`); continue; }
        files.push({ ...r, remembered: 'restored' });
      }
    } catch (e) {
      problems.push(`The remembered RAGBench files could not be read (${(e as Error).message || String(e)}): pick them again.`);
    }
    return { files, forgotten, problems };
  },

  cancel() {
    controller?.abort();
  },

  async clearCache(config) {
    await indexedDbResultStore.clear(await benchValidateHash(config));
  },
};

Comlink.expose(api);
