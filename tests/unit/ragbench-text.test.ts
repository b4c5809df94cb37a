/** What eval-ragbench prints, from src/lib: each mode's text output, row labels, estimate and knowledge-base lines, and the judge estimate. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRagbenchJsonl, ragbenchRowKey } from '../../src/lib/data/ragbench.ts';
import { buildRagbenchKb } from '../../src/lib/data/ragbench-kb.ts';
import { describeEstimate, type ApiAccount } from '../../src/lib/eval/core/api-usage.ts';
import { estimateJudgeRun, type RunEstimate } from '../../src/lib/eval/core/cost.ts';
import { judgeRepeated, RepeatTracker, rowJudgeInput, sampledJudgeEstimate } from '../../src/lib/eval/ragbench/judge-runs.ts';
import { rowLabels } from '../../src/lib/eval/ragbench-run/ragbench-output.ts';
import { formatPipelineTable, formatValidationTable, kbLine, pipelineEstimateLines, pipelineText, repeatLines, validateEstimateLines, validateText } from '../../src/lib/eval/ragbench-run/ragbench-tables.ts';
import { lexicalRowEvaluator, sampleRows, validateRagbench } from '../../src/lib/eval/ragbench/validate-mode.ts';
import type { ChatProvider } from '../../src/lib/llm/types.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const load = (s: string) => parseRagbenchJsonl(readFileSync(join(DATA, `${s}.jsonl`), 'utf8'), s).rows;
const emanual = load('emanual');
const covidqa = load('covidqa');

const PRICE = { key: 'openai/m', inputPerM: 1, outputPerM: 2, known: true };
const API: ApiAccount = { providerId: 'openai', price: PRICE, limits: null, limiter: null };

/** A judge that says "supported" on odd calls and "not supported" on even ones: every repeated row flips. */
function flippingJudge(): ChatProvider {
  let calls = 0;
  const reply = () => JSON.stringify({ overall_supported: ++calls % 2 === 1, all_relevant_sentence_keys: [], all_utilized_sentence_keys: [] });
  return { id: 'openai', chat: async (req) => ({ text: reply(), usage: { inputTokens: 10, outputTokens: 5 }, finishReason: 'stop', model: req.model }), stream: async () => { throw new Error('no streams'); } };
}

describe('rowLabels', () => {
  it('names a row by its key as `id (generation model)` and in JSON; an unknown key stays the key', () => {
    const labels = rowLabels([emanual.slice(0, 3), covidqa.slice(0, 2)]);
    const r = covidqa[1]!;
    expect(labels.text(ragbenchRowKey(r))).toBe(`${r.id} (${r.generation_model_name})`);
    expect(labels.json(ragbenchRowKey(r))).toEqual({ id: r.id, generation_model_name: r.generation_model_name });
    expect(labels.text('nope')).toBe('nope');
    expect(labels.json('nope')).toEqual({ key: 'nope' });
  });
});

describe('validateText and pipelineText', () => {
  it('without a judge: the table alone, its title saying when scores are means of repeats', async () => {
    const results = [await validateRagbench(emanual.slice(0, 12), 'emanual', lexicalRowEvaluator())];
    const o = { evaluator: 'lexical', repeats: 1, judge: null, labelOf: (k: string) => k };
    expect(validateText(results, o)).toBe(formatValidationTable(results, 'lexical'));
    expect(validateText(results, { ...o, evaluator: 'llm', repeats: 3 })).toBe(formatValidationTable(results, 'llm (judge × 3, scores are means)'));
    const rag = cloneConfig(DEFAULT_RAG_CONFIG);
    expect(pipelineText([], rag, o)).toBe(formatPipelineTable([], `RAGBench pipeline over each subset's pooled documents: sparse retrieval, top ${rag.retrieval.topK} · no rerank · no query transform · sentence window ±${rag.window} · answers by ${rag.llm.provider}/${rag.llm.model}; scored by lexical`));
  });

  it('with a judge: a blank line, the repeats, then each subset\'s repeat lines with flipped rows by label', async () => {
    const provider = flippingJudge(), tracker = new RepeatTracker(2), rows = emanual.slice(0, 2);
    for (const r of rows) tracker.add(ragbenchRowKey(r), await judgeRepeated(provider, rowJudgeInput(r), { model: 'm', repeats: 2 }));
    const labels = rowLabels([rows]);
    const o = { evaluator: 'llm', repeats: 2, judge: { trackers: new Map([['emanual', tracker]]) }, labelOf: labels.text };
    const lines = validateText([], o).split('\n');
    const tail = ['', 'judge repeats: 2 per row (std: population standard deviation over the parsed replies of a row, averaged over rows)', ...repeatLines('emanual', tracker.summary(), labels.text)];
    expect(lines.slice(-tail.length)).toEqual(tail);
    expect(lines.at(-1)).toBe(`    flipped: ${rows.map((r) => `${r.id} (${r.generation_model_name})`).join(', ')}`);
    const p = pipelineText([], cloneConfig(DEFAULT_RAG_CONFIG), o).split('\n');
    expect(p[0]).toMatch(/; scored by llm \(judge × 2, means\)$/);
    expect(p.slice(-tail.length)).toEqual(['', 'judge repeats: 2 per answer', ...tail.slice(2)]);
  });
});

describe('the judge estimate of a validate run', () => {
  it('judges each subset\'s seeded sample `repeats` times (all rows without n)', () => {
    const subsets = [{ rows: emanual }, { rows: covidqa }];
    const { rows, estimate } = sampledJudgeEstimate(subsets, { n: 5, seed: 3 }, { repeats: 2, price: PRICE });
    expect(rows).toBe(10);
    const inputs = [...sampleRows(emanual, 5, 3), ...sampleRows(covidqa, 5, 3)].map(rowJudgeInput);
    expect(estimate).toEqual(estimateJudgeRun(inputs, { repeats: 2, price: PRICE }));
    expect(estimate.calls).toBe(20);
    expect(sampledJudgeEstimate([{ rows: emanual }], { seed: 0 }, { repeats: 1, price: PRICE }).rows).toBe(emanual.length);
    expect(validateEstimateLines(API, { rows: 1234, estimate }, 2)).toEqual(describeEstimate(API, estimate, 'judge, 1,234 rows × 2'));
  });
});

describe('pipeline lines', () => {
  it('the estimate: the answers\', the judge\'s when there is one, then the notes', () => {
    const e = (calls: number): RunEstimate => ({ calls, inputTokens: 100 * calls, outputTokens: 10 * calls, inputUsd: 0, outputUsd: 0, totalUsd: 0.001 * calls, outputTokensPerCall: 10, price: PRICE });
    const totals = { answers: e(4), judge: e(8), total: e(12), questions: 6, answerable: 4, notes: ['a transform adds calls'] };
    expect(pipelineEstimateLines(API, totals, 2)).toEqual([
      ...describeEstimate(API, e(4), 'answers, 4 of 6 questions pass retrieval'), ...describeEstimate(API, e(8), 'judge, 4 answers × 2'), '  note: a transform adds calls',
    ]);
    expect(pipelineEstimateLines(API, { ...totals, judge: null, notes: [] }, 1)).toEqual(describeEstimate(API, e(4), 'answers, 4 of 6 questions pass retrieval'));
  });

  it('the knowledge base of a subset: documents, pooled from, chunks, build time', () => {
    const rkb = buildRagbenchKb(emanual, 'emanual');
    expect(kbLine(rkb, 1234.4)).toBe(`emanual: knowledge base of ${rkb.docs.length.toLocaleString('en-US')} documents (pooled from ${rkb.documentCount.toLocaleString('en-US')}), ${rkb.kb.size.toLocaleString('en-US')} chunks, built in 1234 ms`);
  });
});
