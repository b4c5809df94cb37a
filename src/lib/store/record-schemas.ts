/**
 * The shapes of the records this app reads back from IndexedDB, checked with valibot like every other input: a
 * record of the wrong shape (another app version, a hand edit, a half-written record) is dropped with a reason for
 * the user, never passed on to code that would crash on it. Checksums then catch wrong contents of the right shape.
 */
import * as v from 'valibot';

const num = v.number();
const str = v.string();
const cdf = v.nullable(v.object({ sorted: v.instance(Float64Array), count: num, queries: num }));
const metric = v.picklist(['cosine', 'ip']);

/** `indexes`: a built knowledge base (`KbData`) with its key, format and checksum. */
export const IndexRecordSchema = v.object({
  key: str,
  schemaVersion: num,
  checksum: str,
  savedAt: num,
  data: v.object({
    version: v.literal(1),
    options: v.object({
      chunking: v.union([v.literal(false), v.object({ chunkSize: num, overlap: num, separators: v.array(str) })]),
      bm25: v.object({ k1: num, b: num }),
      indexTitle: v.boolean(),
      cdfQueries: num,
      seed: num,
    }),
    docCount: num,
    itemDoc: v.instance(Uint32Array),
    itemChunk: v.instance(Uint32Array),
    itemStart: v.instance(Uint32Array),
    itemEnd: v.instance(Uint32Array),
    bm25: v.object({
      version: v.literal(1),
      params: v.object({ k1: num, b: num }),
      analyzer: v.object({ stem: v.boolean(), removeStopWords: v.boolean(), stopWords: v.array(str) }),
      terms: v.array(str),
      offsets: v.instance(Uint32Array),
      docs: v.instance(Uint32Array),
      tfs: v.instance(Uint16Array),
      docLengths: v.instance(Uint32Array),
    }),
    sparseCdf: cdf,
  }),
});

/** `vectors`: item embeddings of one (index, model, dtype) with the dense CDF table. */
export const VectorRecordSchema = v.object({
  key: str,
  schemaVersion: num,
  checksum: str,
  dim: num,
  count: num,
  vectors: v.instance(Float32Array),
  cdf: v.optional(cdf),
  savedAt: num,
});

const indexHead = { version: num, dim: num, size: num, metric };

/** `vector-indexes`: a serialised vector index (exact, int8 or an HNSW graph). */
export const VectorIndexRecordSchema = v.object({
  key: str,
  schemaVersion: num,
  checksum: str,
  vectorsChecksum: str,
  savedAt: num,
  data: v.variant('kind', [
    v.object({ kind: v.literal('exact'), ...indexHead, vectors: v.instance(Float32Array) }),
    v.object({
      kind: v.literal('int8'), ...indexHead,
      centroidCodes: v.instance(Int8Array), centroidScales: v.instance(Float32Array), assign: v.instance(Uint8Array),
      alphas: v.instance(Float32Array), codes: v.instance(Int8Array), scales: v.instance(Float32Array), levels: v.instance(Float32Array),
    }),
    v.object({ kind: v.literal('hnsw'), ...indexHead, M: num, efConstruction: num, efSearch: num, graph: v.instance(Uint8Array) }),
  ]),
});

/** `transforms`: a cached query transform. */
export const TransformRecordSchema = v.object({
  key: str,
  value: v.object({ queries: v.array(str), passage: v.nullable(str) }),
  savedAt: v.optional(num),
});

/** `artifacts`: a verified artifact file (its own size and SHA-256 are checked again when read back). */
export const ArtifactFileRecordSchema = v.object({
  key: str,
  schemaVersion: num,
  size: num,
  sha256: v.pipe(str, v.regex(/^[0-9a-f]{64}$/)),
  bytes: v.instance(Uint8Array),
  savedAt: num,
});

/** `artifacts`: the commit sha a (hubUrl, repo, revision) last resolved to. */
export const ArtifactRefRecordSchema = v.object({
  key: str,
  schemaVersion: num,
  sha: v.pipe(str, v.regex(/^[0-9a-f]{40}$/)),
  savedAt: num,
});

export type RecordCheck = { ok: true } | { ok: false; reason: string };

/** The `schemaVersion` of a stored record when it has a numeric one (so an old format gets its own message). */
function storedVersion(rec: unknown): number | null {
  const x = typeof rec === 'object' && rec !== null ? (rec as { schemaVersion?: unknown }).schemaVersion : undefined;
  return typeof x === 'number' ? x : null;
}

/**
 * Whether a stored record is of format `version` and has the shape of `schema`: a record of another (numeric)
 * format gets `otherFormat(its version)` as the reason; any other misfit names the first wrong field.
 */
export function checkStored(stored: unknown, schema: v.GenericSchema, version: number, what: string, otherFormat: (found: number) => string): RecordCheck {
  const found = storedVersion(stored);
  if (found !== null && found !== version) return { ok: false, reason: otherFormat(found) };
  return checkRecord(schema, stored, what);
}

/**
 * Whether `rec` has the shape of `schema`. The reason names `what` and the first wrong field
 * ("the cached index has the wrong shape (data.itemDoc: …)"). A record passing the check is used as stored (the
 * schema only checks; it does not copy or strip fields).
 */
export function checkRecord(schema: v.GenericSchema, rec: unknown, what: string): RecordCheck {
  const r = v.safeParse(schema, rec, { abortEarly: true });
  if (r.success) return { ok: true };
  const issue = r.issues[0];
  const path = (issue.path ?? []).map((p) => String(p.key)).join('.');
  return { ok: false, reason: `${what} has the wrong shape (${path ? `${path}: ` : ''}${issue.message})` };
}
