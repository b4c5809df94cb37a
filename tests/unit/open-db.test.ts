/** IndexedDB connections yield to a newer build in another tab (fake-indexeddb stands in for the other tab). */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, test } from 'vitest';
import { database, DB_NAME, DB_VERSION } from '../../src/lib/store/db.ts';
import { BLOCKED_MESSAGE, OUTDATED_MESSAGE, yieldingDatabase } from '../../src/lib/store/open-db.ts';

/** What a newer build in another tab does: open the database at a higher version. */
function openNewer(name: string, version: number): Promise<'opened' | 'blocked'> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, version);
    req.onblocked = () => resolve('blocked');
    req.onsuccess = () => { req.result.close(); resolve('opened'); };
    req.onerror = () => reject(req.error);
  });
}

const makeStore = (d: { createObjectStore(n: string): unknown; objectStoreNames: DOMStringList }) => {
  if (!d.objectStoreNames.contains('s')) d.createObjectStore('s');
};

describe('yieldingDatabase', () => {
  test('a plain idb connection blocks a newer version (the failure this guards against)', async () => {
    const plain = await openDB('plain', 1, { upgrade: makeStore });
    expect(await openNewer('plain', 2)).toBe('blocked');
    plain.close();
  });

  test('an open connection does not block a later open at version + 1, and then asks for a reload', async () => {
    const get = yieldingDatabase('yields', 1, makeStore);
    const d = await get();
    await d.put('s', 'v', 'k');
    expect(await openNewer('yields', 2)).toBe('opened');
    // This tab is now older than the stored database: it says so instead of failing obscurely.
    await expect(get()).rejects.toThrow(OUTDATED_MESSAGE);
  });

  test('after yielding to a version change that leaves the version as is, the next use reopens', async () => {
    const get = yieldingDatabase('reopens', 1, makeStore);
    await (await get()).put('s', 'v', 'k');
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase('reopens');
      req.onblocked = () => reject(new Error('deleteDatabase was blocked'));
      req.onsuccess = () => resolve();
    });
    const again = await get();
    expect(await again.get('s', 'k')).toBeUndefined();
    await again.put('s', 'w', 'k');
    expect(await again.get('s', 'k')).toBe('w');
  });

  test('an upgrade blocked by an older tab that does not yield tells the user to close other tabs', async () => {
    const old = await openDB('held', 1, { upgrade: makeStore });
    const get = yieldingDatabase('held', 2, makeStore);
    await expect(get()).rejects.toThrow(BLOCKED_MESSAGE);
    expect(BLOCKED_MESSAGE).toContain('close other RAG Lab tabs');
    old.close();
    // Once the old tab is gone, the next use opens (and upgrades) normally.
    const d = await get();
    expect(d.version).toBe(2);
  });

  test("the app's database yields too", async () => {
    const d = await database();
    expect(d.version).toBe(DB_VERSION);
    expect(await openNewer(DB_NAME, DB_VERSION + 1)).toBe('opened');
    await expect(database()).rejects.toThrow(OUTDATED_MESSAGE);
  });
});
