/**
 * Objects used as maps keyed by data (report ids, subset names, metadata fields, tokens…): a null-prototype object
 * (`dict`), so a key such as `__proto__`, `constructor` or `toString` is an entry like any other, and `own`, which
 * reads an entry only when the object holds it itself — also after JSON or a worker's structured clone has turned
 * the dict back into an ordinary object, where `o['toString']` would be Object.prototype's function.
 */
export const dict = <V>(): Record<string, V> => Object.create(null) as Record<string, V>;

/** The value `o` holds under `key` itself; undefined when it holds none (inherited members are not entries). */
export const own = <V>(o: Readonly<Record<string, V>> | null | undefined, key: string): V | undefined =>
  o != null && Object.hasOwn(o, key) ? o[key] : undefined;
