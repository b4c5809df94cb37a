/**
 * valibot schemas of a local knowledge base's record (`LocalKbMeta`, src/lib/data/local-kb-meta.ts) where it crosses
 * a boundary: read back from IndexedDB (checked by the local store), and its build settings as the page sends them to
 * the build worker (checked before any work, `src/lib/kb-build/schemas.ts`).
 */
import * as v from 'valibot';
import { LOCAL_KB_NAME } from './local-kb-meta.ts';
import { BUILD_STAGES } from './source-documents.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const finite = v.pipe(v.number(), v.finite());

/** Chunk sizes the tab accepts (characters); the CLI's `--chunk` takes the same range. */
export const MAX_CHUNK_SIZE = 100_000;

export const ChunkingSchema = v.union([
  v.literal(false),
  v.pipe(
    v.object({
      chunkSize: v.pipe(v.number(), v.integer(), v.minValue(1, 'the chunk size must be at least 1 character'), v.maxValue(MAX_CHUNK_SIZE, `the chunk size must be at most ${MAX_CHUNK_SIZE} characters`)),
      overlap: v.pipe(v.number(), v.integer(), v.minValue(0, 'the overlap cannot be negative')),
      separators: v.array(v.string()),
    }),
    v.check((c) => c.overlap < c.chunkSize, 'the overlap must be smaller than the chunk size'),
  ),
]);

export const BuildSettingsSchema = v.object({
  chunking: ChunkingSchema,
  bm25: v.object({
    k1: v.pipe(v.number(), v.minValue(0, 'BM25 k1 cannot be negative'), v.maxValue(10, 'BM25 k1 above 10 makes no sense (0.9–2 is usual)')),
    b: v.pipe(v.number(), v.minValue(0, 'BM25 b must be between 0 and 1'), v.maxValue(1, 'BM25 b must be between 0 and 1')),
  }),
  embed: v.boolean(),
});

export const LocalKbNameSchema = v.pipe(
  v.string(),
  v.regex(LOCAL_KB_NAME, 'a name is lower-case letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit'),
);

const OriginSchema = v.variant('kind', [
  v.object({ kind: v.literal('files'), files: count, bytes: count }),
  v.object({ kind: v.literal('hub-dataset'), dataset: v.string(), config: v.string(), split: v.string(), revision: v.nullable(v.string()), rows: count }),
  v.object({ kind: v.literal('arxiv'), query: v.string(), max: count }),
  v.object({ kind: v.literal('web'), urls: count, query: v.nullable(v.string()) }),
]);

const SummarySchema = v.object({
  name: v.string(),
  title: v.string(),
  documents: count,
  pages: count,
  files: v.optional(count),
  chunks: count,
  skipped: v.array(v.object({ path: v.string(), reason: v.string() })),
  skippedCount: count,
  notes: v.array(v.string()),
  embedder: v.nullable(v.object({ id: v.string(), dtype: v.string(), dim: count })),
  stageMs: v.record(v.picklist(BUILD_STAGES), finite),
  totalMs: finite,
  bytes: count,
  origin: OriginSchema,
  queries: count,
});

export const LocalKbMetaSchema = v.object({
  name: LocalKbNameSchema,
  title: v.string(),
  description: v.string(),
  createdAt: v.string(),
  updatedAt: v.string(),
  settings: BuildSettingsSchema,
  summary: SummarySchema,
});

/** The first problem of a value against a schema, as "field: message" (or the message alone at the top). */
export function firstIssue(schema: v.GenericSchema, value: unknown): string | null {
  const r = v.safeParse(schema, value, { abortEarly: true });
  if (r.success) return null;
  const issue = r.issues[0];
  const path = (issue.path ?? []).map((p) => String(p.key)).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
