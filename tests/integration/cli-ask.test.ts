/** `rag-lab ask` end to end against a local OpenAI-compatible server. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { runCli as cli } from '../helpers/cli.ts';

const KEY = 'sk-cli-SECRET-abcdef0123';
let llm: LlmServer;

beforeAll(async () => { llm = await startLlmServer(); });
afterAll(async () => { await llm?.close(); });


describe('rag-lab ask', () => {
  test('answers from the embedded corpus with citations mapped to chunks (--json)', async () => {
    llm.reply({ sse: openaiStream(['Lincoln proposed compensated emancipation [1][2]. ', 'See also [5].']) });
    const r = await cli(['ask', '--kb', 'sotu', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'test-model', '--top-k', '3', '--json',
      'What did Lincoln propose about emancipation?'], { RAG_LAB_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out.answer).toBe('Lincoln proposed compensated emancipation [1][2]. See also [5].');
    expect(out.contexts).toHaveLength(3);
    expect(out.citations.map((c: { n: number }) => c.n)).toEqual([1, 2]);
    expect(out.citations[0].doc_id).toBe(out.contexts[0].doc_id);
    expect(out.citations[0].chunk_id).toBe(out.contexts[0].chunk_id);
    expect(out.invalid_citations).toEqual([5]);
    expect(out.trace.map((s: { step: string }) => s.step)).toEqual(['transform', 'retrieve', 'window', 'prompt', 'generate', 'cite']);
    const req = llm.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(req.body)).toContain(out.contexts[0].text.slice(0, 60));
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  test('--config: a tune\'s winner sets the retrieval (BM25\'s k1 and b here: other scores); a flag given wins', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const cfg = join(mkdtempSync(join(tmpdir(), 'rag-lab-ask-')), 'best.json');
    writeFileSync(cfg, JSON.stringify({ mode: 'sparse', settings: { k1: 0.2, b: 0.1, candidateK: 30 } }));
    const run = async (extra: string[]) => {
      llm.reply({ sse: openaiStream(['Tariffs [1].']) });
      const r = await cli(['ask', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'test-model', '--top-k', '3', '--json', ...extra, 'protective tariffs on imports']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { contexts: Array<{ score: number }> };
    };
    const plain = await run([]), tuned = await run(['--config', cfg]);
    expect(tuned.contexts).toHaveLength(3);
    expect(tuned.contexts.map((c) => c.score)).not.toEqual(plain.contexts.map((c) => c.score));
    // The flags win: --k1 / --b given over the file's are as if the file were not there.
    const flagged = await run(['--config', cfg, '--k1', '1.1', '--b', '0.6']), flagsOnly = await run(['--k1', '1.1', '--b', '0.6']);
    expect(flagged.contexts.map((c) => c.score)).toEqual(flagsOnly.contexts.map((c) => c.score));
    expect(flagged.contexts.map((c) => c.score)).not.toEqual(tuned.contexts.map((c) => c.score));
  });

  test('multi-query sends a transform request, then one answer request', async () => {
    llm.reply(openaiCompletion('1. tariff on imported goods\n2. protective tariffs and revenue\n3. customs duties'),
      { sse: openaiStream(['Tariffs were debated [1].']) });
    const before = llm.requests.length;
    const r = await cli(['ask', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'test-model', '--transform', 'multi_query', '--json', 'tariffs?']);
    expect(r.code, r.stderr).toBe(0);
    expect(llm.requests.length - before).toBe(2);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out.trace[0].step).toBe('transform');
    expect(out.trace[0].outputs.queries.length).toBeGreaterThanOrEqual(3);
  });

  test('--agentic --grade-each --grader-model: one grading call per source, by the grader model, with the same key', async () => {
    const grade = (relevant: boolean) => openaiCompletion(JSON.stringify({ relevant }));
    llm.reply(openaiCompletion('1. emancipation proclamation'), grade(true), grade(false), grade(true),
      { sse: openaiStream(['Lincoln proclaimed emancipation [1].']) }, openaiCompletion('ok'));
    const before = llm.requests.length;
    const r = await cli(['ask', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'big-model', '--top-k', '3', '--agentic',
      '--grade-each', '--grader-model', 'small-model', '--json', 'What did Lincoln proclaim?'], { RAG_LAB_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    const sent = llm.requests.slice(before);
    const models = sent.map((q) => (q.body as { model: string }).model);
    expect(models).toEqual(['big-model', 'small-model', 'small-model', 'small-model', 'big-model', 'big-model']);
    expect(sent.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    const step = out.trace.find((s: { step: string }) => s.step === 'grade');
    expect(step.llmCalls).toBe(3);
    expect(Object.values(step.outputs.grades).filter((g) => g === false)).toHaveLength(1);
    expect(out.contexts).toHaveLength(2);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  test('--grade-each and --grader-model need --agentic', async () => {
    const r = await cli(['ask', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'm', '--grade-each', 'question']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--grade-each grades the agentic loop's sources: it needs --agentic/);
  });

  test('a refused key and a bad provider are clear errors without the key', async () => {
    llm.reply({ status: 401, json: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    let r = await cli(['ask', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'm', '--api-key', KEY, 'question']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/key/i);
    expect(r.stdout + r.stderr).not.toContain(KEY);
    r = await cli(['ask', '--provider', 'nope', '--model', 'm', 'question']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/provider/);
  });
});
