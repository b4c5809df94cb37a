/**
 * RAGBench files picked in the Benchmark tab, remembered in IndexedDB ('ragbench-files', one record per subset,
 * the last file picked for it) so that a reload resumes without the Hub: the page reads them back and parses them
 * again (the same checks as a picked file). Bounded: all remembered files together stay within
 * `REMEMBER_LIMIT_BYTES`; a file that does not fit is recorded by name only (no bytes), so after a reload the page
 * says that it must be picked again. A failed write only costs the remembering, never the run.
 */
import type { IDBPDatabase } from 'idb';
import * as v from 'valibot';
import { database } from './db.ts';
import { checkStored } from './record-schemas.ts';

export const RAGBENCH_FILES_STORE = 'ragbench-files';
/** 64 MiB: the seven RAGBench test splits as JSONL (27 MB) fit together. */
export const REMEMBER_LIMIT_BYTES = 64 * 1024 * 1024;
const VERSION = 1;

const RecordSchema = v.object({
  key: v.string(), schemaVersion: v.number(), file: v.string(), size: v.number(), savedAt: v.number(),
  bytes: v.nullable(v.instance(Uint8Array)),
});

/** A remembered file: `bytes` null when it was too large to keep (it must be picked again). */
export interface RememberedFile { subset: string; file: string; size: number; bytes: Uint8Array | null }

/** Whether a file of `size` bytes fits beside the others remembered (their sizes; the same subset's is replaced). */
export function fitsLimit(others: readonly number[], size: number, limit = REMEMBER_LIMIT_BYTES): boolean {
  return others.reduce((a, b) => a + b, 0) + size <= limit;
}

/** Where picked files are remembered (IndexedDbRagbenchFileStore in the browser, MemoryRagbenchFileStore in Node). */
export interface RagbenchFileStore {
  /** The remembered files; a damaged record is dropped and named in `problems`. */
  list(): Promise<{ files: RememberedFile[]; problems: string[] }>;
  /** Remembers `bytes` as `subset`'s file, or only its name when it does not fit; resolves with whether the bytes were kept. */
  remember(subset: string, file: string, bytes: Uint8Array): Promise<boolean>;
  forget(subset: string): Promise<void>;
}

export class IndexedDbRagbenchFileStore implements RagbenchFileStore {
  constructor(private readonly db: () => Promise<IDBPDatabase> = database, readonly limit = REMEMBER_LIMIT_BYTES) {}

  /** The remembered files; a damaged record is dropped and named in `problems`. */
  async list(): Promise<{ files: RememberedFile[]; problems: string[] }> {
    const d = await this.db();
    const files: RememberedFile[] = [];
    const problems: string[] = [];
    for (const rec of (await d.getAll(RAGBENCH_FILES_STORE)) as unknown[]) {
      const c = checkStored(rec, RecordSchema, VERSION, 'A remembered RAGBench file', (f) => `a remembered RAGBench file has format ${f}`);
      if (!c.ok) {
        problems.push(`${c.reason}: pick the file again.`);
        const key = (rec as { key?: unknown })?.key;
        if (typeof key === 'string') await d.delete(RAGBENCH_FILES_STORE, key).catch(() => {});
        continue;
      }
      const r = rec as v.InferOutput<typeof RecordSchema>;
      files.push({ subset: r.key, file: r.file, size: r.size, bytes: r.bytes });
    }
    return { files, problems };
  }

  /**
   * Remembers `bytes` as `subset`'s file, or only its name when it does not fit the limit. Resolves with whether
   * the bytes were kept.
   */
  async remember(subset: string, file: string, bytes: Uint8Array): Promise<boolean> {
    const d = await this.db();
    const others = ((await d.getAll(RAGBENCH_FILES_STORE)) as Array<{ key?: unknown; bytes?: unknown }>)
      .filter((r) => r.key !== subset && r.bytes instanceof Uint8Array).map((r) => (r.bytes as Uint8Array).byteLength);
    const keep = fitsLimit(others, bytes.byteLength, this.limit);
    await d.put(RAGBENCH_FILES_STORE, { key: subset, schemaVersion: VERSION, file, size: bytes.byteLength, savedAt: Date.now(), bytes: keep ? bytes : null });
    return keep;
  }

  async forget(subset: string): Promise<void> {
    await (await this.db()).delete(RAGBENCH_FILES_STORE, subset);
  }
}

/** The same store in memory, bounded alike, listed in key order as IndexedDB lists it. */
export class MemoryRagbenchFileStore implements RagbenchFileStore {
  private readonly files = new Map<string, RememberedFile>();
  constructor(readonly limit = REMEMBER_LIMIT_BYTES) {}

  async list(): Promise<{ files: RememberedFile[]; problems: string[] }> {
    const files = [...this.files.values()].sort((a, b) => (a.subset < b.subset ? -1 : a.subset > b.subset ? 1 : 0));
    return { files: files.map((f) => ({ ...f })), problems: [] };
  }

  async remember(subset: string, file: string, bytes: Uint8Array): Promise<boolean> {
    const others = [...this.files.values()].filter((f) => f.subset !== subset && f.bytes !== null).map((f) => f.bytes!.byteLength);
    const keep = fitsLimit(others, bytes.byteLength, this.limit);
    this.files.set(subset, { subset, file, size: bytes.byteLength, bytes: keep ? bytes : null });
    return keep;
  }

  async forget(subset: string): Promise<void> {
    this.files.delete(subset);
  }
}
