/** `rag-lab eval-beir` end to end on BEIR SciFact from ../shared, and its errors on bad folders. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const SCIFACT = process.env.RAG_LAB_SCIFACT ?? resolve(ROOT, '../shared/data/scifact');
const CLI = join(ROOT, 'cli/rag-lab.js');

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd: ROOT, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('rag-lab eval-beir', () => {
  test('BM25 on SciFact test reaches BEIR-level NDCG@10 and writes a TREC run', async () => {
    expect(existsSync(join(SCIFACT, 'corpus.jsonl')), `SciFact not found at ${SCIFACT}`).toBe(true);
    const runFile = join(mkdtempSync(join(tmpdir(), 'rag-lab-run-')), 'sparse.run');
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
    const dir = mkdtempSync(join(tmpdir(), 'rag-lab-beir-'));
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
});
