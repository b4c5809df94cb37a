/**
 * Compare's table as one request → result (the Compare tab's worker): `compareReports`' numbers, with the
 * randomization half optionally computed elsewhere at once (a second worker's `pairedTable`), and any failure as an
 * outcome in words rather than a throw.
 */
import type { Report } from './format.ts';
import { mergeTables, prepareCompare } from './compare.ts';
import type { CompareOptions, CompareResult } from './compare-types.ts';
import { pairedTable, type Column, type PairedCell, type PairedOptions } from '../stats/paired.ts';

/** Computes one paired table somewhere else (another worker), for the randomization half. */
export type PairedTableHelper = (columns: Column[][], baseline: number, opts: PairedOptions) => Promise<PairedCell[][]>;

export async function compareSession(reports: Report[], opts: CompareOptions, helper: PairedTableHelper | null = null): Promise<CompareResult> {
  try {
    const p = prepareCompare(reports, opts);
    if (!p.ok) return p;
    const { parts, baseline, settings } = p;
    if (!helper || settings.iterations === 0 || settings.permutations === 0) return p.finish(parts.map((x) => pairedTable(x.columns, baseline, settings)));
    // One table per pipeline; each request to the helper goes out before this thread starts its own halves.
    const perm = parts.map((x) => helper(x.columns, baseline, { ...settings, iterations: 0 }));
    const boot = parts.map((x) => pairedTable(x.columns, baseline, { ...settings, permutations: 0 }));
    const perms = await Promise.all(perm);
    return p.finish(boot.map((t, i) => mergeTables(t, perms[i]!)));
  } catch (e) {
    return { ok: false, message: `The comparison failed: ${(e as Error).message || String(e)}` };
  }
}
