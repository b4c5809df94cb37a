/**
 * Knowledge bases built in this browser, kept in IndexedDB (DB version 7): store `local-kbs` holds each one's list
 * entry (`LocalKbMeta`, its index entry and the SHA-256 of its meta.json), store `local-kb-files` its artifact files
 * (format v1, docs/index-format.md), so the list loads without reading any file. Every write is one transaction (a
 * full quota aborts it whole and says what to free); reads are validated (valibot) and a damaged record is reported,
 * never passed on. Removing one also removes its cached vectors and vector-index graphs (stores `vectors`,
 * `vector-indexes`, keys starting `local:<name>:artifact:`); replacing one removes those of its previous version.
 * `MemoryLocalKbStore` has the same semantics (tests, Node).
 */
import { localKbId } from '../data/kb-registry.ts';
import { artifactVectorKey, artifactVectorPrefix, metaKeyOf } from '../cache-keys.ts';
import type { IDBPDatabase } from 'idb';
import * as v from 'valibot';
import { FILES, IndexEntrySchema, type IndexEntry } from '../artifact/format.ts';
import { firstIssue, LocalKbMetaSchema } from '../data/local-kb-schemas.ts';
import type { LocalKbMeta } from '../data/local-kb-meta.ts';
import { sha256Hex } from '../checksum.ts';
import { database } from './db.ts';
import { checkRecord } from './record-schemas.ts';
import { writeTransaction, type WriteTx } from './write-tx.ts';

export interface LocalKbRecord {
  meta: LocalKbMeta;
  entry: IndexEntry;
  /** Index-folder-relative artifact files. */
  files: Map<string, Uint8Array>;
}

export interface LocalKbStore {
  list(): Promise<LocalKbMeta[]>;
  get(name: string): Promise<LocalKbRecord | null>;
  /** Saves (or replaces) one knowledge base in one transaction. */
  put(record: LocalKbRecord): Promise<void>;
  /** Changes the title shown (the name, its id, stays). */
  rename(name: string, title: string): Promise<LocalKbMeta>;
  /** Deletes it with its cached vectors and vector-index graphs. */
  remove(name: string): Promise<void>;
}

export const LOCAL_KB_RECORD_VERSION = 1;
export const LOCAL_KB_STORES = { meta: 'local-kbs', files: 'local-kb-files' } as const;
/** The caches keyed by a knowledge base's id (vector-cache.ts). */
const CACHE_STORES = ['vectors', 'vector-indexes'] as const;
export const MAX_TITLE = 200;

/** The knowledge-base id of a local one (kb-registry.ts `kbIdOf`). */
/**
 * Where the search worker keeps vectors embedded for a local knowledge base: like any artifact, under its id and the
 * first 16 hex digits of its meta.json's SHA-256 (search.worker.ts `fromArtifact`), then `|model|dtype`.
 */
export const localVectorKey = (name: string, metaSha256: string) => artifactVectorKey(localKbId(name), metaKeyOf(metaSha256));
/** The start of every cache key of this knowledge base (a name holds no ':', so no other name shares it). */
export const localVectorPrefix = (name: string) => artifactVectorPrefix(localKbId(name));

export const missingMessage = (name: string) => `${name} is not in this browser any more (deleted, or built in another browser)`;

const sha = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
export const MetaRecordSchema = v.object({
  key: v.string(),
  schemaVersion: v.literal(LOCAL_KB_RECORD_VERSION),
  meta: LocalKbMetaSchema,
  entry: IndexEntrySchema,
  metaSha256: sha,
});
export const FilesRecordSchema = v.object({
  key: v.string(),
  schemaVersion: v.literal(LOCAL_KB_RECORD_VERSION),
  files: v.array(v.object({ path: v.string(), bytes: v.instance(Uint8Array) })),
});
interface MetaRecord { key: string; schemaVersion: number; meta: LocalKbMeta; entry: IndexEntry; metaSha256: string }
interface FilesRecord { key: string; schemaVersion: number; files: Array<{ path: string; bytes: Uint8Array }> }

/** A stored knowledge base that cannot be used; the message says which and what to do. */
export class LocalKbError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalKbError';
  }
}

/** A failed write in words: a full quota says what to free; the transaction was aborted, so nothing changed. */
export function localKbWriteError(e: unknown, what: string): Error {
  const err = e as DOMException | undefined;
  if (err?.name === 'QuotaExceededError') {
    return new LocalKbError(`${what} failed: the browser storage quota is full. Nothing was changed (the knowledge bases saved before are as they were); free space (delete knowledge bases you no longer need in the Build tab, delete saved reports, or clear cached models and indexes in Settings) and try again.`);
  }
  if (err instanceof LocalKbError) return err;
  return new LocalKbError(`${what} failed (${err?.message || String(e)}). Nothing was changed.`);
}

/** The title a knowledge base may be shown under: trimmed, non-empty, at most {@link MAX_TITLE} characters. */
export function checkTitle(title: string): string {
  const t = title.trim();
  if (t === '') throw new LocalKbError('A knowledge base needs a title.');
  if (t.length > MAX_TITLE) throw new LocalKbError(`A title can have at most ${MAX_TITLE} characters (this one has ${t.length}).`);
  return t;
}

/** Checks a record before it is saved: a valid list entry and a meta.json among the files. */
function checkPut(record: LocalKbRecord): void {
  const why = firstIssue(LocalKbMetaSchema, record.meta) ?? firstIssue(IndexEntrySchema, record.entry);
  if (why) throw new LocalKbError(`The knowledge base "${record.meta?.name}" cannot be saved: its description is not valid (${why}).`);
  if (!record.files.has(FILES.meta)) throw new LocalKbError(`The knowledge base "${record.meta.name}" cannot be saved: its files have no meta.json.`);
}

/** The SHA-256 of a record's meta.json (which names the size and hash of every other file). */
export async function metaSha256Of(files: Map<string, Uint8Array>): Promise<string> {
  const meta = files.get(FILES.meta);
  if (!meta) throw new LocalKbError('the knowledge base has no meta.json');
  return sha256Hex(meta);
}

/** The files of a record, each checked against meta.json's size and SHA-256 (before they leave the browser). */
export async function checkLocalKbFiles(record: LocalKbRecord): Promise<void> {
  const name = record.meta.name;
  let table: Record<string, { bytes: number; sha256: string }>;
  try {
    table = (JSON.parse(new TextDecoder().decode(record.files.get(FILES.meta))) as { files: typeof table }).files;
  } catch {
    throw new LocalKbError(`The knowledge base "${name}" is damaged (its meta.json is not readable): delete it and build it again.`);
  }
  for (const [path, want] of Object.entries(table ?? {})) {
    const bytes = record.files.get(path);
    if (!bytes || bytes.byteLength !== want.bytes || (await sha256Hex(bytes)) !== want.sha256) {
      throw new LocalKbError(`The knowledge base "${name}" is damaged (${path} ${bytes ? 'does not match its checksum' : 'is missing'}): delete it and build it again.`);
    }
  }
}

const copyFiles = (files: Map<string, Uint8Array>) => new Map([...files].map(([p, b]) => [p, b.slice()]));
const byUpdated = (a: LocalKbMeta, b: LocalKbMeta) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.name.localeCompare(b.name));

export interface IndexedDbLocalKbStoreOptions {
  /** The connection (default: the app's database). */
  db?: () => Promise<IDBPDatabase>;
  /** Told about each damaged list entry skipped. */
  onProblem?: (message: string) => void;
}

export class IndexedDbLocalKbStore implements LocalKbStore {
  private readonly db: () => Promise<IDBPDatabase>;
  onProblem: ((message: string) => void) | null;

  constructor(opts: IndexedDbLocalKbStoreOptions = {}) {
    this.db = opts.db ?? database;
    this.onProblem = opts.onProblem ?? null;
  }

  async list(): Promise<LocalKbMeta[]> {
    const recs = await (await this.db()).getAll(LOCAL_KB_STORES.meta);
    const out: LocalKbMeta[] = [];
    for (const rec of recs) {
      const key = typeof (rec as { key?: unknown })?.key === 'string' ? (rec as { key: string }).key.slice(0, 64) : '?';
      const check = checkRecord(MetaRecordSchema, rec, `The saved knowledge base ${key}`);
      if (!check.ok) { this.onProblem?.(`${check.reason}: it was left out of the list (delete it and build it again).`); continue; }
      out.push((rec as MetaRecord).meta);
    }
    return out.sort(byUpdated);
  }

  async get(name: string): Promise<LocalKbRecord | null> {
    const tx = (await this.db()).transaction([LOCAL_KB_STORES.meta, LOCAL_KB_STORES.files]);
    const [metaRec, filesRec] = await Promise.all([tx.objectStore(LOCAL_KB_STORES.meta).get(name), tx.objectStore(LOCAL_KB_STORES.files).get(name)]);
    await tx.done;
    if (metaRec === undefined) return null;
    const damaged = (why: string) => {
      const message = `The knowledge base "${name}" is damaged (${why}): delete it and build it again.`;
      this.onProblem?.(message);
      return new LocalKbError(message);
    };
    const m = checkRecord(MetaRecordSchema, metaRec, 'its list entry');
    if (!m.ok) throw damaged(m.reason);
    if (filesRec === undefined) throw damaged('its files are missing');
    const f = checkRecord(FilesRecordSchema, filesRec, 'its files record');
    if (!f.ok) throw damaged(f.reason);
    const meta = metaRec as MetaRecord;
    const files = new Map((filesRec as FilesRecord).files.map((x) => [x.path, x.bytes]));
    const metaJson = files.get(FILES.meta);
    if (!metaJson) throw damaged('meta.json is missing');
    if ((await sha256Hex(metaJson)) !== meta.metaSha256) throw damaged('meta.json does not match its checksum');
    return { meta: meta.meta, entry: meta.entry, files };
  }

  async put(record: LocalKbRecord): Promise<void> {
    checkPut(record);
    const name = record.meta.name;
    const metaSha256 = await metaSha256Of(record.files);
    const metaRec: MetaRecord = { key: name, schemaVersion: LOCAL_KB_RECORD_VERSION, meta: record.meta, entry: record.entry, metaSha256 };
    const filesRec: FilesRecord = { key: name, schemaVersion: LOCAL_KB_RECORD_VERSION, files: [...record.files].map(([path, bytes]) => ({ path, bytes })) };
    const keep = localVectorKey(name, metaSha256);
    await this.write([LOCAL_KB_STORES.meta, LOCAL_KB_STORES.files, ...CACHE_STORES], `Saving the knowledge base "${name}"`, async (tx) => {
      await Promise.all([tx.objectStore(LOCAL_KB_STORES.meta).put(metaRec), tx.objectStore(LOCAL_KB_STORES.files).put(filesRec)]);
      // Vectors embedded for the version it replaces belong to other files: they can never be used again.
      await deleteCached(tx, name, (key) => !key.startsWith(keep));
    });
  }

  async rename(name: string, title: string): Promise<LocalKbMeta> {
    const t = checkTitle(title);
    let out: LocalKbMeta | null = null;
    await this.write([LOCAL_KB_STORES.meta], `Renaming the knowledge base "${name}"`, async (tx) => {
      const store = tx.objectStore(LOCAL_KB_STORES.meta);
      const rec = await store.get(name);
      if (rec === undefined) throw new LocalKbError(`${missingMessage(name)}.`);
      const check = checkRecord(MetaRecordSchema, rec, 'its list entry');
      if (!check.ok) throw new LocalKbError(`The knowledge base "${name}" is damaged (${check.reason}): delete it and build it again.`);
      const m = rec as MetaRecord;
      out = { ...m.meta, title: t, updatedAt: new Date().toISOString() };
      await store.put({ ...m, meta: out, entry: { ...m.entry, title: t } });
    });
    return out!;
  }

  async remove(name: string): Promise<void> {
    await this.write([LOCAL_KB_STORES.meta, LOCAL_KB_STORES.files, ...CACHE_STORES], `Deleting the knowledge base "${name}"`, async (tx) => {
      await Promise.all([tx.objectStore(LOCAL_KB_STORES.meta).delete(name), tx.objectStore(LOCAL_KB_STORES.files).delete(name)]);
      await deleteCached(tx, name, () => true);
    });
  }

  /** One read-write transaction over `stores`: committed whole, or aborted whole with the reason in words. */
  private async write(stores: string[], what: string, body: (tx: WriteTx) => Promise<void>): Promise<void> {
    await writeTransaction(await this.db(), stores, body, (e) => localKbWriteError(e, what));
  }
}

/** Deletes this knowledge base's cached vectors and vector-index graphs whose key passes `which`. */
async function deleteCached(tx: WriteTx, name: string, which: (key: string) => boolean): Promise<void> {
  const prefix = localVectorPrefix(name);
  const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
  await Promise.all(CACHE_STORES.map(async (s) => {
    const store = tx.objectStore(s);
    const keys = (await store.getAllKeys(range)).filter((k): k is string => typeof k === 'string' && which(k));
    await Promise.all(keys.map((k) => store.delete(k)));
  }));
}

/** The same store in memory (tests, Node): records are copied in and out; `quotaBytes` makes a put fail as a full quota would. */
export class MemoryLocalKbStore implements LocalKbStore {
  private readonly records = new Map<string, LocalKbRecord>();

  constructor(private readonly opts: { quotaBytes?: number } = {}) {}

  async list(): Promise<LocalKbMeta[]> {
    return [...this.records.values()].map((r) => structuredClone(r.meta)).sort(byUpdated);
  }

  async get(name: string): Promise<LocalKbRecord | null> {
    const r = this.records.get(name);
    return r ? { meta: structuredClone(r.meta), entry: structuredClone(r.entry), files: copyFiles(r.files) } : null;
  }

  async put(record: LocalKbRecord): Promise<void> {
    checkPut(record);
    const name = record.meta.name;
    if (this.opts.quotaBytes !== undefined) {
      let used = 0;
      for (const [n, r] of this.records) if (n !== name) for (const b of r.files.values()) used += b.byteLength;
      for (const b of record.files.values()) used += b.byteLength;
      if (used > this.opts.quotaBytes) throw localKbWriteError(new DOMException('quota', 'QuotaExceededError'), `Saving the knowledge base "${name}"`);
    }
    this.records.set(name, { meta: structuredClone(record.meta), entry: structuredClone(record.entry), files: copyFiles(record.files) });
  }

  async rename(name: string, title: string): Promise<LocalKbMeta> {
    const t = checkTitle(title);
    const r = this.records.get(name);
    if (!r) throw new LocalKbError(`${missingMessage(name)}.`);
    r.meta = { ...r.meta, title: t, updatedAt: new Date().toISOString() };
    r.entry = { ...r.entry, title: t };
    return structuredClone(r.meta);
  }

  async remove(name: string): Promise<void> {
    this.records.delete(name);
  }
}

/** What `navigator.storage` offers for persistence (`persist` exists in windows only). */
export interface PersistableStorage {
  persisted?(): Promise<boolean>;
  persist?(): Promise<boolean>;
}

/**
 * Asks the browser to keep this site's storage under pressure (`navigator.storage.persist()`), before the first
 * knowledge base is saved; resolves whether it is (or already was) granted. False where the API is missing or fails.
 */
export async function requestPersistentStorage(
  storage: PersistableStorage | undefined = (globalThis as { navigator?: { storage?: PersistableStorage } }).navigator?.storage,
): Promise<boolean> {
  if (!storage) return false;
  try {
    if (await storage.persisted?.()) return true;
    return (await storage.persist?.()) ?? false;
  } catch {
    return false;
  }
}
