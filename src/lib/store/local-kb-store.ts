/**
 * Knowledge bases built in this browser, kept in IndexedDB (store `local-kbs`, DB version 7): each one's list entry
 * (`LocalKbMeta`) and its artifact files, written in one transaction (a full quota aborts it whole and says so);
 * reads are validated. Removing one also removes its cached vectors and vector-index graphs.
 * CONTRACT STUB (issue 12): the build-core helper implements it (IndexedDB and in-memory stores).
 */
import type { IndexEntry } from '../artifact/format.ts';
import type { LocalKbMeta } from '../build/types.ts';

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
