/** `rag-lab eval-ragbench` end to end on the RAGBench test split from ../shared, and its errors. */
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { sampleRows } from '../../src/lib/eval/ragbench/validate-mode.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';
import { captureCommand, runCli as cli } from '../helpers/cli.ts';
import { listenLocal } from '../helpers/listen.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const SUBSETS = ['covidqa', 'delucionqa', 'emanual', 'expertqa', 'hagrid', 'hotpotqa', 'msmarco'];

const temps: string[] = [];
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });


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
  }, 180_000); // 4,110 rows with 1,000 bootstrap resamples: ~30 s alone, far more on a busy machine

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
    const inProcess = (args: string[]) => captureCommand(evalRagbenchCommand, args);

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

    test('a 20-row sample with one hallucinated row: intervals next to each figure and a warning, in text and --json', async () => {
      const args = ['--data', DATA, '--subsets', 'emanual', '--n', '20', '--seed', '0'];
      const j = await inProcess([...args, '--json']);
      expect(j.error).toBeNull();
      const r = JSON.parse(j.out).subsets.emanual;
      expect(r.hallucinations).toBe(1);
      expect(r.auroc).toBe(1);
      expect(r.warnings).toEqual(['AUROC from 1 hallucinated row: not meaningful (fewer than 10; score more rows)']);
      for (const m of ['rmse_relevance', 'rmse_utilization', 'rmse_completeness']) {
        const [lo, hi] = r.intervals[m];
        expect(lo, m).toBeLessThan(r[m]);
        expect(hi, m).toBeGreaterThan(r[m]);
      }
      expect(r.auroc_ci).toEqual(r.intervals.auroc);
      const t = await inProcess(args);
      expect(t.out).toMatch(/^  emanual: AUROC 1\.000 \[1\.000, 1\.000\] · RMSE rel 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] · util /m);
      expect(t.out).toContain('warning: emanual: AUROC from 1 hallucinated row: not meaningful');
      const none = await inProcess([...args, '--json', '--bootstrap', '0']);
      expect(JSON.parse(none.out).subsets.emanual.intervals).toBeUndefined();
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
      const local = await listenLocal(server);
      try {
        const r = await inProcess(['--data', DATA, '--subsets', 'hotpotqa', '--n', '9', '--evaluator', 'llm', '--provider', 'openai',
          '--base-url', `${local.origin}/v1`, '--model', 'judge', '--concurrency', '3', '--json']);
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
        await local.close();
      }
    });

    test('--report-out writes a valid report whose per-subset figures equal --json; its rows are the scored rows', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rag-lab-ragbench-report-'));
      temps.push(dir);
      const file = join(dir, 'validate.json');
      const r = await inProcess(['--data', DATA, '--subsets', 'emanual,covidqa', '--n', '25', '--seed', '1', '--json', '--report-out', file]);
      expect(r.error).toBeNull();
      expect(r.err).toContain(`report written to ${file} (50 rows)`);
      const out = JSON.parse(r.out.trim().split('\n').at(-1)!);
      const parsed = parseReportText(readFileSync(file, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.message);
      const rep = parsed.report;
      expect(rep).toMatchObject({ kind: 'ragbench-validate', evaluator: 'lexical', seed: 1, n: 25, data: { dataset: 'rungalileo/ragbench', subsets: ['emanual', 'covidqa'], source: 'local', kb: null } });
      expect(rep.config).toMatchObject({ mode: 'validate', evaluator: 'lexical', n: 25, seed: 1, subsets: ['emanual', 'covidqa'] });
      expect(rep.environment.agent).toBe(`node ${process.version} (${process.platform})`);
      expect(rep.rows).toHaveLength(50);
      const expected = sampleRows(parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows, 25, 1).map((x) => `emanual:${x.id}\u241f${x.generation_model_name}`);
      expect(rep.rows.slice(0, 25).map((x) => x.key)).toEqual(expected);
      for (const s of ['emanual', 'covidqa']) {
        const fig = (id: string) => rep.summary.metrics.find((m) => m.id === id && m.group === s)!;
        for (const k of ['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']) {
          if (out.subsets[s][k] === null) expect(fig(k).value).toBeNull();
          else expect(fig(k).value, `${s} ${k}`).toBeCloseTo(out.subsets[s][k], 12);
        }
        expect(rep.summary.baselines).toContainEqual({ group: s, evaluator: 'ragas', metric: 'auroc', value: out.subsets[s].baselines.ragas.auroc });
      }
      // Pooled: over the 50 rows, as the per-subset figures are over their 25.
      const pooled = rep.summary.metrics.find((m) => m.id === 'rmse_relevance' && m.group === null)!;
      const both = rep.rows.filter((x) => typeof x.scores['relevance'] === 'number' && typeof x.gold['relevance'] === 'number');
      expect(both.length).toBeGreaterThan(40);
      const se = both.reduce((a, x) => a + (x.scores['relevance']! - (x.gold['relevance'] as number)) ** 2, 0);
      expect(pooled.value).toBeCloseTo(Math.sqrt(se / both.length), 12);
      // The text output is unchanged by the flag.
      const plain = await inProcess(['--data', DATA, '--subsets', 'emanual,covidqa', '--n', '25', '--seed', '1']);
      const withReport = await inProcess(['--data', DATA, '--subsets', 'emanual,covidqa', '--n', '25', '--seed', '1', '--report-out', join(dir, 'b.json')]);
      const table = (t: string) => t.split('\n').filter((l) => !/rows scored in/.test(l)).join('\n');
      expect(table(withReport.out)).toBe(table(plain.out));
      const bad = await inProcess(['--data', DATA, '--subsets', 'emanual', '--report-out', join(dir, 'nope', 'r.json')]);
      expect(bad.error?.exitCode).toBe(2);
      expect(bad.error?.message).toMatch(/--report-out .*folder .* not found/);
    });

    test('errors: missing subset, bad flags, malformed rows, llm without a provider (all exit code 2)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rag-lab-ragbench-'));
      temps.push(dir);
      writeFileSync(join(dir, 'covidqa.jsonl'), '{"id": "1"}\nnot json\n');
      const cases: [string[], RegExp][] = [
        [['--data', DATA, '--subsets', 'covidqa,nosuch'], /nosuch\.jsonl: subset file not found/],
        [[], /--data is required/],
        [['--data', DATA, '--evaluator', 'magic'], /--evaluator must be one of lexical, nli, llm/],
        [['--data', DATA, '--mode', 'generate'], /--mode must be one of validate, pipeline, got "generate"/],
        [['--data', DATA, '--n', '0'], /--n must be an integer in \[1, 1000000\], got "0"/],
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
