import { describe, expect, it } from 'vitest';
import { compareReports, configDiff, mergeTables, prepareCompare } from '../../src/lib/reports/compare.ts';
import { compareText } from '../../src/lib/reports/compare-text.ts';
import { metricColumn } from '../../src/lib/reports/summary-stats.ts';
import { columnValue, pairedTable } from '../../src/lib/stats/paired.ts';
import { REPORT_METRICS } from '../../src/lib/reports/metrics.ts';
import { REPORT_KINDS, type Report, type ReportRow } from '../../src/lib/reports/format.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { syntheticReport } from '../helpers/synthetic-reports.ts';
import { multiModeReport, singleModeReport, spread } from '../helpers/retrieval-reports.ts';

const fast = { iterations: 300, permutations: 300 };

function randomRow(rand: () => number, i: number): ReportRow {
  const maybe = (x: number) => (rand() < 0.15 ? null : Math.round(x * 20) / 20);
  const scores: Record<string, number | null> = {};
  for (const k of ['relevance', 'utilization', 'completeness', 'adherence', 'recall', 'relevant_recall', 'ndcg@10', 'mrr@10', 'r@5', 'r@100', 'p@3', 'p@5', 'ragas_faithfulness', 'ragas_answer_relevancy', 'ragas_context_precision', 'ragas_context_recall']) scores[k] = maybe(rand());
  const gold: Record<string, number | boolean | null> = { relevance: maybe(rand()), utilization: maybe(rand()), completeness: maybe(rand()), adherence: rand() < 0.1 ? null : rand() < 0.5 };
  const statuses = [undefined, 'answered', 'refused', 'error'];
  return { key: `k${i}`, group: 'g', question: `q${i}`, answer: '', scores, gold, status: statuses[Math.floor(rand() * 4)] };
}

describe('metric kernels', () => {
  it('equal metrics.ts compute for every metric of every kind on random rows (nulls, ties, statuses)', () => {
    const rand = seededRandom(2);
    for (let t = 0; t < 30; t++) {
      const rows = Array.from({ length: 1 + Math.floor(rand() * 40) }, (_, i) => randomRow(rand, i));
      for (const kind of REPORT_KINDS) {
        for (const m of REPORT_METRICS[kind]) {
          const want = m.compute(rows);
          const got = columnValue(metricColumn(m, rows));
          if (Number.isNaN(want)) expect(got, `${kind} ${m.id}`).toBeNaN();
          else expect(got, `${kind} ${m.id}`).toBeCloseTo(want, 12);
        }
      }
    }
  });
});

describe('compareReports', () => {
  const a = syntheticReport({ id: 'report-a', rows: 120, noise: 0.1, seed: 1, title: 'A' });
  const b = syntheticReport({ id: 'report-b', rows: 120, noise: 0.4, seed: 2, title: 'B' });
  const a2: Report = { ...a, id: 'report-a2', title: 'A again' };

  it('identical runs: Δ 0, p 1 (both tests), all ties, nothing flipped', () => {
    const r = compareReports([a, a2], fast);
    if (!r.ok) throw new Error(r.message);
    expect(r.sharedRows).toBe(120);
    for (const m of r.metrics) {
      const c = m.cells[1]!;
      expect(c.delta).toBe(0);
      expect(c.pBootstrap).toBe(1);
      expect(c.pRandomization).toBe(1);
      expect(c.pHolm).toBe(1);
      expect(c.significance).toBe('none');
      expect(c.wtl).toEqual({ win: 0, tie: c.n, loss: 0 });
      expect(m.cells[0]!.significance).toBeNull();
    }
    expect(r.questions.some((q) => q.flipped)).toBe(false);
    expect(r.configDiff.filter((d) => d.differs).map((d) => d.path)).toEqual([]);
  });

  it('a worse evaluator: Δ against the baseline, marked worse after Holm, W/T/L, flips, config diff', () => {
    const r = compareReports([a, b], { ...fast, seed: 4 });
    if (!r.ok) throw new Error(r.message);
    expect(r.baselineId).toBe('report-a');
    const rmse = r.metrics.find((m) => m.id === 'rmse_relevance')!;
    const cell = rmse.cells[1]!;
    expect(cell.value!).toBeGreaterThan(rmse.cells[0]!.value!);
    expect(cell.delta).toBeCloseTo(cell.value! - rmse.cells[0]!.value!, 12);
    expect(cell.deltaCi![0]).toBeGreaterThan(0);
    expect(cell.pRandomization!).toBeLessThan(0.01);
    expect(cell.pHolm!).toBeGreaterThanOrEqual(cell.pRandomization!);
    expect(cell.significance).toBe('worse');
    expect(cell.wtl!.win + cell.wtl!.tie + cell.wtl!.loss).toBe(cell.n);
    expect(cell.wtl!.loss).toBeGreaterThan(cell.wtl!.win);
    // Flipped = some verdict (adherence ≥ 0.5) differs from the baseline's, checked row by row.
    for (const q of r.questions) {
      const ra = a.rows.find((x) => x.key === q.key)!, rb = b.rows.find((x) => x.key === q.key)!;
      expect(q.flipped).toBe((ra.scores['adherence']! >= 0.5) !== (rb.scores['adherence']! >= 0.5));
    }
    expect(r.questions.some((q) => q.flipped)).toBe(true);
    const noise = r.configDiff.find((d) => d.path === 'config.noise')!;
    expect(noise).toEqual({ path: 'config.noise', values: { 'report-a': '0.1', 'report-b': '0.4' }, differs: true });
    expect(r.configDiff.find((d) => d.path === 'evaluator')!.differs).toBe(false);
  });

  it('the baseline option; Holm over every (metric, report) cell', () => {
    const c = syntheticReport({ id: 'report-c', rows: 120, noise: 0.2, seed: 3, title: 'C' });
    const r = compareReports([a, b, c], { ...fast, baselineId: 'report-b' });
    if (!r.ok) throw new Error(r.message);
    expect(r.baselineId).toBe('report-b');
    const cells = r.metrics.flatMap((m) => m.cells.filter((x) => x.reportId !== 'report-b'));
    expect(cells).toHaveLength(8);
    // Holm: the smallest p is multiplied by the number of tests (8) at least.
    const ps = cells.map((x) => x.pRandomization!);
    const min = cells[ps.indexOf(Math.min(...ps))]!;
    expect(min.pHolm).toBeCloseTo(Math.min(1, 8 * min.pRandomization!), 12);
  });

  it('refuses fewer than 2 reports, different kinds, different datasets, no shared rows, an unknown baseline', () => {
    expect(compareReports([a])).toEqual({ ok: false, message: expect.stringMatching(/at least 2/) });
    const retrieval: Report = { ...b, kind: 'retrieval' };
    expect(compareReports([a, retrieval])).toEqual({ ok: false, message: expect.stringMatching(/different kinds.*ragbench-validate.*retrieval/) });
    const other = syntheticReport({ id: 'report-d', rows: 10, noise: 0.1, seed: 1, dataset: 'someone/else' });
    expect(compareReports([a, other])).toEqual({ ok: false, message: expect.stringMatching(/different datasets/) });
    const disjoint = syntheticReport({ id: 'report-e', rows: 10, noise: 0.1, seed: 1, keyOffset: 500 });
    expect(compareReports([a, disjoint])).toEqual({ ok: false, message: expect.stringMatching(/share no rows/) });
    expect(compareReports([a, b], { baselineId: 'nope00' })).toEqual({ ok: false, message: expect.stringMatching(/baseline/) });
    expect(compareReports([a, a])).toEqual({ ok: false, message: expect.stringMatching(/twice/) });
  });

  it('warns about rows only some reports have, truncated reports and small N', () => {
    const part = syntheticReport({ id: 'report-f', rows: 8, noise: 0.1, seed: 5, keyOffset: 112 });
    const r = compareReports([a, { ...part, truncated: { rows: 300 } }], fast);
    if (!r.ok) throw new Error(r.message);
    expect(r.sharedRows).toBe(8);
    expect(r.warnings.join('\n')).toMatch(/"A" has 112 rows the others lack/);
    expect(r.warnings.join('\n')).toMatch(/only 8 of its 300 rows/);
    expect(r.warnings.join('\n')).toMatch(/N = 8 shared rows/);
  });

  it('multi-mode retrieval reports: figures, Δ, tests and W/T/L per mode, pairing rows of the same mode and query; no figure pools modes', () => {
    // Hand-computed nDCG@10: A sparse 0.5, dense 0.25; B sparse (6·0.75 + 6·0.5) / 12 = 0.625 (Δ +0.125, W/T/L 6/6/0),
    // dense 0.25 (Δ 0, 0/12/0). Pooled over modes A 0.375, B 0.4375, Δ 0.0625, W/T/L 6/18/0: none of these may appear.
    const twelve = (x: number) => Array.from({ length: 12 }, () => x);
    const a = multiModeReport({ sparse: twelve(0.5), dense: twelve(0.25) });
    const b = { ...multiModeReport({ sparse: [...twelve(0.75).slice(0, 6), ...twelve(0.5).slice(0, 6)], dense: twelve(0.25) }), id: 'second-report' };
    const r = compareReports([a, b], fast);
    if (!r.ok) throw new Error(r.message);
    expect(r.sharedRows).toBe(24);
    const ndcg = r.metrics.filter((m) => m.id === 'ndcg@10');
    expect(ndcg.map((m) => m.pipeline)).toEqual(['sparse', 'dense']);
    expect(ndcg.map((m) => m.cells.map((c) => c.value))).toEqual([[0.5, 0.625], [0.25, 0.25]]);
    expect(ndcg.map((m) => m.cells[1]!.delta)).toEqual([0.125, 0]);
    expect(ndcg.map((m) => m.cells[1]!.wtl)).toEqual([{ win: 6, tie: 6, loss: 0 }, { win: 0, tie: 12, loss: 0 }]);
    expect(ndcg.map((m) => m.cells.map((c) => c.n))).toEqual([[12, 12], [12, 12]]);
    expect(r.metrics.every((m) => m.pipeline === 'sparse' || m.pipeline === 'dense')).toBe(true);
    const values = r.metrics.flatMap((m) => m.cells.flatMap((c) => [c.value, c.delta]));
    for (const pooled of [0.375, 0.4375, 0.0625]) expect(values).not.toContain(pooled);
    // Every question once per mode, each row naming its mode.
    expect(r.questions).toHaveLength(24);
    expect(r.questions.filter((q) => q.pipeline === 'sparse').map((q) => q.key)).toEqual(Array.from({ length: 12 }, (_, i) => `sparse:q${i}`));
    expect(r.questions.find((q) => q.key === 'dense:q0')!.byReport['second-report']).toMatchObject({ key: 'dense:q0', perRow: { 'ndcg@10': 0.25 } });
    expect(r.warnings.some((w) => /hold 2 modes \(sparse, dense\): every figure, Δ and test is per mode/.test(w))).toBe(true);
    // An older single-mode report pairs with the same mode's rows of a multi-mode one, never with another mode's.
    const old = singleModeReport('sparse', twelve(0.5), { id: 'old-sparse' });
    const mixed = compareReports([old, b], fast);
    if (!mixed.ok) throw new Error(mixed.message);
    expect(mixed.sharedRows).toBe(12);
    expect(mixed.metrics.find((m) => m.id === 'ndcg@10')!.cells.map((c) => c.value)).toEqual([0.5, 0.625]);
    expect(mixed.questions[0]!.byReport['old-sparse']!.key).toBe('q0');
    expect(mixed.warnings.join('\n')).toMatch(/has 12 rows the others lack/);
    // Reports of one mode each: one pipeline against another, paired by query (no mode to split by).
    const one = compareReports([singleModeReport('sparse', spread(12, 1)), singleModeReport('dense', spread(12, 2), { id: 'dense-report' })], fast);
    if (!one.ok) throw new Error(one.message);
    expect(one.sharedRows).toBe(12);
    expect(one.metrics.every((m) => m.pipeline === null)).toBe(true);
    expect(one.warnings.some((w) => /modes/.test(w))).toBe(false);
    // rag-lab compare prints a mode column.
    const text = compareText(r);
    expect(text.find((l) => l.startsWith('mode'))).toMatch(/^mode\s+metric\s+report/);
    expect(text.filter((l) => /^(sparse|dense)\s+nDCG@10/.test(l))).toHaveLength(2);
  });

  it('NaN metrics become null, never NaN (one class only: AUROC undefined)', () => {
    const oneClass = (r: Report, id: string): Report => ({ ...r, id, rows: r.rows.map((x) => ({ ...x, gold: { ...x.gold, adherence: true } })) });
    const r = compareReports([oneClass(a, 'report-g'), oneClass(b, 'report-h')], fast);
    if (!r.ok) throw new Error(r.message);
    const au = r.metrics.find((m) => m.id === 'auroc')!;
    for (const c of au.cells) {
      expect(c.value).toBeNull();
      expect(c.ci).toBeNull();
      expect(c.delta).toBeNull();
      expect(c.pRandomization).toBeNull();
    }
    expect(au.cells[1]!.significance).toBe('none');
    expect(JSON.stringify(r)).not.toMatch(/NaN|Infinity/);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });

  it('config diff: report fields first, absent values as —, recorded nulls as none', () => {
    const rows = configDiff([{ ...a, config: { x: { y: 1 }, w: null } }, { ...b, config: { x: { y: 1 }, z: [1, 2] } }]);
    expect(rows.find((r) => r.path === 'config.w')!.values).toEqual({ 'report-a': 'none', 'report-b': '—' });
    // A setting recorded as null on one side and as an object on the other: none against its fields, set against none.
    const nested = configDiff([{ ...a, config: { chunking: null } }, { ...b, config: { chunking: { chunkSize: 400 } } }]);
    expect(nested.find((r) => r.path === 'config.chunking')!.values).toEqual({ 'report-a': 'none', 'report-b': 'set' });
    expect(nested.find((r) => r.path === 'config.chunking.chunkSize')!.values).toEqual({ 'report-a': 'none', 'report-b': '400' });
    expect(rows.slice(0, 2).map((r) => r.path)).toEqual(['evaluator', 'seed']);
    expect(rows.find((r) => r.path === 'config.z')).toEqual({ path: 'config.z', values: { 'report-a': '—', 'report-b': '[1,2]' }, differs: true });
    expect(rows.find((r) => r.path === 'config.x.y')!.differs).toBe(false);
  });
});

describe('the table split over two threads', () => {
  it('the bootstrap half and the randomization half merge into exactly the one-thread result', () => {
    const reports = [1, 2, 3].map((seed) => syntheticReport({ id: `split-${seed}`, rows: 200, noise: 0.1 * seed, seed, title: `S${seed}` }));
    const opts = { iterations: 500, permutations: 400, seed: 9, baselineId: 'split-2' };
    const p = prepareCompare(reports, opts);
    if (!p.ok) throw new Error(p.message);
    expect(p.parts).toHaveLength(1);
    const boot = pairedTable(p.parts[0]!.columns, p.baseline, { ...p.settings, permutations: 0 });
    const perm = pairedTable(p.parts[0]!.columns, p.baseline, { ...p.settings, iterations: 0 });
    const split = p.finish([mergeTables(boot, perm)]);
    expect(split).toEqual(compareReports(reports, opts));
    // The halves really are halves: no randomization p in one, no interval in the other.
    expect(boot[0]!.every((c) => c.pRandomization === null)).toBe(true);
    expect(perm[0]!.every((c) => c.ci === null)).toBe(true);
  });
});
