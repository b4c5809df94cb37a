/** One read-write IndexedDB transaction that commits whole or aborts whole (the stores' one write path). */
import type { IDBPDatabase, IDBPTransaction } from 'idb';

export type WriteTx = IDBPTransaction<unknown, string[], 'readwrite'>;

/**
 * Runs `body` in one read-write transaction over `stores` and waits for the commit; on any failure (a full quota, a
 * thrown check) the transaction is aborted, so nothing it wrote stays, and `failure(e)` is thrown.
 */
export async function writeTransaction(d: IDBPDatabase, stores: string[], body: (tx: WriteTx) => Promise<void>, failure: (e: unknown) => Error): Promise<void> {
  const tx = d.transaction(stores, 'readwrite');
  try {
    await body(tx);
    await tx.done;
  } catch (e) {
    try { tx.abort(); } catch { /* already finished or aborted */ }
    await tx.done.catch(() => undefined);
    throw failure(e);
  }
}
