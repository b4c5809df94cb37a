/** A folder of RAGBench subset files (`<subset>.jsonl`) for eval-ragbench: which subsets it holds, and their rows read and checked. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatIssue, parseRagbenchJsonl, RAGBENCH_SUBSETS, RagbenchError, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { CliError } from './args.ts';
import { readText } from './fs-errors.ts';

/** A row with at least one gold TRACe label to compare with. */
const hasGold = (r: RagbenchRow) =>
  r.adherence_score !== null || r.relevance_score !== null || r.utilization_score !== null || r.completeness_score !== null;

/**
 * The subsets to evaluate: those named by --subsets (each file must exist), else every <subset>.jsonl in `dir`
 * (and which were found is logged).
 */
export function chooseSubsets(dir: string, list: string | undefined, log: (m: string) => void): string[] {
  const fileOf = (s: string) => join(dir, `${s}.jsonl`);
  if (list !== undefined) {
    const subsets = list.split(',').map((s) => s.trim()).filter(Boolean);
    if (subsets.length === 0) throw new CliError('--subsets is empty');
    for (const s of subsets) if (!existsSync(fileOf(s))) throw new CliError(`${fileOf(s)}: subset file not found (subsets: ${RAGBENCH_SUBSETS.join(', ')})`);
    return subsets;
  }
  const found = RAGBENCH_SUBSETS.filter((s) => existsSync(fileOf(s)));
  if (found.length === 0) throw new CliError(`nothing to evaluate: ${dir} holds no RAGBench subset file (${RAGBENCH_SUBSETS.map((s) => `${s}.jsonl`).join(', ')})`);
  if (found.length < RAGBENCH_SUBSETS.length) log(`found ${found.length} of ${RAGBENCH_SUBSETS.length} subset files in ${dir}: ${found.join(', ')}`);
  return found;
}

/** Each subset's rows, read and checked (validate mode needs gold labels); skipped rows are logged. */
export function readSubsets(dir: string, subsets: readonly string[], mode: string, log: (m: string) => void): Map<string, RagbenchRow[]> {
  const data = new Map<string, RagbenchRow[]>();
  for (const subset of subsets) {
    const file = join(dir, `${subset}.jsonl`);
    let parsed;
    try {
      parsed = parseRagbenchJsonl(readText(file), subset);
    } catch (e) {
      if (e instanceof RagbenchError) throw new CliError(`${file}: ${e.message}`);
      throw e;
    }
    if (parsed.rows.length === 0) throw new CliError(`nothing to evaluate: ${file} has no rows`);
    if (mode === 'validate' && !parsed.rows.some(hasGold)) throw new CliError(`nothing to evaluate: no row of ${file} has a gold label (adherence, relevance, utilization or completeness score)`);
    if (parsed.skipped.length > 0) {
      log(`${subset}: skipped ${parsed.skipped.length} of ${parsed.total} rows:`);
      for (const i of parsed.skipped.slice(0, 5)) log(`  ${formatIssue(i)}`);
      if (parsed.skipped.length > 5) log(`  … and ${parsed.skipped.length - 5} more`);
    }
    data.set(subset, parsed.rows);
  }
  return data;
}
