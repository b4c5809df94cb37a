import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { serializeReport } from '../../src/lib/reports/format.ts';
import { runCli } from '../helpers/cli.ts';
import { syntheticReport } from '../helpers/synthetic-reports.ts';

const dir = mkdtempSync(join(tmpdir(), 'rag-lab-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const a = syntheticReport({ id: 'report-a', rows: 150, noise: 0.1, seed: 1, title: 'lexical' });
const b = syntheticReport({ id: 'report-b', rows: 150, noise: 0.3, seed: 2, title: 'nli', config: { mode: 'validate', evaluator: 'nli', noise: 0.3 } });
const c = syntheticReport({ id: 'report-c', rows: 150, noise: 0.1, seed: 3, title: 'retrieval', kind: 'retrieval' });
const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p; };
const A = file('a.json', serializeReport(a));
const B = file('b.json', serializeReport(b));
const C = file('c.json', serializeReport(c));

describe('rag-lab compare', () => {
  it('a report whose id is __proto__ compares like any other, as the baseline too (issue 22)', async () => {
    const p = syntheticReport({ id: '__proto__', rows: 150, noise: 0.1, seed: 1, title: 'proto' });
    const P = file('proto.json', serializeReport(p));
    const r = await runCli(['compare', B, P, '--baseline', '__proto__', '--iterations', '100', '--permutations', '100']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/baseline "proto"/);
    expect(r.stdout).toMatch(new RegExp(`configHash\\s+${b.configHash}\\s+${p.configHash}`));
  });

  it('--json prints the CompareResult compareReports gives (same statistics code as the tab)', async () => {
    const r = await runCli(['compare', A, B, '--baseline', B, '--json', '--iterations', '400', '--permutations', '300', '--seed', '5']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(compareReports([a, b], { baselineId: 'report-b', iterations: 400, permutations: 300, seed: 5 }))));
  });

  it('prints the table: per report value [CI], Δ [CI], p, Holm mark, W/T/L and the config differences', async () => {
    const r = await runCli(['compare', A, B, '--iterations', '300', '--permutations', '300']);
    expect(r.code).toBe(0);
    const res = compareReports([a, b], { iterations: 300, permutations: 300 });
    if (!res.ok) throw new Error(res.message);
    const cell = res.metrics.find((m) => m.id === 'rmse_relevance')!.cells[1]!;
    const line = r.stdout.split('\n').find((l) => l.trimStart().startsWith('nli') && l.includes(cell.value!.toFixed(3)))!;
    expect(line).toContain(`+${cell.delta!.toFixed(3)} [+${cell.deltaCi![0].toFixed(3)}, +${cell.deltaCi![1].toFixed(3)}]`);
    expect(line).toContain('▼');
    expect(line).toContain(`${cell.wtl!.win}/${cell.wtl!.tie}/${cell.wtl!.loss}`);
    expect(r.stdout).toMatch(/lexical \(baseline\)/);
    expect(r.stdout).toMatch(/Config differences:\n\s+path\s+lexical\s+nli\n[\s\S]*config\.evaluator\s+lexical\s+nli/);
  });

  it('bad input: a missing file, a file that is no report, different kinds, bad flags (exit 2, one line)', async () => {
    const missing = await runCli(['compare', A, join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json/);
    const bad = file('bad.json', '{"format": "rag-lab-report", "version": 9}');
    const badRun = await runCli(['compare', A, bad]);
    expect(badRun.code).toBe(2);
    expect(badRun.stderr).toMatch(/bad\.json: This report is format v9/);
    expect(badRun.stderr.trim().split('\n')).toHaveLength(1);
    const kinds = await runCli(['compare', A, C]);
    expect(kinds.code).toBe(2);
    expect(kinds.stderr).toMatch(/different kinds/);
    const one = await runCli(['compare', A]);
    expect(one.code).toBe(2);
    const flag = await runCli(['compare', A, B, '--iterations', '1.5']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--iterations must be an integer/);
    const base = await runCli(['compare', A, B, '--baseline', C]);
    expect(base.code).toBe(2);
    expect(base.stderr).toMatch(/--baseline/);
  });
});
