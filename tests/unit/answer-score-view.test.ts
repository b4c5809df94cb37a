import { describe, expect, it } from 'vitest';
import { goldLabels, goldQuestion, scoreLines, shownGold, type GoldQuestion } from '../../src/ui/ask/answer-score.ts';

const ROW = {
  group: 'covidqa', question: ' What spreads it? ', answer: 'Droplets spread it.',
  gold: { relevance: 0.25, utilization: 0.125, completeness: 0.5, adherence: false },
};

describe('the Ask tab\'s score lines', () => {
  it('TRACe values to 3 decimals beside the gold labels; absent values say why, never 0', () => {
    const g = goldQuestion(ROW);
    if (!g.ok) throw new Error(g.message);
    const lines = scoreLines({ evaluator: 'lexical', scores: { relevance: 1 / 3, utilization: 0, completeness: NaN, adherence: 1 }, ragas: null }, g.gold);
    expect(lines.map((l) => [l.metric, l.value, l.gold])).toEqual([
      ['relevance', '0.333', '0.250'], ['utilization', '0.000', '0.125'],
      ['completeness', '— (nothing in the sources is relevant)', '0.500'], ['adherence', '1.000', '0 (hallucinated)'],
    ]);
    expect(lines.every((l) => l.meaning.length > 0)).toBe(true);
  });

  it('RAGAS: its four after TRACe\'s (not RAGAS metrics), each absence explained', () => {
    const lines = scoreLines({
      evaluator: 'ragas', scores: { relevance: NaN, utilization: NaN, completeness: NaN, adherence: NaN },
      ragas: { faithfulness: 0.5, answer_relevancy: NaN, context_precision: NaN, context_recall: 1 },
    }, null);
    expect(lines.map((l) => [l.metric, l.value])).toEqual([
      ['relevance', '— (not a RAGAS metric)'], ['utilization', '— (not a RAGAS metric)'], ['completeness', '— (not a RAGAS metric)'], ['adherence', '— (not a RAGAS metric)'],
      ['faithfulness', '0.500'], ['answer_relevancy', '— (needs an embedder: load one under Settings → Models)'],
      ['context_precision', '— (needs a reference answer: open a RAGBench question)'], ['context_recall', '1.000'],
    ]);
    expect(lines.every((l) => l.gold === null)).toBe(true);
  });
});

describe('a RAGBench validate report row opened in Ask', () => {
  it('keeps the trimmed question, the response and the labels', () => {
    const g = goldQuestion({ ...ROW, gold: { ...ROW.gold, completeness: null, adherence: null } });
    expect(g).toEqual({ ok: true, gold: { subset: 'covidqa', question: 'What spreads it?', response: 'Droplets spread it.', relevance: 0.25, utilization: 0.125, completeness: null, adherence: null } });
    if (g.ok) expect(goldLabels(g.gold).map((l) => l.value)).toEqual(['0.250', '0.125', 'N/A', 'N/A']);
  });

  it.each([
    ['an empty question', { ...ROW, question: '  ' }, /empty or over 4000/],
    ['a question over the limit', { ...ROW, question: 'x'.repeat(4001) }, /empty or over 4000/],
    ['a label out of [0, 1]', { ...ROW, gold: { ...ROW.gold, relevance: 1.5 } }, /not scores in \[0, 1\]/],
    ['a label that is not a number', { ...ROW, gold: { ...ROW.gold, utilization: '0.5' } }, /not scores/],
    ['an adherence that is not a verdict', { ...ROW, gold: { ...ROW.gold, adherence: 1 } }, /not scores/],
    ['no question', { ...ROW, question: undefined }, /no question to open/],
  ])('refuses %s', (_name, row, message) => {
    const g = goldQuestion(row);
    expect(g.ok).toBe(false);
    if (!g.ok) expect(g.message).toMatch(message);
  });
});

describe('a RAGBench pipeline report row opened in Ask', () => {
  it('brings the question and labels but not the pipeline\'s answer as a response', () => {
    const g = goldQuestion({ ...ROW, answer: 'The pipeline said droplets.' }, 'ragbench-pipeline');
    expect(g).toEqual({ ok: true, gold: { subset: 'covidqa', question: 'What spreads it?', response: null, relevance: 0.25, utilization: 0.125, completeness: 0.5, adherence: false } });
    // A pipeline row has no RAGBench response to check: a missing answer is no reason to refuse it.
    expect(goldQuestion({ ...ROW, answer: undefined }, 'ragbench-pipeline').ok).toBe(true);
    expect(goldQuestion({ ...ROW, answer: undefined }).ok).toBe(false);
  });
});

describe('the gold question shown beside a question', () => {
  const own: GoldQuestion = { subset: 'covidqa', question: 'What spreads it?', response: 'Droplets.', relevance: 0.5, utilization: 0.5, completeness: 1, adherence: true };
  const other: GoldQuestion = { ...own, question: 'Who funds it?', response: 'The state.' };
  const kb = new Map([own, other].map((g) => [g.question, g]));
  const opened = (x: Partial<GoldQuestion>): GoldQuestion => ({ ...own, relevance: 0.25, ...x });

  it('the row opened while the field holds its question, else the open subset\'s own question, else none', () => {
    expect(shownGold(' What spreads it? ', opened({}), kb)).toEqual(opened({}));
    expect(shownGold('Who funds it?', opened({}), kb)).toBe(other);
    expect(shownGold('Who funds it?', null, new Map())).toBeNull();
    expect(shownGold('What spreads it?', null, kb)).toBe(own);
  });

  it('a pipeline row\'s missing response comes from the open subset\'s row of that question, only of the same subset', () => {
    expect(shownGold('What spreads it?', opened({ response: null }), kb)).toEqual(opened({ response: 'Droplets.' }));
    expect(shownGold('What spreads it?', opened({ response: null, subset: 'hotpotqa' }), kb)).toEqual(opened({ response: null, subset: 'hotpotqa' }));
  });
});
