/**
 * Maps transformers.js `progress_callback` events to per-file `FileProgress` (bytes loaded/total), and remembers
 * which files are in flight so a failure can name the file it happened on.
 *
 * transformers.js 4.3 emits, per file: initiate → download → progress* → done; the pipeline() wrapper adds
 * aggregate `progress_total` events (ignored here) and a final `ready`. In Node a downloaded .onnx file reports its
 * byte progress twice (once while cached to disk, once as a completion event); totals come from Content-Length.
 */
import type { FileProgress } from './types.ts';

/** The subset of transformers.js ProgressInfo this module reads. */
export interface RawProgress {
  status: string;
  file?: string;
  loaded?: number;
  total?: number;
}

export interface ProgressTracker {
  /** Pass as transformers.js `progress_callback`. */
  callback: (info: RawProgress) => void;
  /** Files started and not yet done, oldest first. */
  inFlight(): string[];
  /** Files done, in the order they finished. */
  done(): string[];
  /** Emits the single `ready` event (file '', bytes summed over all files). */
  ready(): void;
  /** Bytes per file seen so far. */
  files(): ReadonlyMap<string, { loaded: number; total: number }>;
}

export function trackProgress(modelId: string, onProgress?: (p: FileProgress) => void): ProgressTracker {
  const files = new Map<string, { loaded: number; total: number }>();
  const open: string[] = [];
  const finished: string[] = [];
  const emit = (p: FileProgress) => {
    if (!onProgress) return;
    try {
      onProgress(p);
    } catch {
      // A throwing UI callback must not abort the download.
    }
  };
  const callback = (info: RawProgress) => {
    const { status, file } = info;
    if (file === undefined || (status !== 'initiate' && status !== 'download' && status !== 'progress' && status !== 'done')) return;
    const cur = files.get(file) ?? { loaded: 0, total: 0 };
    if (status === 'initiate') {
      if (!open.includes(file)) open.push(file);
    } else if (status === 'progress') {
      const loaded = Number(info.loaded ?? 0);
      const total = Number(info.total ?? 0);
      cur.loaded = Math.max(cur.loaded, loaded);
      cur.total = Math.max(total, cur.loaded);
    } else if (status === 'done') {
      const i = open.indexOf(file);
      if (i >= 0) open.splice(i, 1);
      finished.push(file);
      if (cur.total === 0) cur.total = cur.loaded;
      cur.loaded = cur.total;
    }
    files.set(file, cur);
    emit({ model: modelId, file, loaded: cur.loaded, total: cur.total, status });
  };
  return {
    callback,
    inFlight: () => [...open],
    done: () => [...finished],
    files: () => files,
    ready() {
      let loaded = 0;
      let total = 0;
      for (const f of files.values()) {
        loaded += f.loaded;
        total += f.total;
      }
      emit({ model: modelId, file: '', loaded, total, status: 'ready' });
    },
  };
}
