/**
 * What the Reports tab shows of a tune report (src/ui/reports/tune-report-view.ts and the generic report view for
 * kind 'tune'): the verdict, the held-out table (current, winner, front: objective, Δ with its interval, Holm p,
 * W/T/L), the learned α and agreement lines, the trials as rows (flags, status, objective, p95, queries, rung), the
 * front chart read back from them; and a report whose extra is damaged still shows its figures, never wrong ones.
 */
import { describe, expect, it } from 'vitest';
import type { BeirQuery, Qrels } from '../../src/lib/data/beir.ts';
import { runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import type { Report } from '../../src/lib/reports/format.ts';
import { reportMeta } from '../../src/lib/reports/meta.ts';
import { summaryAt, SHARE_STEPS } from '../../src/lib/reports/share-summary.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { tuneReport } from '../../src/lib/tune/tune-report.ts';
import { runTuneSession, type TuneResult } from '../../src/lib/tune/tune-session.ts';
import { reportChartSpecs } from '../../src/ui/reports/chart-check.ts';
import { withheldChartNote } from '../../src/ui/reports/report-charts.ts';
import { countText, headlineText } from '../../src/ui/reports/report-format.ts';
import { cellText, defaultSort, groupLabelOf, reportHeader, rowColumns, summaryTable } from '../../src/ui/reports/report-view.ts';
import { tuneFrontOf, tuneReportView } from '../../src/ui/reports/tune-report-view.ts';
import { frontChart } from '../../src/ui/tune/tune-view.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';

const docs = topicCorpus(12, 3);
const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
const queries: BeirQuery[] = docs.map((d, i) => ({ id: `q${i}`, text: `${d.title} ${d.text.split(' ').slice(2, 4).join(' ')}` }));
const qrels: Qrels = new Map(docs.map((d, i) => [`q${i}`, new Map([[d.id, 1]])]));

const reportOf = (r: TuneResult) => tuneReport(r, {
  testSet: { label: '48 pseudo-queries', kind: 'pseudo', splitSeed: 0 }, budget: 6, modes: ['sparse'], base: {},
  data: { dataset: 'local:topics', kb: null, source: 'local', revision: null },
  environment: { app: 'test', runtime: 'node', agent: 'node test', models: [], llm: null, judge: null },
});

describe('a tune report in the Reports tab', async () => {
  const real = await runTuneSession({
    kb, queries, qrels, base: runSettings('default', { predictors: false }), models: {}, modes: ['sparse'], budget: 6, seed: 0,
    identity: { dataKey: 'topics', dataset: 'local:topics', kb: null, embedder: null, reranker: null }, halving: { eta: 2, finalists: 2, minQueries: 5 },
  });
  // A front member besides the winner, a learned α, a failed agreement check on pseudo-queries (as a tune can end).
  const other = real.trials.find((t) => t.id !== real.winner && t.finalist) ?? real.trials.find((t) => t.id !== real.winner)!;
  const w = real.heldOut.figures.find((f) => f.trial === real.winner)!;
  const r: TuneResult = {
    ...real, front: [other.id, real.winner],
    heldOut: { ...real.heldOut, figures: [w, { ...w, label: other.label, trial: other.id, score: 0.5, delta: -0.2, deltaCi: [-0.3, -0.1], pHolm: 0.0004, wins: 1, ties: 2, losses: 11 }] },
    learnedAlpha: { predictors: [], fitted: 0, flat: 0, bestFixedAlpha: 0.5, meanAlpha: NaN, learned: { score: 0.7, ci: null }, against: [], verdict: 'Learned per-query α (no fit): the best fixed α throughout.' },
    agreement: { settings: 6, tau: 0.5, topReference: 0, topOther: 1, regret: 0.03, passes: false, reference: 'labelled', other: 'pseudo', topReferenceLabel: 'a', topOtherLabel: 'b' },
    adoptable: false, testSetLabel: 'pseudo-queries',
  };
  const report = await reportOf(r);
  const v = tuneReportView(report)!;

  it('shows the verdict and the held-out table: current, winner, front, with Δ, its interval, Holm p and W/T/L', () => {
    expect(v.verdict).toBe(r.verdict);
    expect(v.heldOut.map((h) => [h.group, h.role])).toEqual([['current', 'current settings'], ['winner', 'winner'], [`front #${other.id}`, `front (trial ${other.id})`]]);
    expect(v.heldOut[0]).toMatchObject({ label: r.heldOut.current.label, value: r.heldOut.current.score.toFixed(4), delta: '', pHolm: '', wtl: '', n: r.split.heldOut });
    expect(v.heldOut[1]).toMatchObject({ label: w.label, value: w.score.toFixed(4), wtl: `${w.wins} / ${w.ties} / ${w.losses}` });
    expect(v.heldOut[2]).toMatchObject({ label: other.label, value: '0.5000', delta: '−0.2000', deltaCi: '[−0.3000, −0.1000]', pHolm: '< 0.001', wtl: '1 / 2 / 11' });
    expect(v.learnedAlpha).toBe('Learned per-query α (no fit): the best fixed α throughout.');
    expect(v.agreement).toBe('Agreement of the test sets: Kendall τ 0.500 and regret 0.0300 between labelled and pseudo: the check fails (τ ≥ 0.9 and regret ≤ 0.01).');
    expect(v.notAdoptable).toMatch(/^Not for adopting: the test set is pseudo-queries/);
    // The notes below the table leave out the two verdicts the table shows above them.
    expect(report.summary.notes).toContain(r.verdict);
    expect(v.notes).not.toContain(r.verdict);
    expect(v.notes).not.toContain(r.learnedAlpha!.verdict);
    expect(report.summary.extra['learnedAlpha']).toMatchObject({ meanAlpha: null, bestFixedAlpha: 0.5 });
  });

  it('lists the trials as rows: flags, status, objective, p95, queries, rung; the furthest rung first; no benchmark chart', () => {
    const cols = rowColumns(report);
    expect(cols.map((c) => c.label)).toEqual(['trial (flags)', 'status', 'ndcg@10', 'p95_ms', 'queries', 'rung']);
    expect(defaultSort(report, cols)).toEqual({ column: 'score:rung', desc: true });
    const row = report.rows.find((x) => x.status === 'winner')!;
    const t = r.trials[r.winner]!;
    expect(cols.map((c) => cellText('tune', row, c))).toEqual([t.label, 'winner', t.score.toFixed(4), t.p95Ms!.toFixed(1), String(t.queries), String(t.rung + 1)]);
    expect(report.rows.find((x) => x.key.endsWith(other.configHash))!.status).toBe('front');
    expect(reportChartSpecs(report)).toEqual({ means: null, roc: null, scatter: null });
    const summary = summaryAt(report, SHARE_STEPS[3]!);
    expect([withheldChartNote(summary, 'roc'), withheldChartNote(summary, 'scatter')]).toEqual([null, null]);
  });

  it('reads the front chart back from its rows: the same winner, front, scores and p95 as the tune; none without the winner\'s row', () => {
    const f = tuneFrontOf(report)!;
    const labelOf = (id: number) => f.trials.find((x) => x.id === id)!.label;
    expect(labelOf(f.winner)).toBe(r.trials[r.winner]!.label);
    expect(f.front.map(labelOf).sort()).toEqual(r.front.map((id) => r.trials[id]!.label).sort());
    for (const t of f.trials) {
      const live = r.trials.find((x) => x.label === t.label && x.configHash === t.configHash)!;
      expect([t.score, t.p95Ms, t.queries, t.finalist]).toEqual([live.score, live.p95Ms, live.queries, live.finalist]);
    }
    expect(frontChart(f).traces.at(-1)!.x).toEqual([r.trials[r.winner]!.p95Ms]);
    expect(tuneFrontOf({ ...report, rows: report.rows.filter((x) => x.status !== 'winner') })).toBeNull();
  });

  it('names what it is: kind, N in words, its groups as settings with no pooled row, its list entry', () => {
    const h = reportHeader(report);
    expect(h.kind).toMatch(/^tune/);
    expect(h.sample).toBe(`${report.rows.length} trials · ${r.split.tuning} tuning and ${r.split.heldOut} held-out queries (split seed 0)`);
    expect(groupLabelOf(report)).toBe('setting');
    expect(summaryTable(report).rows.map((x) => x.group)).toEqual(['current', 'winner', `front #${other.id}`]);
    const meta = reportMeta(report, 'run');
    expect(countText(meta)).toBe(`${report.rows.length} trials`);
    expect(headlineText(meta).map((l) => l.mode)).toEqual(['current', 'winner', `front #${other.id}`]);
    expect(headlineText(meta)[1]!.figures[1]).toMatch(/^Δ vs current [+-]?\d\.\d{4}/);
  });

  it('still shows its figures when summary.extra is damaged: labels fall back to the group, tests to N/A, no verdict', () => {
    const damaged: Report = { ...report, summary: { ...report.summary, extra: { heldOut: { current: 'x', figures: [{ group: 'winner', pHolm: 'low', wins: -1 }] } } } };
    const d = tuneReportView(damaged)!;
    expect(d.verdict).toBeNull();
    expect(d.heldOut.map((x) => x.label)).toEqual(['current', 'winner', `front #${other.id}`]);
    expect(d.heldOut[1]).toMatchObject({ value: v.heldOut[1]!.value, delta: v.heldOut[1]!.delta, pHolm: 'N/A', wtl: '' });
    expect(d.learnedAlpha).toBeNull();
    expect(d.agreement).toBeNull();
    expect(tuneReportView({ ...report, kind: 'retrieval' })).toBeNull();
  });
});
