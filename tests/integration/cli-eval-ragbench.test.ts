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
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.ts';
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

  describe('API runs: pipeline mode, judge repeats, estimates and usage (in process, local OpenAI-compatible server)', () => {
    const KEY = 'sk-test-0123456789abcdefSECRET';

    const capture = (args: string[]) => captureCommand(evalRagbenchCommand, args);

    type Body = { stream?: boolean; model: string; messages: { role: string; content: string }[]; temperature?: number };

    /** The answer model copies the first sentence of source 1; the judge alternates its verdict per question. */
    async function server(): Promise<{ srv: LlmServer; answers: () => RecordedRequest[]; judges: () => RecordedRequest[] }> {
      const judgeCalls = new Map<string, number>();
      const srv = await startLlmServer({
        fallback: (req) => {
          const body = req.body as Body;
          const user = body.messages.at(-1)!.content;
          if (body.stream) {
            const src = /<source id="1"[^>]*>\n([\s\S]*?)\n<\/source>/.exec(user)![1]!.trim();
            const text = `${/^[\s\S]*?[.!?](?=\s|$)/.exec(src)?.[0] ?? src} [1]`;
            return { sse: openaiStream([text.slice(0, 7), text.slice(7)], { usage: { prompt_tokens: 900, completion_tokens: 12 } }) };
          }
          const q = /The question was:\n"{3}\n([\s\S]*?)\n"{3}/.exec(user)![1]!;
          const i = judgeCalls.get(q) ?? 0;
          judgeCalls.set(q, i + 1);
          const reply = i === 2 ? 'no JSON, sorry' : JSON.stringify({ overall_supported: i % 2 === 0, all_relevant_sentence_keys: ['0a'], all_utilized_sentence_keys: ['0a'] });
          return openaiCompletion(reply, { usage: { prompt_tokens: 2000, completion_tokens: 50 } });
        },
      });
      return {
        srv,
        answers: () => srv.requests.filter((r) => (r.body as Body).stream === true),
        judges: () => srv.requests.filter((r) => (r.body as Body).stream !== true),
      };
    }

    const tokensOf = (reqs: RecordedRequest[]) => reqs.reduce((a, r) => a + (r.body as Body).messages.reduce((b, m) => b + Math.ceil(m.content.length / 4), 0), 0);

    test('pipeline mode, --n 5 --json: answers, recall, estimate = the prompts sent, usage as reported, key never printed', async () => {
      const { srv, answers } = await server();
      try {
        const r = await capture(['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline', '--provider', 'openai', '--base-url', `${srv.url}/v1`,
          '--model', 'answer-model', '--api-key', KEY, '--n', '5', '--seed', '2', '--rpm', '1000', '--json']);
        expect(r.error).toBeNull();
        const out = JSON.parse(r.out.trim().split('\n').at(-1)!);
        expect(out).toMatchObject({ evaluator: 'lexical', mode: 'pipeline', provider: 'openai', model: 'answer-model', retrieval: { mode: 'sparse', top_k: 5 } });
        const e = out.subsets.emanual;
        expect(e.n).toBe(5);
        expect(e.rows).toHaveLength(5);
        expect(e.kb.documents).toBe(101);
        const answered = e.statuses.answered as number;
        expect(answers()).toHaveLength(answered);
        expect(answered).toBeGreaterThan(2);
        for (const req of answers()) {
          expect((req.body as Body).model).toBe('answer-model');
          expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
        }
        expect(e.recall_at_k).toBeGreaterThanOrEqual(0);
        expect(e.recall_at_k).toBeLessThanOrEqual(1);
        expect(e.recall_at_k).toBeCloseTo(e.rows.reduce((a: number, x: { recall: number }) => a + x.recall, 0) / 5, 12);
        expect(out.mean_recall_at_k).toBeCloseTo(e.recall_at_k, 12);
        expect(e.predicted.adherence).toBe(1); // the answers are copied from the top context
        for (const k of ['relevance', 'utilization', 'adherence', 'completeness']) expect(typeof e.gold[k]).toBe('number');
        expect(e.gold.n).toBe(10); // two generator rows per emanual question
        // Against gold: our scores vs the labels of each question's own row (the first of its id), validate's formulas.
        const own = new Map<string, { relevance_score: number | null }>();
        for (const x of parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows) if (!own.has(x.id)) own.set(x.id, x);
        const pairs = (e.rows as Array<{ id: string; scores: { relevance: number | null } }>)
          .map((x) => [x.scores.relevance, own.get(x.id)!.relevance_score] as const).filter((x): x is readonly [number, number] => x[0] !== null && x[1] !== null);
        expect(pairs.length).toBeGreaterThan(2);
        expect(e.vs_gold.rmse_relevance).toBeCloseTo(Math.sqrt(pairs.reduce((a, [p, g]) => a + (p - g) ** 2, 0) / pairs.length), 12);
        expect(e.vs_gold).toMatchObject({ n: answered });
        expect(Object.keys(e.vs_gold.intervals)).toEqual(['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']);
        expect(e.vs_gold.intervals.rmse_relevance[0]).toBeLessThanOrEqual(e.vs_gold.rmse_relevance);
        expect(e.vs_gold.warnings).toContain(`RMSE relevance from ${pairs.length} scored rows: not meaningful (fewer than 10)`);
        expect(out.mean_vs_gold.rmse_relevance).toBeCloseTo(e.vs_gold.rmse_relevance, 12);
        // The estimate is exactly chars/4 of what was sent; usage is what the server reported.
        expect(out.estimate.answers.calls).toBe(answered);
        expect(out.estimate.answers.input_tokens).toBe(tokensOf(answers()));
        expect(out.estimate.price).toEqual({ key: 'openai/answer-model', input_per_m: 0, output_per_m: 0, known: false });
        expect(out.usage.answers).toMatchObject({ calls: answered, calls_with_usage: answered, input_tokens: 900 * answered, output_tokens: 12 * answered, failed_calls: 0 });
        expect(out.rate_limits).toMatchObject({ rpm: 1000, tpm: null, waits: 0 });
        expect(r.err).toMatch(/estimate: answers, \d of 5 questions pass retrieval: \d calls, ~[\d,]+ input tokens/);
        expect(r.err).toMatch(/usage \(answers\): \d calls, [\d,]+ input \+ [\d,]+ output tokens/);
        expect(r.out + r.err).not.toContain(KEY);
      } finally {
        await srv.close();
      }
    });

    test('pipeline mode uses the pipeline settings: retrieval mode, transform, rerank and window change what ran', async () => {
      // Answers cite source 1; non-streamed calls are query transforms, answered with two variants.
      const srv = await startLlmServer({
        fallback: (req) => ((req.body as Body).stream
          ? { sse: openaiStream(['See the manual [1].']) }
          : openaiCompletion('1. how to reset the device\n2. factory settings menu')),
      });
      const sourcesIn = (r: RecordedRequest) => ((r.body as Body).messages.at(-1)!.content.match(/<source id="/g) ?? []).length;
      try {
        const base = ['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline', '--provider', 'openai', '--base-url', `${srv.url}/v1`,
          '--model', 'answerer', '--api-key', KEY, '--n', '6', '--seed', '4', '--reject-threshold', '0', '--json'];
        const plain = await capture(base);
        expect(plain.error).toBeNull();
        const p = JSON.parse(plain.out.trim().split('\n').at(-1)!);
        expect(p.pipeline).toMatchObject({ retrieval_mode: 'sparse', transform: 'none', rerank: null, window: 1 });
        const plainRequests = [...srv.requests];
        expect(plainRequests.every((r) => (r.body as Body).stream === true)).toBe(true);
        srv.reset();

        const tuned = await capture([...base, '--retrieval-mode', 'rrf', '--transform', 'multi_query', '--rerank', '2', '--window', '0',
          '--models-dir', 'tests/fixtures/models', '--embedder', 'rag-lab/tiny-embedder', '--reranker', 'rag-lab/tiny-cross-encoder', '--no-cache']);
        expect(tuned.error).toBeNull();
        const t = JSON.parse(tuned.out.trim().split('\n').at(-1)!);
        expect(t.pipeline).toMatchObject({ retrieval_mode: 'rrf', effective_mode: 'rrf', transform: 'multi_query', rerank: 2, window: 0, provider: 'openai', model: 'answerer' });
        // One transform call per question, and at most the 2 reranked passages in each answer prompt.
        const transformCalls = srv.requests.filter((r) => (r.body as Body).stream !== true);
        const answerCalls = srv.requests.filter((r) => (r.body as Body).stream === true);
        expect(transformCalls).toHaveLength(6);
        expect(answerCalls.length).toBeGreaterThan(0);
        for (const r of answerCalls) expect(sourcesIn(r)).toBeLessThanOrEqual(2);
        expect(plainRequests.some((r) => sourcesIn(r) > 2)).toBe(true);
        const retrieved = (o: { subsets: { emanual: { rows: { retrieved: string[] }[] } } }) => o.subsets.emanual.rows.map((r) => r.retrieved.join(','));
        expect(retrieved(t)).not.toEqual(retrieved(p));
        const human = await capture(base.filter((x) => x !== '--json').concat(['--transform', 'rewrite']));
        expect(human.out).toContain('sparse retrieval, top 5 · no rerank · transform rewrite · sentence window ±1 · answers by openai/answerer');
      } finally {
        await srv.close();
      }
    });

    test('pipeline mode with the llm judge × 3 (human output): mean ± spread, flips, parse failures, estimate and usage', async () => {
      const { srv, answers, judges } = await server();
      try {
        const r = await capture(['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline', '--evaluator', 'llm', '--repeats', '3', '--temperature', '0.5',
          '--provider', 'openai', '--base-url', `${srv.url}/v1`, '--model', 'm', '--n', '3', '--price-in', '1', '--price-out', '2']);
        expect(r.error).toBeNull();
        const answered = answers().length;
        expect(judges()).toHaveLength(3 * answered);
        expect(judges().every((j) => (j.body as Body).temperature === 0.5)).toBe(true);
        expect(r.out).toMatch(/RAGBench pipeline over each subset.s pooled documents: sparse retrieval, top 5 .* answers by openai\/m; scored by llm \(judge × 3, means\)/);
        // The judge's scores against the questions' gold labels, with intervals, and what that comparison means.
        expect(r.out).toMatch(/^ {2}emanual: n \d+, halluc \d+ · AUROC (\d\.\d{3}|n\/a) \[[^\]]*\] · RMSE rel \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]/m);
        expect(r.out).toContain("AUROC and RMSE vs gold: RAGBench's gold labels judge RAGBench's own answer to each question, not ours");
        expect(r.out).toMatch(/^emanual\s+3\s+\d\s+\|/m);
        // verdicts per answer: supported, not, unparsable → every answer flips; 1 of 3 replies unparsed
        expect(r.out).toContain(`adherence flips in ${answered}/${answered} rows (100.0%)`);
        expect(r.out).toContain(`parse failures: ${answered}/${3 * answered} calls (33.3%), 0/${answered} rows (0.0%)`);
        expect(r.out).toMatch(/estimate: judge, \d answers × 3: \d+ calls, ~[\d,]+ input tokens \(chars\/4\) \+ ~[\d,]+ output tokens \(assumed\) ≈ \$[\d.]+ at openai\/m prices/);
        expect(r.out).toContain(`usage (judge): ${3 * answered} calls, ${(2000 * 3 * answered).toLocaleString('en-US')} input + ${(150 * answered).toLocaleString('en-US')} output tokens`);
      } finally {
        await srv.close();
      }
    });

    test('pipeline --report-out: a pipeline report (no key anywhere), recall and answered figures equal to --json', async () => {
      const { srv } = await server();
      const dir = mkdtempSync(join(tmpdir(), 'rag-lab-ragbench-report-'));
      temps.push(dir);
      const file = join(dir, 'pipeline.json');
      try {
        const r = await capture(['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline', '--provider', 'openai', '--base-url', `${srv.url}/v1`,
          '--model', 'answer-model', '--api-key', KEY, '--n', '5', '--seed', '2', '--json', '--report-out', file]);
        expect(r.error).toBeNull();
        const text = readFileSync(file, 'utf8');
        expect(text).not.toContain(KEY);
        const parsed = parseReportText(text);
        if (!parsed.ok) throw new Error(parsed.message);
        const rep = parsed.report;
        const e = JSON.parse(r.out.trim().split('\n').at(-1)!).subsets.emanual;
        expect(rep).toMatchObject({ kind: 'ragbench-pipeline', data: { kb: 'ragbench:emanual' }, environment: { llm: { provider: 'openai', model: 'answer-model' } } });
        expect((rep.config['judge'])).toBeNull();
        expect(rep.rows.map((x) => x.key)).toEqual(e.rows.map((x: { id: string }) => `emanual:${x.id}`));
        expect(rep.rows.map((x) => x.retrieved)).toEqual(e.rows.map((x: { retrieved: string[] }) => x.retrieved));
        const fig = (id: string) => rep.summary.metrics.find((m) => m.id === id && m.group === 'emanual')!;
        expect(fig('recall_at_k').value).toBeCloseTo(e.recall_at_k, 12);
        expect(fig('adherence').value).toBeCloseTo(e.predicted.adherence, 12);
        expect(fig('answered').value).toBeCloseTo(e.statuses.answered / 5, 12);
        expect(fig('recall_at_k').ci).not.toBeNull();
        expect(rep.summary.warnings.some((w) => /from \d scored rows?: not meaningful/.test(w.message))).toBe(true);
        // The figures against gold: the same numbers and intervals in the report and in --json.
        for (const id of ['rmse_relevance', 'rmse_utilization', 'rmse_completeness']) {
          expect(fig(id).value).toBeCloseTo(e.vs_gold[id], 12);
          expect(fig(id).ci).toEqual(e.vs_gold.intervals[id]);
        }
        expect(rep.rows[0]!.gold).toHaveProperty('adherence');
      } finally {
        await srv.close();
      }
    });

    test('validate with the llm judge × 3 --json: per-subset and overall repeat statistics, estimate, usage', async () => {
      const { srv, judges } = await server();
      try {
        const r = await capture(['--data', DATA, '--subsets', 'hotpotqa', '--n', '4', '--evaluator', 'llm', '--repeats', '3', '--provider', 'openai',
          '--base-url', `${srv.url}/v1`, '--model', 'judge', '--concurrency', '2', '--json']);
        expect(r.error).toBeNull();
        const out = JSON.parse(r.out.trim().split('\n').at(-1)!);
        expect(judges()).toHaveLength(12);
        expect(out.subsets.hotpotqa.n).toBe(4);
        expect(typeof out.subsets.hotpotqa.rmse_relevance).toBe('number');
        expect(out.subsets.hotpotqa.judge).toMatchObject({ repeats: 3, rows: 4, calls: 12, parse_failed_calls: 4, parse_failed_rows: 0, flipped_rows: 4, comparable_rows: 4, flip_rate: 1 });
        expect(out.subsets.hotpotqa.judge.call_parse_failure_rate).toBeCloseTo(1 / 3, 12);
        expect(out.subsets.hotpotqa.judge.mean_std.adherence).toBe(0.5);
        expect(out.subsets.hotpotqa.judge.flipped).toHaveLength(4);
        expect(out.judge.flipped_rows).toBe(4);
        expect(out.estimate.calls).toBe(12);
        expect(out.estimate.input_tokens).toBe(tokensOf(judges()));
        expect(out.estimate.output_tokens).toBe(12 * 400);
        expect(out.usage).toMatchObject({ calls: 12, input_tokens: 24_000, output_tokens: 600 });
        expect(out.rate_limits).toBeNull();
      } finally {
        await srv.close();
      }
    });

    test('errors for the new flags (exit code 2)', async () => {
      const cases: [string[], RegExp][] = [
        [['--data', DATA, '--subsets', 'emanual', '--repeats', '2'], /--repeats needs --evaluator llm/],
        [['--data', DATA, '--subsets', 'emanual', '--rpm', '30'], /--rpm applies to API runs/],
        [['--data', DATA, '--subsets', 'emanual', '--top-k', '3'], /--top-k applies to --mode pipeline/],
        [['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline'], /--mode pipeline needs --provider/],
        [['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline', '--provider', 'openai', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--limits', 'groq-free'],
          /--limits: preset "groq-free" has no limits for model "m"/],
        [['--data', DATA, '--subsets', 'emanual', '--mode', 'pipeline', '--provider', 'openai', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--retrieval', 'magic'],
          /--retrieval must be one of/],
        [['--data', DATA, '--subsets', 'emanual', '--evaluator', 'llm', '--provider', 'openai', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--repeats', '0'],
          /--repeats must be an integer >= 1/],
      ];
      for (const [args, message] of cases) {
        const r = await capture(args);
        expect(r.error, args.join(' ')).not.toBeNull();
        expect(r.error!.exitCode).toBe(2);
        expect(r.error!.message).toMatch(message);
      }
    });
  });
});
