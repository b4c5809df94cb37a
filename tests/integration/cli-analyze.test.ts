import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analysisText } from '../../src/lib/eval/analysis/analysis-text.ts';
import { analysisJson, analyzeRetrievalReport } from '../../src/lib/eval/analysis/analysis.ts';
import { parseReportText, serializeReport } from '../../src/lib/reports/format.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';
import { ROOT, runCli } from '../helpers/cli.ts';
import { testReport, validateRow } from '../helpers/reports.ts';
import { multiModeReport, spread } from '../helpers/retrieval-reports.ts';

const dir = mkdtempSync(join(tmpdir(), 'rag-lab-analyze-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p; };

const ndcg = spread(24, 1);
const report = multiModeReport(
  { sparse: ndcg, dense: spread(24, 2), rrf: ndcg, hybrid_calibrated: spread(24, 3) },
  (i) => ({ 'qpp.entropy.sparse.raw': -ndcg[i]!, 'qpp.entropy.sparse.cdf': 1, 'qpp.nqc.dense': i % 5, 'qpp.alpha.fusion.raw': (i * 13) % 7 }),
  { seed: 5, extra: { skipped_modes: { hybrid_fixed_rerank: 'no reranker model' } } },
);
const REPORT = file('multi.json', serializeReport(report));
const opts = ['--iterations', '800', '--permutations', '600'];

describe('rag-lab analyze', () => {
  it('--json: analysisJson of analyzeRetrievalReport on the last line of stdout; tables and warnings on stderr', async () => {
    const r = await runCli(['analyze', '--report', REPORT, '--json', ...opts]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const expected = analyzeRetrievalReport(report, { iterations: 800, permutations: 600 });
    if (!expected.ok) throw new Error(expected.message);
    expect(JSON.parse(lines.at(-1)!)).toEqual(JSON.parse(JSON.stringify(analysisJson(expected))));
    const j = JSON.parse(lines.at(-1)!);
    expect(j.queries).toBe(24);
    expect(j.h2).toHaveLength(6);
    expect(j.h2.find((h: { a: string; b: string }) => h.a === 'sparse' && h.b === 'rrf')).toMatchObject({ delta: 0, p_value: 1, wins: 0, ties: 24, losses: 0 });
    expect(j.h1[0]).toMatchObject({ predictor: 'entropy', retriever: 'sparse', calibration: 'raw' });
    expect(j.h1[0].pearson_r).toBeCloseTo(-1, 12);
    // The verdicts key: H1 n/a (cdf entropy is constant), H2 n/a (no hybrid_fixed).
    expect(j.verdicts.h1).toMatchObject({ verdict: 'n/a', reason: expect.stringMatching(/^sparse: not judged, cdf entropy has no r/) });
    expect(j.verdicts.h2).toMatchObject({ verdict: 'n/a', reason: 'mode hybrid_fixed is not in the report', pairs: expect.any(Array) });
    expect(r.stderr).toMatch(/^H1: predictors vs per-query ndcg@10/m);
    expect(r.stderr).toMatch(/warning: Modes that could not run .*hybrid_fixed_rerank \(no reranker model\)/);
  });

  it('prints the H1 table (n, r, CI, p, Spearman, Kendall, expected sign, note) and the H2 table (Δ, CI, p boot, p rand, W/T/L)', async () => {
    const r = await runCli(['analyze', '--report', REPORT, ...opts, '--seed', '9']);
    expect(r.code).toBe(0);
    const a = analyzeRetrievalReport(report, { iterations: 800, permutations: 600, seed: 9 });
    if (!a.ok) throw new Error(a.message);
    expect(r.stdout).toMatch(/800 bootstrap resamples, 600 permutations, seed 9 \(resamples: --iterations, permutations: --permutations\)/);
    expect(r.stdout).toMatch(/^ {2}Hypothesis: CDF entropy has the strongest negative correlation with retrieval quality\.\n {2}Verdict: – n\/a\. sparse: not judged/m);
    expect(r.stdout).toMatch(/^ {2}Hypothesis: Calibrated entropy fusion significantly outperforms fixed-alpha and RRF baselines\.\n {2}Verdict: – n\/a\. mode hybrid_fixed is not in the report\.\n {2}Best mean ndcg@10: /m);
    const nqc = a.h1.find((x) => x.predictor === 'nqc')!;
    const nqcLine = r.stdout.split('\n').find((l) => l.trimStart().startsWith('nqc'))!;
    expect(nqcLine).toMatch(new RegExp(`nqc\\s+dense\\s+—\\s+24\\s+[+−]${Math.abs(nqc.pearson_r!).toFixed(3)}\\s+\\[`));
    expect(nqcLine).toMatch(/\+$/);
    const constant = r.stdout.split('\n').find((l) => /entropy\s+sparse\s+cdf/.test(l))!;
    expect(constant).toMatch(/n\/a.*the predictor is the same on all 24 queries/);
    const pair = a.h2.find((x) => x.a === 'sparse' && x.b === 'dense')!;
    const pairLine = r.stdout.split('\n').find((l) => /^\s+sparse\s+dense\s/.test(l))!;
    expect(pairLine).toContain(`${pair.wins}/${pair.ties}/${pair.losses}`);
    expect(pairLine).toContain(Math.abs(pair.delta!).toFixed(4));
    expect(r.stderr).toMatch(/warning: Modes that could not run/);
  });

  it('analysisText (in process): the verdict lines; the draws of the report\'s config.resamples said on the settings line', () => {
    const modes = { rrf: spread(24, 4), hybrid_fixed: spread(24, 5), hybrid_calibrated: spread(24, 5).map((x) => Math.min(1, x + 0.2)) };
    const r = { ...multiModeReport(modes), config: { mode: 'retrieval', resamples: 400 } };
    const a = analyzeRetrievalReport(r);
    if (!a.ok) throw new Error(a.message);
    const text = analysisText(a, r);
    expect(text[1]).toBe("400 bootstrap resamples, 400 permutations, seed 7 (draws: the report's config.resamples)");
    const h2 = text.indexOf('  Hypothesis: Calibrated entropy fusion significantly outperforms fixed-alpha and RRF baselines.');
    expect(h2).toBeGreaterThan(text.findIndex((l) => /^\s+hybrid_fixed\s+hybrid_calibrated\s/.test(l)));
    expect(text[h2 + 1]).toMatch(/^ {2}Verdict: (✅ Supported|⚠️ Partially supported)\. hybrid_calibrated beats hybrid_fixed \(Δ ndcg@10 = \+0\.\d{4}, p [=<] /);
  });

  it('bad input: missing file, not JSON, another kind, no --report, bad flags → one line, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--report', join(dir, 'nope.json')], /nope\.json/],
      [['--report', file('bad.json', '{"rows": [')], /bad\.json.*not JSON/],
      [['--report', file('validate.json', serializeReport(testReport([validateRow(0, 0.4, true)])))], /validate\.json: This is a ragbench-validate report/],
      [[], /--report FILE is required/],
      [['--report', REPORT, '--iterations', '1.5'], /--iterations must be an integer/],
      [['--report', REPORT, '--metric', 'ndcg@3'], /multi\.json: No row of this report has a number for ndcg@3/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['analyze', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });

  it('end to end: eval-beir --report-out --analyze (5 modes, a SciFact subset, fixture models), then analyze --json', async () => {
    const data = scifactSubset({ queries: 20, others: 200, parent: dir });
    const out = join(dir, 'scifact-run.json');
    const modes = ['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated'];
    const ev = await runCli(['eval-beir', '--data', data, '--modes', modes.join(','), '--models-dir', join(ROOT, 'tests/fixtures/models'),
      '--embedder', 'rag-lab/tiny-embedder', '--no-cache', '--json', '--analyze', '--report-out', out]);
    expect(ev.code, ev.stderr).toBe(0);
    // One command: the seven-mode table's JSON keeps its keys, and "analysis" is analyze --json's object of the same run.
    const evJson = JSON.parse(ev.stdout.trim().split('\n').at(-1)!);
    expect(Object.keys(evJson.modes)).toEqual(modes);
    expect(ev.stderr).toMatch(/H1: predictors vs per-query ndcg@10/);
    const r = await runCli(['analyze', '--report', out, '--json', ...opts]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(j.queries).toBe(20);
    expect(j.h2.map((h: { a: string; b: string }) => `${h.a}-${h.b}`)).toEqual(modes.flatMap((a, i) => modes.slice(i + 1).map((b) => `${a}-${b}`)));
    for (const h of j.h2) expect(h.wins + h.ties + h.losses).toBe(20);
    const rows = j.h1.map((h: { predictor: string; retriever: string; calibration: string | null }) => `${h.predictor}.${h.retriever}.${h.calibration}`);
    expect(rows).toEqual(expect.arrayContaining(['entropy.sparse.raw', 'entropy.dense.cdf', 'wig.sparse.null', 'nqc.dense.null', 'alpha.hybrid_calibrated.raw']));
    expect(new Set(j.h1.map((h: { retriever: string }) => h.retriever))).toEqual(new Set(['sparse', 'dense', 'hybrid_calibrated']));
    const parsed = parseReportText(readFileSync(out, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    const a = analyzeRetrievalReport(parsed.report, { iterations: 800, permutations: 600 });
    if (!a.ok) throw new Error(a.message);
    expect(j).toEqual(JSON.parse(JSON.stringify(analysisJson(a))));
    const full = analyzeRetrievalReport(parsed.report);
    if (!full.ok) throw new Error(full.message);
    expect(evJson.analysis).toEqual(JSON.parse(JSON.stringify(analysisJson(full))));
    expect(r.stdout).not.toMatch(/NaN/);
  });
});
