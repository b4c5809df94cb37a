/**
 * `rag-lab eval-ragbench --evaluator ragas` end to end on a two-row RAGBench file written here, against a loopback
 * OpenAI-compatible server that answers the questions and plays the RAGAS judge: the figures are the hand-computed
 * RAGAS values of docs/ragas.md's formulas over the judge's verdicts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { evalRagbenchCommand } from '../../cli/eval-ragbench.ts';
import { parseReportText } from '../../src/lib/reports/format.ts';
import { captureCommand } from '../helpers/cli.ts';
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.ts';

/** A RAGBench row with its 26 fields; documents keyed `0a`…, one sentence each. */
function row(id: string, question: string, documents: string[], response: string, adherence: boolean) {
  return {
    id, question, documents, response, generation_model_name: 'gen-m', annotating_model_name: 'ann-m', dataset_name: 'emanual_test',
    documents_sentences: documents.map((d, i) => [[`${i}a`, d]]), response_sentences: [['a', response]],
    sentence_support_information: [], unsupported_response_sentence_keys: [], adherence_score: adherence,
    overall_supported_explanation: null, relevance_explanation: null, all_relevant_sentence_keys: [], all_utilized_sentence_keys: [],
    trulens_groundedness: null, trulens_context_relevance: null, ragas_faithfulness: null, ragas_context_relevance: null,
    gpt3_adherence: null, gpt3_context_relevance: null, gpt35_utilization: null, relevance_score: null, utilization_score: null, completeness_score: null,
  };
}

const Q1 = 'Which fuel does the zorblax engine burn?';
const Q2 = 'Who painted the mirelle tower murals?';
const ROWS = [
  // BM25 ranks the first document of each row first: it repeats more of the question's words.
  row('q1', Q1, ['Which fuel the zorblax engine should burn was argued about for years.', 'The zorblax runs on quartz.'],
    'The zorblax engine burns quartz. It was designed in 1901.', false),
  row('q2', Q2, ['The mirelle tower murals were painted by Ines Roca.', 'Tower murals of mirelle fade in the sun.'],
    'Ines Roca painted the mirelle tower murals.', true),
];
/** Our pipeline's answers (streamed), by question. */
const ANSWERS: Record<string, string> = { [Q1]: 'The zorblax engine burns quartz [2]. It was built in 1901 [1].', [Q2]: 'Ines Roca painted them [1].' };

/** The judge's verdict on a text: supported / useful / attributable when it names quartz or Ines Roca. */
const holds = (t: string) => (/quartz|Ines/.test(t) ? 1 : 0);

type Body = { stream?: boolean; messages: { role: string; content: string }[] };

/** The judge: the statements, questions and noncommittal flag it gives each answer, verdicts by `holds`. */
function judgeReply(user: string, bad: RegExp | null): string {
  const task = /^Task: RAGAS ([a-z ]+)\./m.exec(user)?.[1];
  if (bad && bad.test(user)) return '{"verdicts": [1, "maybe"]}';
  const listed = (after: string) => [...user.slice(user.indexOf(after)).matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);
  const contexts = [...user.matchAll(/^Context \d+:\n"""\n([\s\S]*?)\n"""/gm)].map((m) => m[1]!);
  switch (task) {
    case 'statements':
      // pipeline answers and RAGBench's own responses (validate), by their question
      if (user.includes('It was built in 1901')) return JSON.stringify({ statements: ['The zorblax engine burns quartz.', 'The zorblax engine was built in 1901.', 'The zorblax engine is red.'] });
      if (user.includes('It was designed in 1901')) return JSON.stringify({ statements: ['The zorblax engine burns quartz.', 'The zorblax engine was designed in 1901.'] });
      return JSON.stringify({ statements: ['Ines Roca painted the mirelle tower murals.'] });
    case 'faithfulness': return JSON.stringify({ verdicts: listed('Statements:').map(holds) });
    case 'answer relevancy':
      return user.includes('zorblax') ? JSON.stringify({ questions: [Q1, Q1, Q1], noncommittal: 0 }) : JSON.stringify({ questions: [Q2], noncommittal: 1 });
    case 'context precision': return JSON.stringify({ verdicts: contexts.map(holds) });
    case 'context recall': return JSON.stringify({ attributed: listed('Reference answer, by sentence:').map(holds) });
    default: throw new Error(`unexpected judge prompt: ${user.slice(0, 80)}`);
  }
}

async function server(bad: RegExp | null = null): Promise<LlmServer> {
  return startLlmServer({
    fallback: (req: RecordedRequest) => {
      const body = req.body as Body;
      const user = body.messages.at(-1)!.content;
      if (body.stream) {
        const q = Object.keys(ANSWERS).find((x) => user.includes(x))!;
        return { sse: openaiStream([ANSWERS[q]!], { usage: { prompt_tokens: 300, completion_tokens: 20 } }) };
      }
      return openaiCompletion(judgeReply(user, bad), { usage: { prompt_tokens: 200, completion_tokens: 30 } });
    },
  });
}

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-ragas-'));
  writeFileSync(join(dir, 'emanual.jsonl'), ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const capture = (args: string[]) => captureCommand(evalRagbenchCommand, args);
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);
const pipelineArgs = (srv: LlmServer) => ['--data', dir, '--subsets', 'emanual', '--mode', 'pipeline', '--evaluator', 'ragas', '--provider', 'openai',
  '--base-url', `${srv.url}/v1`, '--model', 'm', '--top-k', '2', '--window', '0', '--reject-threshold', '0'];
const judgeCalls = (srv: LlmServer) => srv.requests.filter((r) => (r.body as Body).stream !== true);

describe('eval-ragbench --evaluator ragas', () => {
  test('pipeline mode without an embedder: faithfulness, context precision and recall as hand-computed; answer relevancy absent, said so', async () => {
    const srv = await server();
    try {
      const r = await capture([...pipelineArgs(srv), '--json']);
      expect(r.error).toBeNull();
      const out = lastJson(r.out);
      const e = out.subsets.emanual;
      expect(e.statuses).toEqual({ answered: 2 });
      const byId = Object.fromEntries(e.rows.map((x: { id: string }) => [x.id, x]));
      // The contexts in retrieval order, as the precision below counts them: q1's useful one (quartz) second, q2's first.
      expect(byId.q1.retrieved.map((c: string) => c.split('#')[0])).toEqual(['d0', 'd1']);
      expect(byId.q2.retrieved.map((c: string) => c.split('#')[0])).toEqual(['d2', 'd3']);
      // q1: statements [quartz ✓, 1901 ✗, red ✗] → 1/3; contexts [✗, ✓] → (½·1)/1 = 0.5; reference [quartz ✓, 1901 ✗] → 1/2.
      expect(byId.q1.ragas.faithfulness).toBeCloseTo(1 / 3, 12);
      expect(byId.q1.ragas).toMatchObject({ answer_relevancy: null, context_precision: 0.5, context_recall: 0.5 });
      // q2: [✓] → 1; contexts [✓, ✗] → 1; reference [✓] → 1.
      expect(byId.q2.ragas).toEqual({ faithfulness: 1, answer_relevancy: null, context_precision: 1, context_recall: 1 });
      expect(byId.q1.scores).toEqual({ relevance: null, utilization: null, adherence: null, completeness: null });
      expect(e.ragas.faithfulness).toBeCloseTo(2 / 3, 12);
      expect(e.ragas).toMatchObject({ answer_relevancy: null, context_precision: 0.75, context_recall: 0.75, n: { faithfulness: 2, answer_relevancy: 0, context_precision: 2, context_recall: 2 } });
      expect(out.mean_ragas.context_precision).toBe(0.75);
      expect(e.scored).toBe(2);
      // 4 judge calls per answer (no answer-relevancy call without an embedder), metered as the judge's usage.
      expect(judgeCalls(srv)).toHaveLength(8);
      expect(out.usage.judge).toMatchObject({ calls: 8, input_tokens: 1600, output_tokens: 240 });
      expect(out.evaluator_notes[0]).toBe('RAGAS answer relevancy is absent (not 0): it needs an embedder and none is loaded.');
      expect(r.err).toContain('RAGAS answer relevancy is absent (not 0)');
    } finally {
      await srv.close();
    }
  });

  test('pipeline mode with --embedder: answer relevancy = mean cosine of the question and the judge\'s questions (1 for q1\'s copies, 0 for q2: noncommittal); the report carries every figure', async () => {
    const srv = await server();
    const file = join(dir, 'ragas-report.json');
    try {
      const r = await capture([...pipelineArgs(srv), '--models-dir', 'tests/fixtures/models', '--embedder', 'rag-lab/tiny-embedder', '--no-cache',
        '--report-out', file]);
      expect(r.error).toBeNull();
      expect(r.out).toContain('RAGAS answer relevancy: cosine similarity of the question and the judge\'s questions, embedded by the loaded embedder rag-lab/tiny-embedder@fp32.');
      expect(r.out).toMatch(/RAGAS \(means over the rows where a metric is defined; n\/a: absent\)\nsubset +faithful +ans\.rel +ctx\.prec +ctx\.rec/);
      expect(r.out).toMatch(/^emanual +0\.667 +0\.500 +0\.750 +0\.750 +2 \/ 2 \/ 2 \/ 2$/m);
      expect(judgeCalls(srv)).toHaveLength(10);
      const parsed = parseReportText(readFileSync(file, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.message);
      const rep = parsed.report;
      expect(rep).toMatchObject({ kind: 'ragbench-pipeline', evaluator: 'ragas', environment: { judge: { provider: 'openai', model: 'm' } } });
      expect(rep.config['scoring']).toMatchObject({ evaluator: 'ragas', model: 'm', temperature: 0, embedder: 'rag-lab/tiny-embedder@fp32' });
      expect(rep.environment.models.map((m) => m.id)).toEqual(['rag-lab/tiny-embedder']);
      const q1 = rep.rows.find((x) => x.key === 'emanual:q1')!;
      expect(q1.scores['ragas_answer_relevancy']).toBeCloseTo(1, 5);
      expect(rep.rows.find((x) => x.key === 'emanual:q2')!.scores['ragas_answer_relevancy']).toBe(0);
      const fig = (id: string) => rep.summary.metrics.find((m) => m.id === id && m.group === null)!;
      expect(fig('ragas_faithfulness').value).toBeCloseTo(2 / 3, 12);
      expect(fig('ragas_answer_relevancy').value).toBeCloseTo(0.5, 5);
      expect(fig('ragas_context_precision')).toMatchObject({ value: 0.75, n: 2 });
      expect(fig('ragas_context_recall')).toMatchObject({ value: 0.75, n: 2 });
      expect(fig('adherence')).toMatchObject({ value: null, n: 0 }); // RAGAS does not score TRACe
      expect(rep.summary.notes.some((n) => n.startsWith('judge: 10 calls (0 failed)'))).toBe(true);
      expect(rep.summary.extra['judge']).toMatchObject({ calls: 10, inputTokens: 2000, outputTokens: 300 });
    } finally {
      await srv.close();
    }
  }, 60_000);

  test('a judge reply out of range fails its row: left out of the means, named in the output and the report', async () => {
    // q2's context-precision reply holds "maybe" for a verdict.
    const srv = await server(/Task: RAGAS context precision[\s\S]*mirelle/);
    const file = join(dir, 'ragas-failed.json');
    try {
      const r = await capture([...pipelineArgs(srv), '--json', '--report-out', file]);
      expect(r.error).toBeNull();
      const e = lastJson(r.out).subsets.emanual;
      const q2 = e.rows.find((x: { id: string }) => x.id === 'q2');
      expect(q2.eval_error).toMatch(/^RAGAS context precision reply: verdicts\.1: /);
      expect(q2.ragas).toBeUndefined();
      expect(e.ragas.faithfulness).toBeCloseTo(1 / 3, 12); // q1 alone
      expect(e.ragas).toMatchObject({ context_precision: 0.5, context_recall: 0.5, n: { faithfulness: 1, context_precision: 1 } });
      expect(r.err).toMatch(/q2: evaluator failed: RAGAS context precision reply/);
      const parsed = parseReportText(readFileSync(file, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.message);
      expect(parsed.report.summary.metrics.find((m) => m.id === 'ragas_faithfulness' && m.group === null)).toMatchObject({ n: 1 });
      expect(parsed.report.rows.find((x) => x.key === 'emanual:q2')!.error).toMatch(/RAGAS context precision reply/);
    } finally {
      await srv.close();
    }
  });

  test('validate mode: RAGBench\'s own answers over their documents; faithfulness and its hallucination AUROC, no reference for precision and recall', async () => {
    const srv = await server();
    try {
      const r = await capture(['--data', dir, '--subsets', 'emanual', '--evaluator', 'ragas', '--provider', 'openai', '--base-url', `${srv.url}/v1`,
        '--model', 'm', '--bootstrap', '0', '--json']);
      expect(r.error).toBeNull();
      const e = lastJson(r.out).subsets.emanual;
      // q1's response: [quartz ✓, 1901 ✗] → 0.5 (gold: hallucinated); q2's: [✓] → 1 (supported) → AUROC 1.
      expect(e.ragas).toEqual({
        faithfulness: 0.75, answer_relevancy: null, context_precision: null, context_recall: null,
        n: { faithfulness: 2, answer_relevancy: 0, context_precision: 0, context_recall: 0 }, faithfulness_auroc: 1,
      });
      expect(e.auroc).toBeNull(); // no TRACe adherence predicted
      expect(judgeCalls(srv)).toHaveLength(4);
    } finally {
      await srv.close();
    }
  });
});
