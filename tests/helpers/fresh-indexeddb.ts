/**
 * Unit-test setup (vitest.config.ts, run before each file): the unit files share one module graph (`isolate: false`),
 * so the `yieldingDatabase` getters of src/lib/store keep their connections from file to file. Before each file, every
 * database the previous files left is deleted (fake-indexeddb): the deletion's `versionchange` makes those connections
 * close and forget themselves (src/lib/store/open-db.ts), as they do for another tab's upgrade, and the file starts
 * on an empty IndexedDB that it opens at whatever version it asks for.
 *
 * A connection that does not close on `versionchange` (one a test opened by hand under a name of its own) leaves its
 * deletion pending, and every later open or deletion of that name would wait behind it: such a name is remembered and
 * not deleted again. hnswlib-wasm's file system (`/hnswlib-index`) is never deleted: its module and in-memory files
 * are shared by the files anyway, and src/lib/retrieval/hnswlib-fs.ts opens it again for each read.
 */
import 'fake-indexeddb/auto';

const KEEP = ((globalThis as { __ragLabKeptDbs?: Set<string> }).__ragLabKeptDbs ??= new Set(['/hnswlib-index']));
const deleted = (name: string) => new Promise<void>((done) => {
  const request = indexedDB.deleteDatabase(name);
  request.onsuccess = request.onerror = () => done();
  request.onblocked = () => { KEEP.add(name); done(); };
});
for (const { name } of await indexedDB.databases()) if (name && !KEEP.has(name)) await deleted(name);
