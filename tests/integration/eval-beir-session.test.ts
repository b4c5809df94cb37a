/**
 * `rag-lab eval-beir` in-process (no child process): seed B's protocol and the run settings it records, a BEIR
 * dataset read from a loopback Hub (`--data hub:BeIR/scifact`) scoring as the same data from a folder, and the flags'
 * errors.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { evalBeirCommand } from '../../cli/eval-beir.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';
import { SCIFACT, scifactSubset } from '../helpers/beir-subset.ts';
import { captureCommand } from '../helpers/cli.ts';
import { addBeirScifact } from '../helpers/hub-dataset-fixtures.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

let tmp: string;
let small: string;
let hub: HubRepoServer;
const savedEndpoint = process.env['HF_ENDPOINT'];
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rag-lab-eval-session-'));
  small = scifactSubset({ queries: 6, others: 40, parent: tmp });
  hub = await serveHubRepos();
  addBeirScifact(hub, 'BeIR/scifact');
});
afterAll(async () => {
  if (savedEndpoint === undefined) delete process.env['HF_ENDPOINT']; else process.env['HF_ENDPOINT'] = savedEndpoint;
  await hub?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);
const reportOf = (file: string) => {
  const p = parseReportText(readFileSync(file, 'utf8'));
  if (!p.ok) throw new Error(p.message);
  return p.report;
};

describe('eval-beir settings and sources', () => {
  test('--protocol seed-b records seed B\'s settings; a flag overrides its part; the hash follows what changes rows', async () => {
    const a = join(tmp, 'a.json'), b = join(tmp, 'b.json'), c = join(tmp, 'c.json');
    const r1 = await captureCommand(evalBeirCommand, ['--data', small, '--protocol', 'seed-b', '--modes', 'sparse', '--report-out', a, '--json']);
    expect(r1.error).toBeNull();
    const ra = reportOf(a);
    expect(ra.config).toMatchObject({
      protocol: 'seed-b', candidateK: 20, growPool: false, dedup: true, chunking: { chunkSize: 800, overlap: 120 },
      calibration: 'cdf', entropyBasis: 'calibrated', k1: 1.5, b: 0.75, analyzer: 'plain', index: 'exact', resamples: 1000,
    });
    // the same settings spelled out as flags: the same run, the same hash and rows
    const r2 = await captureCommand(evalBeirCommand, ['--data', small, '--modes', 'sparse', '--chunk', '--candidate-k', '20', '--pool', 'fixed',
      '--k1', '1.5', '--b', '0.75', '--analyzer', 'plain', '--index', 'exact', '--resamples', '1000', '--report-out', b, '--json']);
    expect(r2.error).toBeNull();
    const rb = reportOf(b);
    expect(rb.config['protocol']).toBe('default');
    expect(rb.configHash).toBe(ra.configHash);
    expect(lastJson(r2.out).modes.sparse['ndcg@10']).toBe(lastJson(r1.out).modes.sparse['ndcg@10']);
    // one override on top of the preset changes the rows' identity
    const r3 = await captureCommand(evalBeirCommand, ['--data', small, '--protocol', 'seed-b', '--modes', 'sparse', '--candidate-k', '40', '--report-out', c]);
    expect(r3.error).toBeNull();
    const rc = reportOf(c);
    expect(rc.config).toMatchObject({ protocol: 'seed-b', candidateK: 40, growPool: false });
    expect(rc.configHash).not.toBe(ra.configHash);
    // end-to-end latency on every row
    for (const row of ra.rows) expect(typeof row.scores['total_ms']).toBe('number');
    // seed A's separate k's: recorded (null when not given), another hash when given
    expect(ra.config).toMatchObject({ bm25K: null, denseK: null, fusionTopK: null });
    const d = join(tmp, 'd.json');
    const r4 = await captureCommand(evalBeirCommand, ['--data', small, '--protocol', 'seed-b', '--modes', 'sparse', '--bm25-k', '5', '--report-out', d]);
    expect(r4.error).toBeNull();
    const rd = reportOf(d);
    expect(rd.config).toMatchObject({ candidateK: 20, bm25K: 5, denseK: null });
    expect(rd.configHash).not.toBe(ra.configHash);
  });

  test('--alpha weighs the fixed hybrid: α = 1 puts BM25\'s best first, α = 0 the dense side\'s; recorded, and in the hash only when not 0.5', async () => {
    const run = async (extra: string[]) => {
      const f = join(tmp, `alpha-${extra.join('') || 'default'}.json`);
      const r = await captureCommand(evalBeirCommand, ['--data', small, '--modes', 'sparse,dense,hybrid_fixed', '--train-embedder', '--no-predictors', '--report-out', f, ...extra]);
      expect(r.error).toBeNull();
      const rep = reportOf(f);
      const top = (mode: string) => rep.rows.filter((row) => row.group === mode).map((row) => row.retrieved?.[0]);
      return { rep, top };
    };
    const dflt = await run([]), half = await run(['--alpha', '0.5']), one = await run(['--alpha', '1']), zero = await run(['--alpha', '0']);
    expect(dflt.rep.config['alpha']).toBe(0.5);
    expect(half.rep.configHash).toBe(dflt.rep.configHash);
    expect(one.rep.config['alpha']).toBe(1);
    expect(new Set([dflt.rep.configHash, one.rep.configHash, zero.rep.configHash]).size).toBe(3);
    // α·minmax(BM25) + (1 − α)·minmax(dense): at α = 1 the top BM25 candidate scores 1 and nothing scores more; at 0 the top dense one.
    expect(one.top('hybrid_fixed')).toEqual(one.top('sparse'));
    expect(zero.top('hybrid_fixed')).toEqual(zero.top('dense'));
    expect(one.top('hybrid_fixed')).not.toEqual(zero.top('hybrid_fixed'));
  });

  test('--data hub:BeIR/scifact reads the Hub dataset and scores as the same data from a folder', async () => {
    process.env['HF_ENDPOINT'] = hub.url;
    const fromHub = await captureCommand(evalBeirCommand, ['--data', 'hub:BeIR/scifact', '--modes', 'sparse', '--max-queries', '25', '--json']);
    expect(fromHub.error?.message ?? null).toBeNull();
    const fromFolder = await captureCommand(evalBeirCommand, ['--data', SCIFACT, '--modes', 'sparse', '--max-queries', '25', '--json']);
    expect(fromFolder.error).toBeNull();
    const h = lastJson(fromHub.out), f = lastJson(fromFolder.out);
    expect(h.dataset).toBe('BeIR/scifact');
    expect(h.queries).toBe(25);
    for (const k of ['ndcg@10', 'mrr@10', 'r@100']) expect(h.modes.sparse[k]).toBeCloseTo(f.modes.sparse[k], 12);
    const missing = await captureCommand(evalBeirCommand, ['--data', 'hub:nobody/nothing', '--modes', 'sparse']);
    expect(missing.error?.message).toMatch(/^--data hub:nobody\/nothing: /);
  });

  test.each([
    [['--protocol', 'seed-c'], /^--protocol must be one of default, seed-b, got "seed-c"$/],
    [['--calibration', 'sigmoid'], /^--calibration must be one of raw, minmax, zscore, cdf, got "sigmoid"$/],
    [['--entropy-basis', 'scores'], /^--entropy-basis must be one of calibrated, raw, got "scores"$/],
    [['--pool', 'big'], /^--pool must be one of grow, fixed, got "big"$/],
    [['--analyzer', 'porter'], /^--analyzer must be one of english, plain, got "porter"$/],
    [['--resamples', '5'], /^--resamples must be an integer in \[100, 100000\], got "5"$/],
    [['--candidate-k', '0'], /^--candidate-k must be an integer in \[1, 1000\], got "0"$/],
    [['--dense-k', '0'], /^--dense-k must be an integer in \[1, 1000\], got "0"$/],
    [['--chunk-size', '100', '--overlap', '100'], /chunking needs a chunk size ≥ 1 and 0 ≤ overlap < chunk size/],
    [['--max-queries', '2.5'], /^--max-queries must be an integer in \[1, 1000000\], got "2.5"$/],
  ])('%j is refused in one line', async (flags, message) => {
    const r = await captureCommand(evalBeirCommand, ['--data', small, '--modes', 'sparse', ...flags]);
    expect(r.error?.message).toMatch(message);
    expect(r.error?.exitCode).toBe(2);
  });

  test('--data hub: with a malformed name', async () => {
    const r = await captureCommand(evalBeirCommand, ['--data', 'hub:not a repo', '--modes', 'sparse']);
    expect(r.error?.message).toMatch(/give hub:owner\/name/);
  });
});
