/**
 * Opens an IndexedDB database so that tabs of different RAG Lab builds can coexist: a connection closes itself when
 * another tab asks for a newer version (`versionchange`, idb's `blocking`) and the next use reopens it; an upgrade
 * that an older tab blocks fails with a message telling the user to close the other tabs instead of waiting forever.
 */
import { openDB, type IDBPDatabase, type OpenDBCallbacks } from 'idb';

export const BLOCKED_MESSAGE = 'Another RAG Lab tab keeps an older version of the browser storage open: close other RAG Lab tabs, then reload this one.';
export const OUTDATED_MESSAGE = 'A newer version of RAG Lab in another tab has upgraded the browser storage: reload this tab.';

/** A getter for one database connection, opened on first use and again after it yielded to another tab. */
export function yieldingDatabase(name: string, version: number, upgrade: OpenDBCallbacks<unknown>['upgrade']): () => Promise<IDBPDatabase> {
  let current: Promise<IDBPDatabase> | null = null;
  const open = (forget: () => void) => new Promise<IDBPDatabase>((resolve, reject) => {
    let gaveUp = false;
    openDB(name, version, {
      ...(upgrade ? { upgrade } : {}),
      blocked() { gaveUp = true; reject(new Error(BLOCKED_MESSAGE)); },
      blocking(_current, _blocked, event) { forget(); (event.target as IDBDatabase).close(); },
      terminated: forget,
    }).then(
      // An upgrade that was reported blocked may still finish once the other tab closes: the next use reopens.
      (d) => { if (gaveUp) d.close(); else resolve(d); },
      (e: unknown) => reject((e as Error)?.name === 'VersionError' ? new Error(OUTDATED_MESSAGE) : e),
    );
  });
  return () => {
    if (!current) {
      const p = open(() => { if (current === p) current = null; });
      current = p;
      p.catch(() => { if (current === p) current = null; });
    }
    return current;
  };
}
