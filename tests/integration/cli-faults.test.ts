/**
 * The CLI on faults and edge inputs (eval-beir, eval-ragbench, ask): file-system and pipe faults, control characters
 * on a terminal, inputs with nothing to evaluate, BOMs, a RAGBench folder with one subset, modes skipped when a
 * model cannot load, and mistyped flags.
 */
import { createServer } from 'node:http';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { formatTable } from '../../src/lib/eval/retrieval/beir-eval.ts';
import {
  CAN_DROP_PRIVILEGES, captureCommand, exitOf, HAS_SCRIPT, nobodyCannotRunCli, ROOT, runCli, runCliAsNobody, runCliInTerminal, spawnCli, type CliRun,
} from '../helpers/cli.ts';
import { openaiStream, sseText, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { listenLocal } from '../helpers/listen.ts';

const RAGBENCH = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const FIXTURE_MODELS = join(ROOT, 'tests/fixtures/models');
const BOM = '\uFEFF';
/** Tests that start the CLI several times (each start compiles through tsx): generous on a loaded machine. */
const SLOW = 300_000;

const temps: string[] = [];
function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(d, 0o755); // readable by the unprivileged user of the permission tests
  temps.push(d);
  return d;
}
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

/** A three-document BEIR folder with two judged queries (and one unjudged); `bom` puts a BOM before each file. */
function tinyBeir(opts: { bom?: boolean; title?: string; qrels?: string } = {}): string {
  const dir = tempDir('rag-lab-tiny-beir-');
  const b = opts.bom ? BOM : '';
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(join(dir, 'corpus.jsonl'), b + [
    { _id: 'd1', title: opts.title ?? 'Aspirin', text: 'Aspirin reduces the risk of a heart attack in adults.' },
    { _id: 'd2', title: 'Vitamin D', text: 'Vitamin D deficiency is common in northern winters.' },
    { _id: 'd3', title: 'Sleep', text: 'Regular exercise improves sleep quality.' },
  ].map((d) => JSON.stringify(d)).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), b + [
    { _id: 'q1', text: 'aspirin heart attack' }, { _id: 'q2', text: 'vitamin D in winter' }, { _id: 'q3', text: 'sleep' },
  ].map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels/test.tsv'), b + (opts.qrels ?? 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n'));
  return dir;
}

/** A RAGBench folder holding only `subset`, its first `n` rows read from ../shared at test time; `map` edits each row. */
function oneSubset(subset: string, n: number, opts: { bom?: boolean; map?: (row: Record<string, unknown>) => Record<string, unknown> } = {}): string {
  const dir = tempDir('rag-lab-ragbench-one-');
  const lines = readFileSync(join(RAGBENCH, `${subset}.jsonl`), 'utf8').split('\n').filter(Boolean).slice(0, n);
  const rows = opts.map ? lines.map((l) => JSON.stringify(opts.map!(JSON.parse(l)))) : lines;
  writeFileSync(join(dir, `${subset}.jsonl`), (opts.bom ? BOM : '') + rows.join('\n') + '\n');
  return dir;
}

/** One line on stderr, naming `where`, exit code 2, no stack trace. */
function expectOneLine(r: CliRun, where: string, problem: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(where);
  expect(lines[0]).toMatch(problem);
  expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/);
}

describe('file-system and pipe faults', () => {
  test('missing, folder-for-file, file-for-folder and full-disk paths: one line naming the file, exit 2', async () => {
    const data = tinyBeir();
    const sub = tempDir('rag-lab-out-');

    let r = await runCli(['eval-beir', '--data', join(data, 'corpus.jsonl')]);
    expectOneLine(r, join(data, 'corpus.jsonl'), /is a file, not a folder/);

    const isDir = tinyBeir();
    rmSync(join(isDir, 'queries.jsonl'));
    mkdirSync(join(isDir, 'queries.jsonl'));
    r = await runCli(['eval-beir', '--data', isDir]);
    expectOneLine(r, join(isDir, 'queries.jsonl'), /is a folder, not a file/);

    // Output paths are refused before the corpus is indexed.
    r = await runCli(['eval-beir', '--data', data, '--run-out', sub]);
    expectOneLine(r, sub, /is a folder, not a file/);
    expect(r.stdout).not.toMatch(/indexed/);
    r = await runCli(['eval-beir', '--data', data, '--run-out', join(sub, 'no/such/x.run')]);
    expectOneLine(r, join(sub, 'no/such'), /not found/);
    expect(r.stdout).not.toMatch(/indexed/);
    r = await runCli(['eval-beir', '--data', data, '--modes', 'dense', '--cache-dir', join(data, 'corpus.jsonl', 'vectors'),
      '--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/tiny-embedder']);
    expectOneLine(r, join(data, 'corpus.jsonl'), /is a file, not a folder/);
    expect(r.stdout).not.toMatch(/indexed|loaded/);

    // ENOSPC: the run file on a full device.
    r = await runCli(['eval-beir', '--data', data, '--run-out', '/dev/full']);
    expectOneLine(r, '/dev/full', /no space left/);
  }, SLOW);

  test('stdout on a full device: one line, exit 2 (the results are not silently lost)', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const child = spawnCli(['eval-beir', '--data', tinyBeir(), '--json'], ['ignore', fd, 'pipe']);
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => { stderr += c; });
      const code = await exitOf(child);
      // (with --json the progress lines are on stderr too)
      expectOneLine({ code: code ?? -1, stdout: '', stderr: stderr.split('\n').filter((l) => !l.startsWith('indexed ')).join('\n') }, 'stdout', /no space left/);
    } finally {
      closeSync(fd);
    }
  }, SLOW);

  test.skipIf(process.getuid?.() === 0 && !CAN_DROP_PRIVILEGES)('permission denied on an input and an output: one line, exit 2', async (ctx) => {
    // As root the CLI runs as user 65534, which must be able to reach the checkout (not so under a 0700 folder).
    const unreachable = CAN_DROP_PRIVILEGES ? nobodyCannotRunCli() : null;
    if (unreachable) ctx.skip(unreachable);
    const run = CAN_DROP_PRIVILEGES ? runCliAsNobody : runCli;
    const data = tinyBeir();
    chmodSync(join(data, 'corpus.jsonl'), 0o000);
    let r = await run(['eval-beir', '--data', data]);
    expectOneLine(r, join(data, 'corpus.jsonl'), /permission denied/);

    const ro = tempDir('rag-lab-readonly-');
    chmodSync(ro, 0o555);
    r = await run(['eval-beir', '--data', tinyBeir(), '--run-out', join(ro, 'x.run')]);
    expectOneLine(r, ro, /permission denied/);
    expect(r.stdout).not.toMatch(/indexed/);
  }, SLOW);

  test('a reader that closes stdout early (| head -1) ends ask quietly with status 0', async () => {
    // The answer streams one delta, waits until the test has closed the CLI's stdout, then streams 50 more.
    const parts = openaiStream(['Lincoln proposed compensated emancipation [1]. ', ...Array.from({ length: 50 }, (_, i) => `More text ${i}. `)]);
    let release!: () => void;
    const closed = new Promise<void>((ok) => { release = ok; });
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(sseText(parts[0]!) + sseText(parts[1]!));
        await closed;
        for (const p of parts.slice(2)) res.write(sseText(p));
        res.end('data: [DONE]\n\n');
      });
    });
    const local = await listenLocal(server);
    try {
      const child = spawnCli(['ask', '--kb', 'sotu', '--provider', 'openai', '--base-url', `${local.origin}/v1`, '--model', 'm', '--api-key', 'k',
        'What did Lincoln propose about emancipation?']);
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => { stderr += c; });
      child.stdout!.once('data', () => { child.stdout!.destroy(); release(); });
      const code = await exitOf(child);
      expect(stderr).toBe('');
      expect(code).toBe(0);
    } finally {
      release();
      await local.close();
    }
  }, SLOW);
});

describe('control characters from data and models', () => {
  let llm: LlmServer;
  afterAll(async () => { await llm?.close(); });
  const ANSWER = 'Aspirin helps \x1b[31mred\x1b[0m\x1b]0;title\x07 \u202Eexe.txt [1]';

  test.skipIf(!HAS_SCRIPT)('on a terminal they are escaped; with --json the line is still the same JSON', async () => {
    llm = await startLlmServer({ fallback: { sse: openaiStream([ANSWER.slice(0, 20), ANSWER.slice(20)]) } });
    const kb = tinyBeir({ title: 'Aspirin \u202Egnp.exe \x1b[2J' });
    const args = ['ask', '--kb', kb, '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'm', '--api-key', 'k', 'aspirin heart attack'];
    const human = await runCliInTerminal(args);
    expect(human.code, human.stdout).toBe(0);
    expect(human.stdout).toContain('Aspirin helps \\u001b[31mred\\u001b[0m\\u001b]0;title\\u0007 \\u202eexe.txt [1]');
    expect(human.stdout).toContain('Aspirin \\u202egnp.exe \\u001b[2J');
    expect(human.stdout).not.toMatch(/[\u001b\u0007\u202e]/);

    const json = await runCliInTerminal([...args, '--json']);
    expect(json.code, json.stdout).toBe(0);
    expect(json.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    const out = JSON.parse(json.stdout.trim().split(/\r?\n/).at(-1)!);
    expect(out.answer).toBe(ANSWER);

    // Into a pipe the bytes stay as they are.
    const piped = await runCli([...args, '--json']);
    expect(JSON.parse(piped.stdout.trim().split('\n').at(-1)!).answer).toBe(ANSWER);
  }, SLOW);
});

describe('inputs with nothing to evaluate', () => {
  test('eval-beir: no judged query, and an empty corpus, exit 2 with the reason', async () => {
    const unjudged = tinyBeir({ qrels: 'query-id\tcorpus-id\tscore\nq9\td1\t1\n' });
    let r = await runCli(['eval-beir', '--data', unjudged, '--json']);
    expectOneLine(r, join(unjudged, 'queries.jsonl'), /nothing to evaluate: none of the 3 queries .* is judged/);
    expect(r.stdout).toBe('');

    const empty = tinyBeir();
    writeFileSync(join(empty, 'corpus.jsonl'), '\n');
    r = await runCli(['eval-beir', '--data', empty]);
    expectOneLine(r, join(empty, 'corpus.jsonl'), /no documents/);
  }, SLOW);

  test('eval-ragbench: an empty subset file, and rows without any gold label, exit 2 with the reason', async () => {
    const dir = tempDir('rag-lab-ragbench-empty-');
    writeFileSync(join(dir, 'emanual.jsonl'), BOM + '\n');
    let r = await captureCommand(evalRagbenchCommand, ['--data', dir]);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toBe(`nothing to evaluate: ${join(dir, 'emanual.jsonl')} has no rows`);

    const unlabelled = oneSubset('emanual', 5, {
      map: (row) => ({ ...row, adherence_score: null, relevance_score: null, utilization_score: null, completeness_score: null }),
    });
    r = await captureCommand(evalRagbenchCommand, ['--data', unlabelled]);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toMatch(/^nothing to evaluate: no row of .*emanual\.jsonl has a gold label/);
  });

  test('a metric without data is printed as n/a (and is null in JSON)', async () => {
    const nan = { 'ndcg@10': NaN, 'mrr@10': NaN, 'p@3': NaN, 'p@5': NaN, 'r@5': NaN, 'r@100': NaN, mean_ms: NaN, p95_ms: NaN };
    const table = formatTable({ dataset: 'x', queries: 0, modes: { sparse: nan }, skipped: {} });
    expect(table.split('\n').at(-1)!.trim().split(/\s+/)).toEqual(['sparse', ...Array(8).fill('n/a')]);
    expect(JSON.parse(JSON.stringify(nan))['ndcg@10']).toBeNull();
    // The first 20 delucionqa rows hold no hallucination: AUROC has no data, n/a in the table, null in JSON, never 0.
    const dir = oneSubset('delucionqa', 20);
    const human = await captureCommand(evalRagbenchCommand, ['--data', dir]);
    expect(human.error).toBeNull();
    const row = human.out.split('\n').find((l) => /^delucionqa\s+20\s/.test(l))!.trim().split(/\s+/);
    expect(row.slice(0, 9)).toEqual(['delucionqa', '20', '0', '|', 'n/a', 'n/a', 'n/a', 'n/a', '|']);
    expect(Number(row[9])).toBeGreaterThan(0); // RMSE of relevance does have data
    const json = await captureCommand(evalRagbenchCommand, ['--data', dir, '--json']);
    const out = JSON.parse(json.out.trim().split('\n').at(-1)!);
    expect(out.subsets.delucionqa.auroc).toBeNull();
    expect(out.mean_auroc).toBeNull();
    expect(typeof out.subsets.delucionqa.rmse_relevance).toBe('number');
  });
});

describe('BOMs, partial RAGBench folders, skipped modes, mistyped flags', () => {
  test('eval-beir reads corpus, queries and qrels that start with a UTF-8 BOM', async () => {
    const r = await runCli(['eval-beir', '--data', tinyBeir({ bom: true }), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out.queries).toBe(2);
    expect(out.modes.sparse['mrr@10']).toBe(1); // each query's one relevant document ranks first
  }, SLOW);

  test('eval-ragbench evaluates the one subset file a folder holds (with a BOM), says so, and names a missing --subsets file', async () => {
    const dir = oneSubset('hotpotqa', 30, { bom: true });
    const r = await captureCommand(evalRagbenchCommand, ['--data', dir, '--json']);
    expect(r.error).toBeNull();
    expect(r.err).toContain(`found 1 of 7 subset files in ${dir}: hotpotqa`);
    const out = JSON.parse(r.out.trim().split('\n').at(-1)!);
    expect(Object.keys(out.subsets)).toEqual(['hotpotqa']);
    expect(out.subsets.hotpotqa.n).toBe(30);

    const missing = await captureCommand(evalRagbenchCommand, ['--data', dir, '--subsets', 'hotpotqa,covidqa']);
    expect(missing.error?.exitCode).toBe(2);
    expect(missing.error?.message).toMatch(new RegExp(`^${join(dir, 'covidqa.jsonl')}: subset file not found`));

    const none = await captureCommand(evalRagbenchCommand, ['--data', tempDir('rag-lab-ragbench-none-')]);
    expect(none.error?.exitCode).toBe(2);
    expect(none.error?.message).toMatch(/holds no RAGBench subset file/);
  });

  test('--modes all with an embedder that cannot load: sparse is reported and written, the rest named with the reason, exit 2', async () => {
    const runFile = join(tempDir('rag-lab-run-'), 'all.run');
    const r = await runCli(['eval-beir', '--data', tinyBeir(), '--modes', 'all', '--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/no-such-model',
      '--reranker', 'rag-lab/tiny-cross-encoder', '--no-cache', '--json', '--run-out', runFile]);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(Object.keys(out.modes)).toEqual(['sparse']);
    expect(out.modes.sparse['mrr@10']).toBe(1);
    expect(Object.keys(out.skipped).sort()).toEqual(['dense', 'hybrid_calibrated', 'hybrid_calibrated_rerank', 'hybrid_fixed', 'hybrid_fixed_rerank', 'rrf']);
    expect(r.stderr).toMatch(/^dense: skipped: the embedding model could not load \(.*rag-lab\/no-such-model/m);
    expect(r.stderr).toMatch(/rag-lab eval-beir: 6 of 7 modes skipped \(dense, .*\); the results of the others are above/);
    expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/);
    expect(readFileSync(runFile, 'utf8').trim().split('\n').every((l) => l.endsWith(' rag-lab-sparse'))).toBe(true);
  }, SLOW);

  test('--modes all with a cross-encoder that cannot load: only the reranking modes are skipped', async () => {
    const r = await runCli(['eval-beir', '--data', tinyBeir(), '--modes', 'all', '--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/tiny-embedder',
      '--reranker', 'rag-lab/no-such-reranker', '--no-cache']);
    expect(r.code).toBe(2);
    for (const m of ['sparse', 'dense', 'hybrid_fixed', 'hybrid_calibrated', 'rrf']) expect(r.stdout).toMatch(new RegExp(`^${m}\\s+[\\d.]+`, 'm'));
    expect(r.stderr).toMatch(/^hybrid_fixed_rerank: skipped: the cross-encoder could not load \(.*no-such-reranker/m);
    expect(r.stderr).toMatch(/^hybrid_calibrated_rerank: skipped: the cross-encoder could not load/m);
    expect(r.stderr).toMatch(/2 of 7 modes skipped/);
  }, SLOW);

  test('an unknown flag names the nearest one, exit 2', async () => {
    const r = await runCli(['eval-beir', '--data', tinyBeir(), '--mdoes', 'all']);
    expectOneLine(r, '--mdoes', /^rag-lab eval-beir: unknown option --mdoes \(did you mean --modes\?\)/);
    const rb = await captureCommand(evalRagbenchCommand, ['--data', RAGBENCH, '--subset', 'emanual']);
    expect(rb.error?.exitCode).toBe(2);
    expect(rb.error?.message).toMatch(/unknown option --subset \(did you mean --subsets\?\)/);
  }, SLOW);
});
