/**
 * A report written by `--report-out` names its run in the file itself: `title` holds the title the Reports list
 * shows (title.ts `generatedTitle`), not "" (issue 32). Both commands that write one: eval-beir and eval-ragbench.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseReportText } from '../../src/lib/reports/format.ts';
import { generatedTitle } from '../../src/lib/reports/title.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';
import { ROOT, runCli as cli } from '../helpers/cli.ts';

const RAGBENCH = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const tmp = mkdtempSync(join(tmpdir(), 'rag-lab-report-title-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const reportOf = (file: string) => {
  const p = parseReportText(readFileSync(file, 'utf8'));
  if (!p.ok) throw new Error(p.message);
  return p.report;
};

describe('--report-out writes the generated title', () => {
  test('eval-beir', async () => {
    const data = scifactSubset({ queries: 5, others: 30, parent: tmp });
    const file = join(tmp, 'beir.json');
    const r = await cli(['eval-beir', '--data', data, '--modes', 'sparse', '--no-predictors', '--report-out', file]);
    expect(r.code, r.stderr).toBe(0);
    const rep = reportOf(file);
    expect(rep.title).toBe('Retrieval · scifact-subset · 5 queries · seed 0');
    expect(rep.title).toBe(generatedTitle(rep));
  });

  test('eval-ragbench', async () => {
    const file = join(tmp, 'ragbench.json');
    const r = await cli(['eval-ragbench', '--data', RAGBENCH, '--subsets', 'emanual', '--n', '5', '--seed', '1', '--report-out', file]);
    expect(r.code, r.stderr).toBe(0);
    const rep = reportOf(file);
    expect(rep.title).toBe('RAGBench · emanual · lexical · seed 1 · N 5');
    expect(rep.title).toBe(generatedTitle(rep));
  });
});
