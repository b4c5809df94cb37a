/**
 * A tune as a report (src/lib/tune/tune-report.ts): real tunes (`runTuneSession` on a small generated corpus) made
 * into reports that `parseReport` accepts, one row per setting tried with its status, the held-out figures as the
 * summary's, through the share link and back, exported, and two tunes of the same data compared trial by trial.
 */
import { describe, expect, it } from 'vitest';
import type { BeirQuery, Qrels } from '../../src/lib/data/beir.ts';
import { runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { reportCsv, reportMarkdown } from '../../src/lib/reports/export.ts';
import { parseReport, type Report } from '../../src/lib/reports/format.ts';
import { headlineOf, reportMeta } from '../../src/lib/reports/meta.ts';
import { metricsFor } from '../../src/lib/reports/metrics.ts';
import { readShareFragment } from '../../src/lib/reports/share-link.ts';
import { shareSummary } from '../../src/lib/reports/share-summary.ts';
import { generatedTitle } from '../../src/lib/reports/title.ts';
import { tuneSummary } from '../../src/lib/reports/tune-extra.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { tuneReport, TuneReportError, type TuneReportOptions } from '../../src/lib/tune/tune-report.ts';
import { HELD_OUT_ITERATIONS } from '../../src/lib/tune/held-out.ts';
import { runTuneSession, type TuneResult } from '../../src/lib/tune/tune-session.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';

const docs = topicCorpus(12, 3);
const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
// A question per document: its title's two words and two of its body's, judged by its id.
const queries: BeirQuery[] = docs.map((d, i) => ({ id: `q${i}`, text: `${d.title} ${d.text.split(' ').slice(2, 4).join(' ')}` }));
const qrels: Qrels = new Map(docs.map((d, i) => [`q${i}`, new Map([[d.id, 1]])]));
const identity = { dataKey: 'topics-content', dataset: 'local:topics', kb: null, embedder: null, reranker: null };

/** A tune of the sparse mode: 6 trials, halving down to 2 finalists over a few rungs. */
const tune = (seed: number) => runTuneSession({
  kb, queries, qrels, base: runSettings('default', { predictors: false }), identity, models: {}, modes: ['sparse'], budget: 6, seed,
  halving: { eta: 2, finalists: 2, minQueries: 5 },
});

const options = (r: TuneResult, extra: Partial<TuneReportOptions> = {}): TuneReportOptions => ({
  testSet: { label: 'mine.jsonl', kind: 'imported', provenance: { file: 'mine.jsonl', rows: queries.length }, splitSeed: r.split.seed },
  budget: 6, modes: ['sparse'], base: { mode: 'sparse', k1: null, candidateK: 'auto' },
  data: { dataset: 'local:topics', kb: 'local:topics', source: 'local', revision: null },
  environment: { app: 'test', runtime: 'node', agent: 'node test', models: [], llm: null, judge: null },
  ...extra,
});

const keyOf = (t: { mode: string; configHash: string }) => `trial:${t.mode}:${t.configHash}`;
const parsed = (r: Report) => { const p = parseReport(JSON.parse(JSON.stringify(r))); if (!p.ok) throw new Error(p.message); return p.report; };

describe('a tune as a report', async () => {
  const r = await tune(0);
  const report = await tuneReport(r, options(r, { createdAt: '2025-01-02T03:04:05.000Z' }));

  it('passes parseReport as it is written: kind tune, the objective as evaluator, a draft, seed = the split seed, hash of config and data', async () => {
    expect(parsed(report)).toEqual(report);
    expect(report).toMatchObject({ kind: 'tune', evaluator: 'ndcg@10', draft: true, notes: '', title: '', seed: r.split.seed, n: null, createdAt: '2025-01-02T03:04:05.000Z' });
    expect(report.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(report.configHash).toMatch(/^[0-9a-f]{24}$/);
    expect(report.config).toMatchObject({
      testSet: { label: 'mine.jsonl', kind: 'imported', splitSeed: 0 }, budget: 6, modes: ['sparse'], objective: 'ndcg@10',
      base: { mode: 'sparse', k1: null, candidateK: 'auto' }, space: { modes: ['sparse'], size: r.space.size }, split: r.split,
    });
    expect((report.config['space'] as { dimensions: Record<string, unknown> }).dimensions).toEqual(Object.fromEntries(r.space.dimensions.map((d) => [d.key, d.values])));
    // Another space (a dimension narrowed) or other embedders: another config, another hash.
    const narrowed = { ...r, space: { ...r.space, dimensions: r.space.dimensions.map((d, i) => (i === 0 ? { ...d, values: d.values.slice(0, 1) } : d)) } };
    expect((await tuneReport(narrowed, options(r))).configHash).not.toBe(report.configHash);
    const withOthers = await tuneReport({ ...r, space: { ...r.space, embedders: ['Xenova/bge-small-en-v1.5@q8'] } }, options(r));
    expect((withOthers.config['space'] as { embedders: string[] }).embedders).toEqual(['Xenova/bge-small-en-v1.5@q8']);
    expect(withOthers.configHash).not.toBe(report.configHash);
    // The same tune gives the same hash; other data (its identity) another.
    expect((await tuneReport(r, options(r))).configHash).toBe(report.configHash);
    expect((await tuneReport({ ...r, identity: { ...identity, dataKey: 'other' } }, options(r))).configHash).not.toBe(report.configHash);
    expect(report.summary.bootstrap).toEqual({ iterations: HELD_OUT_ITERATIONS, seed: r.split.seed, level: 0.95 });
    expect(report.summary.warnings).toEqual([]);
  });

  it('holds one row per setting tried, keyed by mode and config hash, with its status and its figures on the tuning queries', () => {
    const keys = report.rows.map((x) => x.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(keys)).toEqual(new Set(r.trials.map(keyOf)));
    for (const row of report.rows) {
      const t = r.trials.find((x) => keyOf(x) === row.key)!;
      expect(row).toMatchObject({ group: 'trials', question: t.label, answer: '', gold: {} });
      expect(row.scores).toEqual({ 'ndcg@10': t.score, p95_ms: t.p95Ms, mean_ms: t.meanMs, queries: t.queries, rung: t.rung + 1 });
    }
    const statusOf = (id: number) => report.rows.find((x) => x.key === keyOf(r.trials[id]!))!.status;
    expect(statusOf(r.winner)).toBe('winner');
    expect(report.rows.filter((x) => x.status === 'winner')).toHaveLength(1);
    for (const id of r.front) if (id !== r.winner) expect(statusOf(id)).toBe('front');
    // Halving to 2 finalists: some trials were dropped on the way, and those never reached the last rung.
    const dropped = report.rows.filter((x) => x.status === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((x) => x.scores['rung']! < r.rungs.length)).toBe(true);
    // The furthest rung first.
    const rungs = report.rows.map((x) => x.scores['rung']!);
    expect(rungs).toEqual([...rungs].sort((a, b) => b - a));
  });

  it('has the held-out figures as its summary: the current settings, the winner and the front, Δ against the current, n = held-out queries', () => {
    const n = r.split.heldOut;
    const m = (group: string, id: string) => report.summary.metrics.find((x) => x.group === group && x.id === id);
    expect(m('current', 'ndcg@10')).toEqual({ id: 'ndcg@10', group: 'current', value: r.heldOut.current.score, ci: r.heldOut.current.ci, n });
    expect(m('current', 'delta')).toBeUndefined();
    const w = r.heldOut.figures.find((f) => f.trial === r.winner)!;
    expect(m('winner', 'ndcg@10')).toEqual({ id: 'ndcg@10', group: 'winner', value: w.score, ci: w.ci, n });
    expect(m('winner', 'delta')).toEqual({ id: 'delta', group: 'winner', value: w.delta, ci: w.deltaCi, n });
    for (const f of r.heldOut.figures.filter((x) => x.trial !== r.winner)) expect(m(`front #${f.trial}`, 'ndcg@10')?.value).toBe(f.score);
    expect(report.summary.metrics.some((x) => x.group === null)).toBe(false);
    expect(report.summary.notes).toEqual([...r.notes, r.verdict]);
    const s = tuneSummary(report)!;
    expect(s.verdict).toBe(r.verdict);
    expect(s.heldOut.map((h) => h.group)[0]).toBe('current');
    expect(s.heldOut.find((h) => h.group === 'winner')).toMatchObject({ label: w.label, pHolm: w.pHolm, wtl: { wins: w.wins, ties: w.ties, losses: w.losses } });
    expect(report.summary.extra).toMatchObject({ winner: { label: r.trials[r.winner]!.label, mode: 'sparse' }, adoptable: true, testSetLabel: null, learnedAlpha: null, agreement: null });
  });

  it('lists the objective and p95 ms as its figures, names itself in the list and the title', () => {
    expect(metricsFor('tune', report.rows).map((d) => d.id)).toEqual(['ndcg@10', 'p95_ms']);
    expect(generatedTitle(report)).toBe(`Tune · local:topics · ndcg@10 · test set mine.jsonl · ${report.rows.length} trials · seed 0`);
    const meta = reportMeta(report, 'run');
    expect(meta.n).toBe(report.rows.length);
    expect(meta.details).toContain('objective ndcg@10');
    // The headline: one line per setting measured (current, winner, front), never a figure pooled over the trials.
    expect(headlineOf(report).filter((h) => h.pipeline === 'winner').map((h) => h.id)).toEqual(['ndcg@10', 'delta']);
    expect(headlineOf(report).every((h) => h.pipeline !== undefined)).toBe(true);
  });

  it('keeps the first of two trials of the same setting (with the better status), and writes figures that are not finite as null', async () => {
    const first = r.trials.find((t) => t.id !== r.winner)!;
    const twin = { ...first, id: r.trials.length, label: `${first.label} (again)` };
    const odd: TuneResult = {
      ...r, trials: [...r.trials.map((t) => (t.id === first.id ? { ...t, score: NaN, p95Ms: null } : t)), twin],
      heldOut: { ...r.heldOut, figures: r.heldOut.figures.map((f) => (f.trial === r.winner ? { ...f, delta: NaN, deltaCi: [NaN, 1] as [number, number] } : f)) },
    };
    const rep = parsed(await tuneReport(odd, options(r)));
    expect(rep.rows).toHaveLength(report.rows.length);
    const row = rep.rows.find((x) => x.key === keyOf(first))!;
    expect(row.question).toBe(first.label);
    expect(row.scores['ndcg@10']).toBeNull();
    expect(row.scores['p95_ms']).toBeNull();
    expect(rep.summary.metrics.find((x) => x.group === 'winner' && x.id === 'delta')).toMatchObject({ value: null, ci: null });
  });

  it('refuses options it cannot record, each with its reason', async () => {
    await expect(tuneReport(r, options(r, { budget: 0 }))).rejects.toThrow(TuneReportError);
    await expect(tuneReport(r, options(r, { budget: 2.5 }))).rejects.toThrow(/budget/);
    await expect(tuneReport(r, options(r, { id: 'no' }))).rejects.toThrow(/an id of 6–64/);
    await expect(tuneReport(r, options(r, { createdAt: 'yesterday' }))).rejects.toThrow(/ISO 8601/);
    await expect(tuneReport({ ...r, trials: [] }, options(r))).rejects.toThrow(/at least one trial/);
    // A secret never reaches a report.
    await expect(tuneReport(r, options(r, { base: { apiKey: 'sk-abcdefghijklmnopqrstuvwxyz' } }))).rejects.toThrow(/secret/);
  });

  it('goes through a share link and back: parseReport accepts it, the winner and the front first, the figures whole', async () => {
    const s = await shareSummary(report);
    if (!s.ok) throw new Error(s.message);
    expect(s.step).toBe(0);
    const link = await readShareFragment(`#${s.fragment}`);
    if (link.kind !== 'inline') throw new Error(`not an inline link: ${link.kind}`);
    expect(link.report).toEqual(s.report);
    expect(parseReport(JSON.parse(JSON.stringify(link.report))).ok).toBe(true);
    expect(link.report.truncated).toEqual({ rows: report.rows.length });
    expect(link.report.rows[0]!.status).toBe('winner');
    expect(link.report.summary.metrics).toEqual(report.summary.metrics);
    expect(tuneSummary(link.report)).toEqual(tuneSummary(report));
  });

  it('exports: the Markdown summary has the verdict and the held-out table, the CSV a line per trial', () => {
    const md = reportMarkdown(report);
    expect(md).toContain('- kind: tune');
    expect(md).toContain('## Held-out figures');
    expect(md).toContain('| setting | flags | ndcg@10 | 95% CI | Δ vs current |');
    expect(md).toMatch(/\n\| winner \| /);
    expect(md).toMatch(/\n\| current \| /);
    const csv = reportCsv(report).trim().split('\r\n');
    expect(csv).toHaveLength(report.rows.length + 1);
    expect(csv[0]).toContain('score:ndcg@10');
    expect(csv[0]).toContain('score:p95_ms');
  });

  it('compares with another tune of the same data trial by trial: the shared settings, their objective and p95, statuses as verdicts', async () => {
    const r2 = await tune(1);
    const other = await tuneReport(r2, options(r2, { title: 'seed 1' }));
    const shared = report.rows.filter((x) => other.rows.some((y) => y.key === x.key)).map((x) => x.key);
    expect(shared.length).toBeGreaterThan(0);
    const c = compareReports([report, other], { iterations: 200, permutations: 200 });
    if (!c.ok) throw new Error(c.message);
    expect(c.kind).toBe('tune');
    expect(c.sharedRows).toBe(shared.length);
    expect(c.metrics.map((m) => m.id)).toEqual(['ndcg@10', 'p95_ms']);
    expect(c.questions.map((q) => q.key).sort()).toEqual([...shared].sort());
    for (const q of c.questions) {
      const a = report.rows.find((x) => x.key === q.key)!;
      expect(q.byReport[report.id]).toMatchObject({ verdict: a.status, perRow: { 'ndcg@10': a.scores['ndcg@10'], p95_ms: a.scores['p95_ms'] } });
    }
    expect(c.warnings.some((w) => w.startsWith('Tune reports: a row is a setting both tunes tried'))).toBe(true);
    // The same tune saved twice: every Δ 0.
    const again = compareReports([report, { ...report, id: 'same-tune-again' }], { iterations: 200, permutations: 200 });
    if (!again.ok) throw new Error(again.message);
    expect(again.metrics.every((m) => m.cells[1]!.delta === 0 || m.cells[1]!.delta === null)).toBe(true);
    // No setting in common: refused, saying why.
    const apart: Report = { ...other, rows: other.rows.map((x) => ({ ...x, key: `${x.key}0` })) };
    const refused = compareReports([report, apart]);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toMatch(/share no trial/);
    // A retrieval report is another kind.
    const mixed = compareReports([report, { ...other, kind: 'retrieval' }]);
    expect(!mixed.ok && mixed.message).toMatch(/different kinds/);
  });
});
