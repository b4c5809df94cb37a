/** Local NLI TRACe with the tiny fixture models: every number recomputed from the same model calls. */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrossEncoder, sigmoid, type CrossEncoder } from '../../src/lib/models/cross-encoder.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { loadNli, type WindowedNli } from '../../src/lib/models/nli.ts';
import type { NliClassifier, NliProbabilities } from '../../src/lib/models/types.ts';
import { nliTrace } from '../../src/lib/eval/metrics/nli-trace.ts';
import { rougeLF1 } from '../../src/lib/eval/metrics/rouge.ts';
import { splitSentences } from '../../src/lib/retrieval/chunk.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
let nli: WindowedNli;
let ce: CrossEncoder;

beforeAll(async () => {
  configureModels({ localModelPath: FIXTURES, allowRemote: false });
  nli = await loadNli({ id: 'rag-lab/tiny-nli', dtype: 'fp32', device: 'cpu' });
  ce = await loadCrossEncoder({ id: 'rag-lab/tiny-cross-encoder', dtype: 'fp32', device: 'cpu' });
});
afterAll(async () => {
  await nli?.dispose();
  await ce?.dispose();
  configureModels();
});

const input = {
  question: 'what is the capital of france',
  documents: ['Paris is the capital of France. It is on the Seine.', 'The river and the sea are blue.'],
  answer: 'Paris is the capital of France.',
  goldAnswer: 'The capital of France is Paris.',
};

describe('nliTrace with the fixture models', () => {
  it('relevance, adherence, utilization and completeness equal the formulas over the same model calls', async () => {
    const r = await nliTrace(input, { nli, reranker: ce });
    const logits = await ce.score(input.question, input.documents);
    const rel = logits.map(sigmoid);
    expect(r.chunkRelevance).toEqual(rel);
    expect(r.relevance).toBe((rel[0]! + rel[1]!) / 2);
    expect(r.adherence).toBe((await nli.predict(input.documents.join('\n\n'), input.answer)).entailment);
    const sentences = input.documents.flatMap((d) => splitSentences(d).map((s) => s.text));
    expect(r.contextSentences).toEqual(['Paris is the capital of France.', 'It is on the Seine.', 'The river and the sea are blue.']);
    const ent = await Promise.all(sentences.map(async (s) => (await nli.predict(input.answer, s)).entailment));
    expect(r.sentenceEntailment).toEqual(ent);
    expect(r.utilization).toBe(ent.filter((p) => p > 0.5).length / 3);
    expect(r.completeness).toBe(rougeLF1(input.answer, input.goldAnswer));
    // ROUGE-L by hand: cand "paris is the capital of france" (6), ref "the capital of france is paris" (6),
    // LCS "the capital of france" = 4 → F1 = 4/6
    expect(r.completeness).toBeCloseTo(2 / 3, 12);
    for (const x of [r.relevance, r.adherence, r.utilization]) { expect(x).toBeGreaterThanOrEqual(0); expect(x).toBeLessThanOrEqual(1); }
  });

  it('given context sentences are used as they are; no reranker → relevance NaN; no gold answer → completeness NaN', async () => {
    const r = await nliTrace({ ...input, goldAnswer: null, contextSentences: ['Paris is the capital of France.'] }, { nli });
    expect(r.relevance).toBeNaN();
    expect(r.chunkRelevance).toEqual([]);
    expect(r.completeness).toBeNaN();
    expect(r.sentenceEntailment).toEqual([(await nli.predict(input.answer, 'Paris is the capital of France.')).entailment]);
  });
});

describe('nliTrace logic with a scripted classifier', () => {
  const scripted = (table: Record<string, number>): NliClassifier & { calls: [string, string][] } => {
    const calls: [string, string][] = [];
    return {
      spec: { id: 'scripted', dtype: 'fp32', device: 'cpu' },
      calls,
      async predict(premise, hypothesis): Promise<NliProbabilities> {
        calls.push([premise, hypothesis]);
        const e = table[hypothesis] ?? table[premise] ?? 0;
        return { entailment: e, neutral: 1 - e, contradiction: 0 };
      },
    };
  };

  it('utilization counts sentences strictly above the threshold', async () => {
    const m = scripted({ 'S1.': 0.9, 'S2.': 0.5, 'S3.': 0.51, 'A.': 0.8 });
    const r = await nliTrace({ question: 'q', documents: ['S1. S2.', 'S3.'], answer: 'A.' }, { nli: m });
    expect(r.utilization).toBeCloseTo(2 / 3, 12);
    expect(r.adherence).toBe(0.8);
    expect(m.calls[0]).toEqual(['S1. S2.\n\nS3.', 'A.']);
    expect(m.calls.slice(1)).toEqual([['A.', 'S1.'], ['A.', 'S2.'], ['A.', 'S3.']]);
    expect((await nliTrace({ question: 'q', documents: ['S1. S2.', 'S3.'], answer: 'A.' }, { nli: m }, { threshold: 0.85 })).utilization).toBeCloseTo(1 / 3, 12);
  });

  it('an empty answer or context and an aborted signal', async () => {
    const m = scripted({});
    const empty = await nliTrace({ question: 'q', documents: [], answer: '' }, { nli: m });
    expect([empty.adherence, empty.utilization, empty.relevance]).toEqual([NaN, NaN, NaN]);
    const ctl = new AbortController();
    ctl.abort(new Error('stop'));
    await expect(nliTrace(input, { nli: m }, { signal: ctl.signal })).rejects.toThrow('stop');
  });
});
