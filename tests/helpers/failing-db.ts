/** IndexedDB connections that fail like a browser does, for the stores' "nothing was changed" tests. */
import type { IDBPDatabase } from 'idb';

const bound = (o: object, p: string | symbol) => {
  const x = Reflect.get(o, p) as unknown;
  return typeof x === 'function' ? x.bind(o) : x;
};

/**
 * `real` with every `put` into object store `store` rejected as a full quota would (QuotaExceededError), after the
 * transaction's other writes were made: a store that writes in one transaction must leave nothing behind.
 */
export function quotaFullOn(real: IDBPDatabase, store: string): IDBPDatabase {
  return new Proxy(real, {
    get(target, prop) {
      if (prop !== 'transaction') return bound(target, prop);
      return (...args: Parameters<IDBPDatabase['transaction']>) => {
        const tx = target.transaction(...args);
        return new Proxy(tx, {
          get(t, p) {
            if (p !== 'objectStore') return bound(t, p);
            return (name: string) => {
              const s = t.objectStore(name);
              if (name !== store) return s;
              return new Proxy(s, { get: (o, q) => (q === 'put' ? () => Promise.reject(new DOMException('quota', 'QuotaExceededError')) : bound(o, q)) });
            };
          },
        });
      };
    },
  });
}
