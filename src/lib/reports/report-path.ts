/**
 * Where a report's file lies in a Hub dataset repo (the sync layout, seed A's; docs/hub.md "Reports in a dataset
 * repo"): `reports/report_<id>.json`. Sync writes it, share links name it; both read an id back from it here.
 */

export const REPORTS_DIR = 'reports';

/** The path of the report with id `id`: `reports/report_<id>.json`. */
export const reportPath = (id: string) => `${REPORTS_DIR}/report_${id}.json`;

const REPORT_FILE = /^reports\/report_([^/]+)\.json$/;

/** The id part of a `reports/report_<id>.json` path as written (not yet checked as an id), or null for any other path. */
export function reportPathId(path: string): string | null {
  return REPORT_FILE.exec(path)?.[1] ?? null;
}
