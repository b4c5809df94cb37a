/**
 * A folder of RAGBench subset files (`<subset>.jsonl`), as `rag-lab eval-ragbench --data` reads it: which subsets it
 * holds, and each subset's rows read and checked. The file system is the caller's ({@link SubsetFiles}); a problem is
 * a {@link RagbenchError} naming the file.
 */
import { formatIssue, parseRagbenchJsonl, RAGBENCH_SUBSETS, RagbenchError, type RagbenchRow } from './ragbench.ts';

export interface SubsetFiles {
  dir: string;
  /** The path of a subset's file in `dir`. */
  fileOf(subset: string): string;
  exists(path: string): boolean;
  readText(path: string): string;
}

/** A row with at least one gold TRACe label to compare with. */
const hasGold = (r: RagbenchRow) =>
  r.adherence_score !== null || r.relevance_score !== null || r.utilization_score !== null || r.completeness_score !== null;

/**
 * The subsets to evaluate: those named by `list` (--subsets; each file must exist), else every <subset>.jsonl in the
 * folder (and which were found is logged).
 */
export function chooseSubsetFiles(fs: SubsetFiles, list: string | undefined, log: (m: string) => void): string[] {
  if (list !== undefined) {
    const subsets = list.split(',').map((s) => s.trim()).filter(Boolean);
    if (subsets.length === 0) throw new RagbenchError('--subsets is empty');
    for (const s of subsets) if (!fs.exists(fs.fileOf(s))) throw new RagbenchError(`${fs.fileOf(s)}: subset file not found (subsets: ${RAGBENCH_SUBSETS.join(', ')})`);
    return subsets;
  }
  const found = RAGBENCH_SUBSETS.filter((s) => fs.exists(fs.fileOf(s)));
  if (found.length === 0) throw new RagbenchError(`nothing to evaluate: ${fs.dir} holds no RAGBench subset file (${RAGBENCH_SUBSETS.map((s) => `${s}.jsonl`).join(', ')})`);
  if (found.length < RAGBENCH_SUBSETS.length) log(`found ${found.length} of ${RAGBENCH_SUBSETS.length} subset files in ${fs.dir}: ${found.join(', ')}`);
  return found;
}

/** Each subset's rows, read and checked (validate mode needs gold labels); skipped rows are logged. */
export function readSubsetFiles(fs: SubsetFiles, subsets: readonly string[], mode: string, log: (m: string) => void): Map<string, RagbenchRow[]> {
  const data = new Map<string, RagbenchRow[]>();
  for (const subset of subsets) {
    const file = fs.fileOf(subset);
    let parsed;
    try {
      parsed = parseRagbenchJsonl(fs.readText(file), subset);
    } catch (e) {
      if (e instanceof RagbenchError) throw new RagbenchError(`${file}: ${e.message}`);
      throw e;
    }
    if (parsed.rows.length === 0) throw new RagbenchError(`nothing to evaluate: ${file} has no rows`);
    if (mode === 'validate' && !parsed.rows.some(hasGold)) throw new RagbenchError(`nothing to evaluate: no row of ${file} has a gold label (adherence, relevance, utilization or completeness score)`);
    if (parsed.skipped.length > 0) {
      log(`${subset}: skipped ${parsed.skipped.length} of ${parsed.total} rows:`);
      for (const i of parsed.skipped.slice(0, 5)) log(`  ${formatIssue(i)}`);
      if (parsed.skipped.length > 5) log(`  … and ${parsed.skipped.length - 5} more`);
    }
    data.set(subset, parsed.rows);
  }
  return data;
}
