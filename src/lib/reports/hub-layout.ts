/**
 * The reports layout in an HF dataset repo (seed A's; docs/hub.md "Reports in a dataset repo"):
 * - `reports/report_<id>.json`: one report v1 per file (format.ts), named by its id;
 * - `reports/index.json`: the saved reports' entries (id, title, kind, createdAt, n, headline, path, updatedAt);
 * - `reports/deleted_reports.json`: entries of deleted reports (their files stay, so a deletion can be restored).
 * Both lists are attacker-controlled input (anyone with write access to the repo): validated here on every read, and
 * rebuilt from the files when missing or invalid. Their titles are only ever shown as text.
 */
import * as v from 'valibot';
import { REPORT_ID, REPORT_KINDS, REPORT_LIMITS, FORBIDDEN_KEYS, type Report } from './format.ts';
import { REPORTS_DIR, reportPath, reportPathId } from './report-path.ts';
import { headlineOf } from './meta.ts';

export { REPORTS_DIR, reportPath };

export const INDEX_PATH = `${REPORTS_DIR}/index.json`;
export const DELETED_PATH = `${REPORTS_DIR}/deleted_reports.json`;
export const INDEX_FORMAT = 'rag-lab-report-index';
export const DELETED_FORMAT = 'rag-lab-deleted-reports';
export const LAYOUT_VERSION = 1;
/** Entries one list may hold (a longer one is refused as corrupt or hostile, then rebuilt). */
export const MAX_ENTRIES = 100_000;

/** A report id sync handles: REPORT_ID, and not a key of Object.prototype's own (`__proto__` is 9 valid characters). */
export const syncableId = (id: string) => REPORT_ID.test(id) && !FORBIDDEN_KEYS.has(id);
/** The id of a `reports/report_<id>.json` path, or null for any other path. */
export function idOfPath(path: string): string | null {
  const id = reportPathId(path);
  return id !== null && syncableId(id) ? id : null;
}

const finite = v.pipe(v.number(), v.finite());
const isoDate = v.pipe(v.string(), v.maxLength(40), v.check((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO date'));

export const IndexEntrySchema = v.pipe(
  v.object({
    id: v.pipe(v.string(), v.check(syncableId, 'expected a report id (6–64 letters, digits, _ or -)')),
    title: v.pipe(v.string(), v.maxLength(REPORT_LIMITS.title)),
    kind: v.picklist(REPORT_KINDS),
    createdAt: isoDate,
    n: v.pipe(v.number(), v.integer(), v.minValue(0)),
    headline: v.pipe(v.array(v.object({
      id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_@.:-]{1,64}$/)),
      value: v.nullable(finite),
      ci: v.nullable(v.tuple([finite, finite])),
      /** The retrieval mode the figure describes (pipelines.ts); absent: the report's one pipeline. */
      pipeline: v.optional(v.pipe(v.string(), v.maxLength(100))),
    })), v.maxLength(50)),
    path: v.string(),
    updatedAt: isoDate,
    /** deleted_reports.json only: when it was deleted. */
    deletedAt: v.optional(isoDate),
  }),
  v.check((e) => e.path === reportPath(e.id), 'path must be reports/report_<id>.json of the same id'),
);
export type IndexEntry = v.InferOutput<typeof IndexEntrySchema>;

const ListSchema = (format: string) => v.object({
  format: v.literal(format),
  version: v.literal(LAYOUT_VERSION),
  reports: v.pipe(v.array(IndexEntrySchema), v.maxLength(MAX_ENTRIES), v.check((l) => new Set(l.map((e) => e.id)).size === l.length, 'an id is listed twice')),
});

/** True when a parsed JSON value has a `__proto__` / `constructor` / `prototype` key anywhere (walked, not trusted). */
function hasForbiddenKey(x: unknown, depth = 0): boolean {
  if (x === null || typeof x !== 'object' || depth > 8) return false;
  return Object.keys(x).some((k) => FORBIDDEN_KEYS.has(k) || hasForbiddenKey((x as Record<string, unknown>)[k], depth + 1));
}

export type ListParse = { ok: true; entries: IndexEntry[] } | { ok: false; message: string };

/** Validates `reports/index.json` or `reports/deleted_reports.json` text; the message names the file. */
export function parseEntryList(text: string, which: 'index' | 'deleted'): ListParse {
  const file = which === 'index' ? INDEX_PATH : DELETED_PATH;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, message: `${file} on the Hub is not JSON` };
  }
  if (hasForbiddenKey(raw)) return { ok: false, message: `${file} on the Hub has a forbidden key (__proto__, constructor or prototype)` };
  const r = v.safeParse(ListSchema(which === 'index' ? INDEX_FORMAT : DELETED_FORMAT), raw);
  if (!r.success) {
    const issue = r.issues[0];
    const at = issue.path?.map((p) => String(p.key)).join('.');
    return { ok: false, message: `${file} on the Hub is not valid (${at ? `${at}: ` : ''}${issue.message})` };
  }
  return { ok: true, entries: r.output.reports };
}

export function serializeEntryList(entries: readonly IndexEntry[], which: 'index' | 'deleted'): string {
  const reports = [...entries].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  return `${JSON.stringify({ format: which === 'index' ? INDEX_FORMAT : DELETED_FORMAT, version: LAYOUT_VERSION, reports }, null, 1)}\n`;
}

/** A report's index entry: its figures per pipeline (meta.ts `headlineOf`, at most 50) as the headline. */
export function entryOf(r: Report, updatedAt: string): IndexEntry {
  return {
    id: r.id, title: r.title, kind: r.kind, createdAt: r.createdAt, n: r.rows.length,
    headline: headlineOf(r, 50),
    path: reportPath(r.id), updatedAt,
  };
}
