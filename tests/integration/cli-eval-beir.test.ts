/** `rag-lab eval-beir` end to end on BEIR SciFact from ../shared, and its errors on bad folders. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SCIFACT, scifactSubset } from '../helpers/beir-subset.ts';
import { runCli as cli } from '../helpers/cli.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE_MODELS = join(ROOT, 'tests/fixtures/models');

const temps: string[] = [];
function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

describe('rag-lab eval-beir', () => {
  test('BM25 on SciFact test reaches BEIR-level NDCG@10 and writes a TREC run', async () => {
    expect(existsSync(join(SCIFACT, 'corpus.jsonl')), `SciFact not found at ${SCIFACT}`).toBe(true);
    const runFile = join(tempDir('rag-lab-run-'), 'sparse.run');
    const { code, stdout, stderr } = await cli(['eval-beir', '--data', SCIFACT, '--modes', 'sparse', '--json', '--run-out', runFile]);
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(result.dataset).toBe('scifact');
    expect(result.queries).toBe(300);
    const m = result.modes.sparse;
    expect(m['ndcg@10']).toBeGreaterThanOrEqual(0.66);
    for (const k of ['mrr@10', 'p@3', 'p@5', 'r@5', 'r@100', 'mean_ms', 'p95_ms']) expect(typeof m[k]).toBe('number');
    expect(m['r@100']).toBeGreaterThan(m['r@5']);
    expect(m.p95_ms).toBeGreaterThanOrEqual(m.mean_ms * 0.5);
    const lines = readFileSync(runFile, 'utf8').trim().split('\n');
    // Up to 100 documents per query (BM25 returns only documents that share a term with the query).
    const perQuery = new Map<string, number>();
    for (const l of lines) { const q = l.split(' ')[0]!; perQuery.set(q, (perQuery.get(q) ?? 0) + 1); }
    expect(perQuery.size).toBe(300);
    expect(Math.max(...perQuery.values())).toBe(100);
    expect(lines[0]).toMatch(/^\S+ Q0 \S+ 1 [-\d.e+]+ rag-lab-sparse$/);
  });

  test('chunked SciFact ranks documents by their best chunk', async () => {
    const { code, stdout, stderr } = await cli(['eval-beir', '--data', SCIFACT, '--modes', 'sparse', '--chunk']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/as \d+ chunks/);
    const row = stdout.split('\n').find((l) => l.startsWith('sparse'))!;
    expect(Number(row.trim().split(/\s+/)[1])).toBeGreaterThan(0.6);
  });

  test('a missing file or a malformed line exits with code 2 and names the file and line', async () => {
    const dir = tempDir('rag-lab-beir-');
    let r = await cli(['eval-beir', '--data', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(dir, 'corpus.jsonl'));
    expect(r.stderr).toMatch(/file not found/);

    writeFileSync(join(dir, 'corpus.jsonl'), '{"_id": "d1", "title": "", "text": "ok"}\n{"_id": "d2", "title": 3}\n');
    writeFileSync(join(dir, 'queries.jsonl'), '{"_id": "q1", "text": "ok"}\n');
    mkdirSync(join(dir, 'qrels'));
    writeFileSync(join(dir, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    r = await cli(['eval-beir', '--data', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'corpus.jsonl')}:2`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace

    writeFileSync(join(dir, 'corpus.jsonl'), '{"_id": "d1", "title": "", "text": "ok"}\n');
    writeFileSync(join(dir, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq1 d1 1\n');
    r = await cli(['eval-beir', '--data', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'qrels/test.tsv')}:2`);

    r = await cli(['eval-beir', '--data', dir, '--modes', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown mode "bogus"/);
  });

  test('--modes all runs every mode with local fixture models and caches the embeddings', async () => {
    const data = scifactSubset({ queries: 30, others: 300, parent: tempDir('rag-lab-scifact-subset-') });
    const cache = tempDir('rag-lab-vectors-');
    // 20 candidates a query: the rerank modes score 20 pairs a query, not 100 (the depth does not change what is tested).
    const args = (modes: string) => ['eval-beir', '--data', data, '--modes', modes, '--candidate-k', '20', '--models-dir', FIXTURE_MODELS,
      '--embedder', 'rag-lab/tiny-embedder', '--reranker', 'rag-lab/tiny-cross-encoder', '--cache-dir', cache, '--json'];
    const first = await cli(args('all'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/embeddings computed/);
    const result = JSON.parse(first.stdout.trim().split('\n').at(-1)!);
    expect(result.queries).toBe(30);
    expect(Object.keys(result.modes).sort()).toEqual(['dense', 'hybrid_calibrated', 'hybrid_calibrated_rerank', 'hybrid_fixed', 'hybrid_fixed_rerank', 'rrf', 'sparse']);
    for (const [mode, m] of Object.entries(result.modes) as Array<[string, Record<string, number>]>) {
      for (const k of ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100']) {
        expect(m[k], `${mode} ${k}`).toBeGreaterThanOrEqual(0);
        expect(m[k], `${mode} ${k}`).toBeLessThanOrEqual(1);
      }
    }
    // BM25 is unaffected by loading models (the fixture embedder itself is meaningless).
    expect(result.modes.sparse['ndcg@10']).toBeGreaterThan(0.5);
    // Again (one fused mode is enough): the document vectors come from the cache and give the same figures.
    const second = await cli(args('rrf'));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/embeddings from cache/);
    expect(JSON.parse(second.stdout.trim().split('\n').at(-1)!).modes.rrf['ndcg@10']).toBe(result.modes.rrf['ndcg@10']);
  }, 600_000); // two runs that embed 330 documents (one reranks): minutes each on a loaded machine

  test('a model that does not exist locally is a clear error with exit code 2', async () => {
    const r = await cli(['eval-beir', '--data', SCIFACT, '--modes', 'dense', '--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/no-such-model', '--no-cache']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rag-lab\/no-such-model/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('--report-out: ONE retrieval report with every mode (groups = modes, predictors on each row), figures equal to --json, path checked before work', async () => {
    const data = scifactSubset({ queries: 20, others: 200, parent: tempDir('rag-lab-scifact-report-') });
    const out = tempDir('rag-lab-beir-report-');
    const file = join(out, 'run.json');
    const modes = ['sparse', 'dense', 'hybrid_calibrated'];
    const r = await cli(['eval-beir', '--data', data, '--modes', modes.join(','), '--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/tiny-embedder',
      '--no-cache', '--json', '--report-out', file]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(Object.keys(json).sort()).toEqual(['dataset', 'modes', 'queries', 'skipped']);
    expect(r.stderr).toContain(`report written to ${file}`);
    const parsed = parseReportText(readFileSync(file, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    const rep = parsed.report;
    expect(rep).toMatchObject({ kind: 'retrieval', evaluator: 'modes', data: { dataset: 'scifact-subset', subsets: ['test'], source: 'local' } });
    expect(rep.config).toMatchObject({ modes, protocol: 'default', depth: 100, candidateK: 100, split: 'test', chunking: null, k1: 0.9, b: 0.4, calibration: 'cdf', entropyBasis: 'calibrated', growPool: true, index: 'auto', embedder: 'rag-lab/tiny-embedder@fp32', predictors: true });
    expect(rep.environment.runtime).toBe('node');
    expect(rep.environment.models.map((m) => m.task)).toEqual(['embedder']);
    expect(rep.rows).toHaveLength(60);
    expect([...new Set(rep.rows.map((row) => row.group))]).toEqual(modes);
    expect(rep.summary.extra).toMatchObject({ queries: 20, unjudged: 0, skipped_modes: {} });
    for (const row of rep.rows) {
      expect(row.key).toBe(`${row.group}:${row.key.split(':')[1]}`);
      expect(row.retrieved!.length).toBeLessThanOrEqual(10);
      expect(row.question.length).toBeGreaterThan(0);
      for (const f of ['qpp.entropy.sparse.raw', 'qpp.entropy.dense.cdf', 'qpp.alpha.fusion.raw', 'qpp.nqc.sparse', 'qpp.wig.dense', 'qpp.clarity.sparse']) expect(f in row.scores, `${row.key} ${f}`).toBe(true);
      expect(typeof row.scores['query_ms']).toBe('number');
    }
    for (const mode of modes) {
      for (const k of ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100']) {
        const m = rep.summary.metrics.find((x) => x.id === k && x.group === mode)!;
        expect(m.value, `${mode} ${k}`).toBeCloseTo(json.modes[mode][k], 10);
        expect(m.n).toBe(20);
      }
      const ms = (rep.summary.extra['modes'] as Array<Record<string, unknown>>).find((x) => x['mode'] === mode)!;
      expect(ms['mean_ms']).toBeCloseTo(json.modes[mode].mean_ms, 10);
    }
    // The predictors describe the query, not the mode: the same on each mode's row of a query.
    const q = rep.rows[0]!.key.split(':')[1];
    const qpp = (row: (typeof rep.rows)[number]) => Object.entries(row.scores).filter(([k]) => k.startsWith('qpp.'));
    const rowsOfQ = rep.rows.filter((row) => row.key.endsWith(`:${q}`));
    expect(rowsOfQ).toHaveLength(3);
    for (const row of rowsOfQ) expect(qpp(row)).toEqual(qpp(rowsOfQ[0]!));
    // --no-predictors: the same figures, rows without qpp fields.
    const plain = join(out, 'plain.json');
    const np = await cli(['eval-beir', '--data', data, '--modes', 'sparse', '--no-predictors', '--json', '--report-out', plain]);
    expect(np.code, np.stderr).toBe(0);
    expect(JSON.parse(np.stdout.trim().split('\n').at(-1)!).modes.sparse).toMatchObject({ 'ndcg@10': json.modes.sparse['ndcg@10'] });
    const pr = parseReportText(readFileSync(plain, 'utf8'));
    if (!pr.ok) throw new Error(pr.message);
    expect(pr.report.evaluator).toBe('sparse');
    expect(pr.report.rows.every((row) => Object.keys(row.scores).every((k) => !k.startsWith('qpp.')))).toBe(true);
    // A report path in a folder that does not exist fails before anything is indexed.
    const bad = await cli(['eval-beir', '--data', data, '--report-out', join(out, 'no-such-dir', 'r.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--report-out .*folder .* not found/);
    expect(bad.stdout).not.toMatch(/indexed/);
  });
});
