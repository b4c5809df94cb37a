/** `rag-lab eval-ragbench` against a local OpenAI-compatible server: pipeline mode, judge repeats, estimates and usage (the rest: cli-eval-ragbench.test.ts). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.ts';
import { captureCommand } from '../helpers/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');

const temps: string[] = [];
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

describe('rag-lab eval-ragbench, API runs: pipeline mode, judge repeats, estimates and usage (in process, local OpenAI-compatible server)', () => {
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
        /--repeats must be an integer in \[1, 10\], got "0"/],
    ];
    for (const [args, message] of cases) {
      const r = await capture(args);
      expect(r.error, args.join(' ')).not.toBeNull();
      expect(r.error!.exitCode).toBe(2);
      expect(r.error!.message).toMatch(message);
    }
  });
});
