import { describe, expect, it } from 'vitest';
import { goldOfRow, goldQuestionsOf, MAX_GOLD_QUESTION_CHARS } from '../../src/lib/data/ragbench-gold.ts';
import type { RagbenchRow } from '../../src/lib/data/ragbench.ts';

const row = (question: string, x: Partial<RagbenchRow> = {}): RagbenchRow => ({
  id: question, question, documents: ['d'], response: `answer to ${question}`, generation_model_name: 'g', annotating_model_name: 'a', dataset_name: 'covidqa',
  documents_sentences: [], response_sentences: [], sentence_support_information: [], unsupported_response_sentence_keys: [],
  adherence_score: true, overall_supported_explanation: null, relevance_explanation: null, all_relevant_sentence_keys: [], all_utilized_sentence_keys: [],
  trulens_groundedness: null, trulens_context_relevance: null, ragas_faithfulness: null, ragas_context_relevance: null, gpt3_adherence: null,
  gpt3_context_relevance: null, gpt35_utilization: null, relevance_score: 0.25, utilization_score: 0.125, completeness_score: 0.5, ...x,
});

describe('RAGBench gold questions', () => {
  it('a row: its trimmed question, response and labels; a label outside [0, 1] or not finite counts as not annotated', () => {
    expect(goldOfRow(row(' Q1? ', { adherence_score: false }), 'covidqa')).toEqual({
      subset: 'covidqa', question: 'Q1?', response: 'answer to  Q1? ', relevance: 0.25, utilization: 0.125, completeness: 0.5, adherence: false,
    });
    expect(goldOfRow(row('Q', { relevance_score: 1.5, utilization_score: Number.NaN, completeness_score: null, adherence_score: null }), 's'))
      .toMatchObject({ relevance: null, utilization: null, completeness: null, adherence: null });
  });

  it('a subset: row order, a repeated question once (its first row), blank and over-long questions left out', () => {
    const g = goldQuestionsOf([row('A?'), row('  '), row('B?'), row(' A? ', { relevance_score: 1 }), row('x'.repeat(MAX_GOLD_QUESTION_CHARS + 1)), row('C?')], 'covidqa');
    expect(g.map((x) => x.question)).toEqual(['A?', 'B?', 'C?']);
    expect(g[0]!.relevance).toBe(0.25);
  });
});
