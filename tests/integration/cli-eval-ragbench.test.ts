/** `rag-lab eval-ragbench` end to end on the RAGBench test split from ../shared, and its errors. */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { CliError } from '../../cli/args.ts';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { sampleRows } from '../../src/lib/eval/ragbench-validate.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const CLI = join(ROOT, 'cli/rag-lab.js');
const SUBSETS = ['covidqa', 'delucionqa', 'emanual', 'expertqa', 'hagrid', 'hotpotqa', 'msmarco'];

const temps: string[] = [];
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd: ROOT, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The fake judge: prose (unparsable) when the question's length is a multiple of 3, else JSON with a trailing comma. */
function judgeRule(question: string): string {
  if (question.length % 3 === 0) return 'I am not sure.';
  return '{"overall_supported": true, "all_relevant_sentence_keys": ["0a", "0b", "9z"], "all_utilized_sentence_keys": ["0a"],}';
}

describe('rag-lab eval-ragbench', () => {
  test('lexical validate on all seven subsets: mean hallucination AUROC >= 0.66, baselines side by side', async () => {
    expect(existsSync(join(DATA, 'hagrid.jsonl')), `RAGBench not found at ${DATA}`).toBe(true);
    const { code, stdout, stderr } = await cli(['eval-ragbench', '--data', DATA, '--evaluator', 'lexical', '--mode', 'validate', '--json']);
    expect(code, stderr).toBe(0);
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(Object.keys(out.subsets)).toEqual(SUBSETS);
    expect(out.subsets.hagrid.n).toBe(1318);
    expect(out.subsets.delucionqa.n).toBe(184);
    for (const s of SUBSETS) {
      const r = out.subsets[s];
      for (const k of ['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']) expect(typeof r[k], `${s} ${k}`).toBe('number');
      for (const k of ['auroc', 'rmse_relevance']) {
        expect(typeof r.baselines.ragas[k]).toBe('number');
        expect(typeof r.baselines.trulens[k]).toBe('number');
        expect(typeof r.baselines.gpt3[k]).toBe('number');
      }
      expect(typeof r.baselines.gpt3.rmse_utilization).toBe('number');
      expect(r.auroc).toBeGreaterThan(0.5);
    }
    const mean = SUBSETS.reduce((a, s) => a + out.subsets[s].auroc, 0) / SUBSETS.length;
    expect(out.mean_auroc).toBeCloseTo(mean, 12);
    expect(out.mean_auroc).toBeGreaterThanOrEqual(0.66);
    // The published baselines on these rows.
    expect(out.mean_baselines.ragas).toBeCloseTo(0.620, 3);
    expect(out.mean_baselines.trulens).toBeCloseTo(0.638, 3);
    expect(out.mean_baselines.gpt3).toBeCloseTo(0.580, 3);
  });

  test('human output: a per-subset table of ours vs baselines', async () => {
    const a = await cli(['eval-ragbench', '--data', DATA, '--subsets', 'emanual,hotpotqa', '--n', '40', '--seed', '3']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/AUROC:\s+ours\s+ragas\s+trulens\s+gpt3/);
    expect(a.stdout).toMatch(/^emanual\s+40\s/m);
    expect(a.stdout).toMatch(/^hotpotqa\s+40\s/m);
    expect(a.stdout).toMatch(/^mean\s+80\s/m);
  });

  test('nli evaluator with the fixture models', async () => {
    const { code, stdout, stderr } = await cli(['eval-ragbench', '--data', DATA, '--subsets', 'emanual', '--evaluator', 'nli', '--n', '3',
      '--models-dir', 'tests/fixtures/models', '--reranker', 'rag-lab/tiny-cross-encoder', '--nli', 'rag-lab/tiny-nli', '--json']);
    expect(code, stderr).toBe(0);
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!).subsets.emanual;
    expect(r.n).toBe(3);
    expect(typeof r.rmse_relevance).toBe('number');
    expect(typeof r.rmse_utilization).toBe('number');
    expect(r.rmse_completeness).toBeNull(); // RAGBench has no gold answer
  });

  test('a missing folder exits with code 2 and a message', async () => {
    const noDir = await cli(['eval-ragbench', '--data', join(tmpdir(), 'rag-lab-no-such-dir')]);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(/rag-lab eval-ragbench: .*folder not found/);
  });

  describe('in process', () => {
    /** Runs the command in this process; returns what it printed, or the CliError it threw. */
    async function inProcess(args: string[]): Promise<{ out: string; error: CliError | null }> {
      const lines: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
      const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        await evalRagbenchCommand(args);
        return { out: lines.join('\n'), error: null };
      } catch (e) {
        if (e instanceof CliError) return { out: lines.join('\n'), error: e };
        throw e;
      } finally {
        log.mockRestore();
        err.mockRestore();
      }
    }

    test('sampling with --n/--seed is reproducible', async () => {
      const args = ['--data', DATA, '--subsets', 'covidqa', '--n', '30', '--seed', '5', '--json'];
      const a = await inProcess(args);
      const b = await inProcess(args);
      const c = await inProcess(['--data', DATA, '--subsets', 'covidqa', '--n', '30', '--seed', '6', '--json']);
      expect(a.error).toBeNull();
      expect(a.out).toBe(b.out);
      expect(JSON.parse(a.out).subsets.covidqa.n).toBe(30);
      expect(c.out).not.toBe(a.out);
    });

    test('llm evaluator against a local OpenAI-compatible server: JSON mode, keys scored, unparsable replies left out', async () => {
      const bodies: Record<string, unknown>[] = [];
      let calls = 0;
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => { body += c; });
        req.on('end', () => {
          bodies.push(JSON.parse(body));
          calls++;
          const prompt = String((JSON.parse(body).messages as { content: string }[]).at(-1)!.content);
          const question = /The question was:\n"{3}\n([\s\S]*?)\n"{3}/.exec(prompt)![1]!;
          const reply = judgeRule(question);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({
            id: 'x', object: 'chat.completion', model: 'judge',
            choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }));
        });
      });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      try {
        const port = (server.address() as AddressInfo).port;
        const r = await inProcess(['--data', DATA, '--subsets', 'hotpotqa', '--n', '9', '--evaluator', 'llm', '--provider', 'openai',
          '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'judge', '--concurrency', '3', '--json']);
        expect(r.error).toBeNull();
        expect(bodies).toHaveLength(9);
        expect(bodies[0]).toMatchObject({ model: 'judge', temperature: 0, response_format: { type: 'json_object' } });
        expect(calls).toBe(9);
        const out = JSON.parse(r.out).subsets.hotpotqa;
        expect(out.n).toBe(9);
        // Independently: the same sample, the same rule, scores from the keys by hand, a plain-loop RMSE.
        const rows = sampleRows(parseRagbenchJsonl(readFileSync(join(DATA, 'hotpotqa.jsonl'), 'utf8'), 'hotpotqa').rows, 9, 0);
        let se = 0, k = 0, failed = 0;
        for (const row of rows) {
          if (!judgeRule(row.question.trim()).startsWith('{')) { failed++; continue; } // the prompt shows the question trimmed
          const keys = new Set(row.documents_sentences.flat().map(([key]) => key));
          const rel = ['0a', '0b'].filter((x) => keys.has(x)).length / keys.size;
          se += (rel - row.relevance_score!) ** 2; k++;
        }
        expect(failed).toBeGreaterThan(0);
        expect(k).toBeGreaterThan(0);
        expect(out.rmse_relevance).toBeCloseTo(Math.sqrt(se / k), 6);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((ok) => server.close(() => ok()));
      }
    });

    test('errors: missing subset, bad flags, malformed rows, llm without a provider (all exit code 2)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rag-lab-ragbench-'));
      temps.push(dir);
      writeFileSync(join(dir, 'covidqa.jsonl'), '{"id": "1"}\nnot json\n');
      const cases: [string[], RegExp][] = [
        [['--data', DATA, '--subsets', 'covidqa,nosuch'], /nosuch\.jsonl: subset file not found/],
        [[], /--data is required/],
        [['--data', DATA, '--evaluator', 'magic'], /--evaluator must be one of lexical, nli, llm/],
        [['--data', DATA, '--mode', 'generate'], /--mode must be validate/],
        [['--data', DATA, '--n', '0'], /--n must be a positive integer/],
        [['--data', DATA, '--bogus'], /bogus/],
        [['--data', dir, '--subsets', 'covidqa'], /covidqa: no valid row in 2 \(first problem: covidqa line 1: question: missing/],
        [['--data', DATA, '--subsets', 'emanual', '--evaluator', 'llm', '--n', '1'], /--evaluator llm needs --provider/],
        [['--data', DATA, '--subsets', 'emanual', '--evaluator', 'llm', '--provider', 'openai', '--n', '1'], /--evaluator llm needs --model/],
      ];
      for (const [args, message] of cases) {
        const r = await inProcess(args);
        expect(r.error, args.join(' ')).not.toBeNull();
        expect(r.error!.exitCode).toBe(2);
        expect(r.error!.message).toMatch(message);
      }
    });
  });
});
