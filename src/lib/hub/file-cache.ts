/**
 * The cache of artifact files (knowledge bases opened from the Hub or any Hub-layout host), so a second open needs
 * no network. Keys are chosen by the sources (`../hub/download.ts`): `sha256:<hex>` for a file whose hash meta.json
 * gives (content-addressed: the same bytes under two repos are stored once), `hub:<hubUrl>|<repo>|<sha>|<path>` for
 * files at a pinned commit (meta.json, index_config.json), `url:<url>` for a plain-HTTP file without a hash, and refs
 * `ref:<hubUrl>|<repo>|<revision>` → the commit sha last resolved. Only verified bytes are put; every record read back
 * is checked (length and SHA-256 of its own bytes) and dropped if bad. A failed write (quota) never fails the read
 * that wanted it: it sets `lastNote` for the UI. The interface is the Hub sources' (its user); the IndexedDB
 * implementation is store/artifact-cache.ts.
 */

export interface ArtifactFileCache {
  getFile(key: string): Promise<Uint8Array | null>;
  /** Stores verified bytes; may throw (a quota error): callers keep the bytes and note it. */
  putFile(key: string, bytes: Uint8Array): Promise<void>;
  getRef(key: string): Promise<string | null>;
  putRef(key: string, sha: string): Promise<void>;
  /** The last thing the user should know about this cache (a write that failed, a record dropped). */
  lastNote?: string | null;
  /**
   * True when `getFile` itself returns only bytes whose SHA-256 is the one recorded at put time and, for a
   * `sha256:<hex>` key, equals that hex: a source then need not hash a hit again.
   */
  readonly checksContent?: boolean;
}

/** The hex of a content-addressed key (`sha256:<hex>`), or null. */
export const contentHashOf = (key: string): string | null => (/^sha256:[0-9a-f]{64}$/.test(key) ? key.slice(7) : null);

/** What the user reads when a verified file could not be cached (the read itself succeeded). */
export function cacheWriteNote(e: unknown, file: string): string {
  const err = e as DOMException;
  return err?.name === 'QuotaExceededError'
    ? `${file}: the browser storage is full, so this file is not cached and will be downloaded again next time (free space by deleting cached knowledge bases or site data)`
    : `${file}: could not be cached (${err?.message ?? String(e)}); it will be downloaded again next time`;
}
/** An in-memory cache (tests, the CLI without a cache folder); copies bytes in and out. */
export function memoryArtifactCache(): ArtifactFileCache & { files: Map<string, Uint8Array>; refs: Map<string, string> } {
  const files = new Map<string, Uint8Array>();
  const refs = new Map<string, string>();
  return {
    files, refs, lastNote: null,
    async getFile(key) { const b = files.get(key); return b ? b.slice() : null; },
    async putFile(key, bytes) { files.set(key, bytes.slice()); },
    async getRef(key) { return refs.get(key) ?? null; },
    async putRef(key, sha) { refs.set(key, sha); },
  };
}
