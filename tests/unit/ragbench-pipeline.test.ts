import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRagbenchJsonl, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { buildRagbenchKb, type RagbenchKb } from '../../src/lib/data/ragbench-kb.ts';
import { RepeatTracker } from '../../src/lib/eval/ragbench/judge-runs.ts';
import {
  estimatePipelineRun, goldDocRecall, judgePipelineEvaluator, lexicalPipelineEvaluator, pipelineQuestions, pipelineSummary,
  runRagbenchPipeline, type PipelineSubsetResult,
} from '../../src/lib/eval/ragbench/pipeline-mode.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent } from '../../src/lib/llm/types.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';
import { search } from '../../src/lib/retrieval/search.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const FILE = join(DATA, 'emanual.jsonl');

/** The first sentence of source 1 in the answer prompt (the top retrieved context), with a citation. */
function copyTopContext(req: ChatRequest): string {
  const user = req.messages.at(-1)!.content;
  const src = /<source id="1"[^>]*>\n([\s\S]*?)\n<\/source>/.exec(user)![1]!;
  const first = /^[\s\S]*?[.!?](?=\s|$)/.exec(src.trim())?.[0] ?? src.trim();
  return `${first} [1]`;
}

/** A scripted answering model: copies the top context; records what it was sent. */
function copyingProvider() {
  const sent: ChatRequest[] = [];
  const provider: ChatProvider = {
    id: 'openai',
    chat: async () => { throw new Error('the pipeline streams its answers'); },
    stream: async (req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> => {
      sent.push(req);
      const text = copyTopContext(req);
      onDelta({ delta: text });
      return { text, usage: { inputTokens: 1000, outputTokens: 20 }, finishReason: 'stop', model: req.model };
    },
  };
  return { provider, sent };
}

const norm = (s: string) => s.trim().split(/\s+/).join(' ');

let rows: RagbenchRow[];
let rkb: RagbenchKb;
let raw: { id: string; question: string; documents: string[]; relevance_score: number | null; utilization_score: number | null; completeness_score: number | null; adherence_score: boolean | null }[];

beforeAll(() => {
  expect(existsSync(FILE), `RAGBench not found at ${DATA}`).toBe(true);
  const text = readFileSync(FILE, 'utf8');
  rows = parseRagbenchJsonl(text, 'emanual').rows;
  raw = text.trim().split('\n').map((l) => JSON.parse(l));
  rkb = buildRagbenchKb(rows, 'emanual');
});

describe('pipelineQuestions', () => {
  it('samples distinct question ids, seeded; the gold rows are every row of those ids', () => {
    const a = pipelineQuestions(rows, 10, 3);
    const b = pipelineQuestions(rows, 10, 3);
    expect(a.questions.map((q) => q.id)).toEqual(b.questions.map((q) => q.id));
    expect(new Set(a.questions.map((q) => q.id)).size).toBe(10);
    expect(pipelineQuestions(rows, 10, 4).questions.map((q) => q.id)).not.toEqual(a.questions.map((q) => q.id));
    // emanual answers every question with two generator models: 20 gold rows for 10 questions
    expect(a.goldRows).toHaveLength(20);
    expect(pipelineQuestions(rows, undefined).questions).toHaveLength(66);
  });

  it('goldDocRecall', () => {
    expect(goldDocRecall([1, 2, 3, 3], [3, 9, 1])).toBeCloseTo(2 / 3, 12);
    expect(goldDocRecall([4], [])).toBe(0);
    expect(Number.isNaN(goldDocRecall([], [1]))).toBe(true);
  });
});

describe('runRagbenchPipeline on emanual with a model that copies the top context', () => {
  let result: PipelineSubsetResult;
  let sent: ChatRequest[];
  const config = cloneConfig(DEFAULT_RAG_CONFIG);
  config.llm.provider = 'openai';
  config.llm.model = 'copier';

  beforeAll(async () => {
    const p = copyingProvider();
    sent = p.sent;
    result = await runRagbenchPipeline(rkb, rows, { provider: p.provider }, lexicalPipelineEvaluator(), { n: 10, seed: 3, config, concurrency: 3 });
  });

  it('gold-document recall@k agrees with an independent computation from the raw rows and the retrieved chunk texts', async () => {
    expect(result.n).toBe(10);
    expect(result.k).toBe(5);
    let sum = 0;
    for (const r of result.rows) {
      const rawRow = raw.find((x) => x.id === r.id)!;
      // The same search the pipeline runs, done here: the top-k chunk texts.
      const s = await search(rkb.kb, rawRow.question.trim(), { mode: 'sparse', topK: 5, candidateK: 20, calibration: 'cdf', rejectThreshold: 0.15, dedup: true });
      expect(s.hits.map((h) => h.id)).toEqual(r.retrieved);
      const chunkTexts = s.hits.map((h) => norm(rkb.kb.itemText(h.item)));
      // A row's document is found when a retrieved chunk's text lies inside it.
      const docs = [...new Set(rawRow.documents.map(norm).filter((d) => d !== ''))];
      const found = docs.filter((d) => chunkTexts.some((c) => d.includes(c))).length;
      expect(r.recall, r.id).toBeCloseTo(found / docs.length, 12);
      sum += found / docs.length;
    }
    expect(result.recallAtK).toBeCloseTo(sum / 10, 12);
    expect(result.recallAtK).toBeGreaterThan(0.2); // BM25 does find the questions' own manual pages
  });

  it('answers copied from the top context are fully supported by the lexical evaluator', () => {
    const answered = result.rows.filter((r) => r.status === 'answered');
    expect(answered.length).toBeGreaterThan(5);
    expect(sent).toHaveLength(answered.length);
    expect(sent.every((q) => q.model === 'copier')).toBe(true);
    for (const r of answered) {
      expect(r.answer.endsWith('[1]')).toBe(true);
      expect(norm(r.contexts[0]!)).toContain(norm(r.answer.slice(0, -4)));
      expect(r.scores.adherence, r.id).toBe(1);
    }
    expect(result.predicted.adherence).toBe(1);
    expect(result.scored).toBe(answered.length);
    expect(result.statuses.answered).toBe(answered.length);
    expect(Object.values(result.statuses).reduce((a, b) => a + b, 0)).toBe(10);
    // Refused questions get no scores but keep their recall.
    for (const r of result.rows.filter((x) => x.status !== 'answered')) {
      expect(Number.isNaN(r.scores.adherence)).toBe(true);
      expect(r.retrieved.length).toBeGreaterThan(0);
    }
    expect(result.usage).toEqual({ inputTokens: 1000 * answered.length, outputTokens: 20 * answered.length });
  });

  it('the gold reference is the mean over every RAGBench row of the sampled questions', () => {
    const ids = new Set(result.rows.map((r) => r.id));
    const gold = raw.filter((r) => ids.has(r.id));
    const m = (xs: (number | null)[]) => { const v = xs.filter((x): x is number => x !== null); return v.reduce((a, b) => a + b, 0) / v.length; };
    expect(result.gold.n).toBe(20);
    expect(result.gold.relevance).toBeCloseTo(m(gold.map((r) => r.relevance_score)), 12);
    expect(result.gold.utilization).toBeCloseTo(m(gold.map((r) => r.utilization_score)), 12);
    expect(result.gold.completeness).toBeCloseTo(m(gold.map((r) => r.completeness_score)), 12);
    expect(result.gold.adherence).toBeCloseTo(m(gold.map((r) => (r.adherence_score === null ? null : r.adherence_score ? 1 : 0))), 12);
    expect(result.kb.documents).toBe(rkb.docs.length);
  });

  it('the estimate counts exactly the prompts that were sent (chars/4)', async () => {
    const { questions } = pipelineQuestions(rows, 10, 3);
    const e = await estimatePipelineRun(rkb, questions, config, {}, { price: { inputPerM: 1, outputPerM: 2 } });
    expect(e.answerable).toBe(sent.length);
    const byHand = sent.reduce((a, q) => a + q.messages.reduce((b, m) => b + Math.ceil(m.content.length / 4), 0), 0);
    expect(e.answers.inputTokens).toBe(byHand);
    expect(e.answers.calls).toBe(sent.length);
    expect(e.answers.outputTokens).toBe(200 * sent.length);
    expect(e.answers.totalUsd).toBeCloseTo((byHand + 400 * sent.length) / 1e6, 12);
    expect(e.judge).toBeNull();
  });

  it('pipelineSummary: JSON numbers, null for NaN', () => {
    const j = pipelineSummary([result]) as { subsets: Record<string, { rows: { scores: { adherence: number | null } }[]; recall_at_k: number }>; mean_recall_at_k: number };
    expect(j.mean_recall_at_k).toBeCloseTo(result.recallAtK, 12);
    expect(j.subsets['emanual']!.rows).toHaveLength(10);
    expect(JSON.stringify(j)).not.toMatch(/NaN/);
  });
});

describe('the LLM judge as the pipeline evaluator, repeated', () => {
  it('scores are the judge means; repeats tracked', async () => {
    const { provider: answerer } = copyingProvider();
    let judgeCalls = 0;
    const judge: ChatProvider = {
      id: 'openai',
      chat: async (req) => {
        judgeCalls++;
        const supported = judgeCalls % 2 === 1; // alternate: each question's two calls disagree
        return { text: JSON.stringify({ overall_supported: supported, all_relevant_sentence_keys: ['0a'], all_utilized_sentence_keys: ['0a'] }), usage: null, finishReason: 'stop', model: req.model };
      },
      stream: async () => { throw new Error('unused'); },
    };
    const tracker = new RepeatTracker(2);
    const config = cloneConfig(DEFAULT_RAG_CONFIG);
    config.llm.model = 'copier';
    const r = await runRagbenchPipeline(rkb, rows, { provider: answerer }, judgePipelineEvaluator(judge, { model: 'judge', repeats: 2 }, (i, x) => tracker.add(i.row.id, x)), { n: 4, seed: 0, config });
    const answered = r.rows.filter((x) => x.status === 'answered').length;
    expect(judgeCalls).toBe(2 * answered);
    expect(r.predicted.adherence).toBe(0.5);
    expect(tracker.summary()).toMatchObject({ rows: answered, flippedRows: answered });
  });
});
