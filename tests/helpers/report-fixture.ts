/** Small valid reports for sync tests: seeded, so two seeds give two different reports. */
import type { Report } from '../../src/lib/reports/format.ts';
import { testReport, validateRow } from './reports.ts';

/** A RAGBench-validate report of `n` rows whose predicted adherence follows a seeded LCG (tests/helpers/reports.ts). */
export function syncReport(title: string, seed = 1, n = 8, id?: string): Report {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return testReport(Array.from({ length: n }, (_, i) => validateRow(i, rnd(), i % 3 !== 0)), { title, seed, ...(id ? { id } : {}) });
}
