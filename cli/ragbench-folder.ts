/** A folder of RAGBench subset files (`<subset>.jsonl`) for eval-ragbench: src/lib/data/ragbench-folder.ts over node:fs. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chooseSubsetFiles, readSubsetFiles, type SubsetFiles } from '../src/lib/data/ragbench-folder.ts';
import { RagbenchError, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { CliError } from './args.ts';
import { readText } from './fs-errors.ts';

const folder = (dir: string): SubsetFiles => ({ dir, fileOf: (s) => join(dir, `${s}.jsonl`), exists: existsSync, readText });

function cliFault<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    throw e instanceof RagbenchError ? new CliError(e.message) : e;
  }
}

/** The subsets to evaluate: those named by --subsets (each file must exist), else every <subset>.jsonl in `dir`. */
export const chooseSubsets = (dir: string, list: string | undefined, log: (m: string) => void): string[] => cliFault(() => chooseSubsetFiles(folder(dir), list, log));

/** Each subset's rows, read and checked (validate mode needs gold labels); skipped rows are logged. */
export const readSubsets = (dir: string, subsets: readonly string[], mode: string, log: (m: string) => void): Map<string, RagbenchRow[]> =>
  cliFault(() => readSubsetFiles(folder(dir), subsets, mode, log));
