/**
 * Test sets for the tuner without people: pseudo-queries (a seeded sentence of a sampled document, that document the
 * answer; labelled as biased), and the agreement check of two test sets on hand-computed τ and regret.
 */
import { describe, expect, it } from 'vitest';
import { AGREEMENT_BAR, agreementOf } from '../../src/lib/tune/agreement.ts';
import { PSEUDO_LABEL, pseudoQueries } from '../../src/lib/tune/pseudo-queries.ts';
import { testSetQueries, TuneError } from '../../src/lib/tune/tune-session.ts';
import { parseTestSetFile, TEST_SET_LIMITS, TestSetFileError } from '../../src/lib/tune/test-set-file.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';

describe('pseudo-queries', () => {
  const docs = [
    { id: 'a', title: 'A', text: 'Short. The heart pumps blood through the body every day. It never rests at all while we live.' },
    { id: 'b', title: 'B', text: 'one two three' },
    { id: 'c', title: 'C', text: '' },
    { id: 'd', title: 'D', text: 'Cells divide by mitosis in most tissues of the body. Meiosis makes the gametes.' },
  ];
  it('a sentence of 5–40 words of each sampled document (its first words when none fits), the document its answer; seeded', () => {
    const { queries, qrels, notes } = pseudoQueries(docs, 10, 1);
    expect(notes).toEqual(['3 pseudo-queries: the documents with text are fewer than 10']);
    // c has no text: three queries at most
    expect(queries.map((q) => q.id).sort()).toEqual(['pseudo:a', 'pseudo:b', 'pseudo:d']);
    const text = Object.fromEntries(queries.map((q) => [q.id, q.text]));
    expect(['The heart pumps blood through the body every day.', 'It never rests at all while we live.']).toContain(text['pseudo:a']);
    expect(text['pseudo:b']).toBe('one two three');
    expect(text['pseudo:d']).toBe('Cells divide by mitosis in most tissues of the body.'); // "Meiosis makes the gametes." has 4 words
    expect(qrels.get('pseudo:a')).toEqual(new Map([['a', 1]]));
    expect(pseudoQueries(docs, 10, 1)).toEqual({ queries, qrels, notes });
    expect(pseudoQueries(docs, 2, 1).queries).toHaveLength(2);
    expect(() => pseudoQueries(docs, 0, 1)).toThrow(/at least 1/);
    expect(PSEUDO_LABEL).toBe('pseudo-queries: biased toward lexical matching');
  });
});

describe('the agreement of two test sets', () => {
  it('Kendall τ-b of the settings\' scores and the regret of the other set\'s top setting on the reference', () => {
    // reference 0.70, 0.68, 0.60, 0.65; other 0.80, 0.90, 0.50, 0.60: pairs (0,1) discordant, the other five concordant
    // → τ = (5 − 1) / 6 = 0.667; the other's top is setting 1: regret = 0.70 − 0.68 = 0.02
    const a = agreementOf([0.70, 0.68, 0.60, 0.65], [0.80, 0.90, 0.50, 0.60]);
    expect(a.tau).toBeCloseTo(4 / 6, 12);
    expect(a).toMatchObject({ settings: 4, topReference: 0, topOther: 1, passes: false });
    expect(a.regret).toBeCloseTo(0.02, 12);
    const same = agreementOf([0.7, 0.6, 0.5], [0.9, 0.8, 0.1]);
    expect(same).toMatchObject({ tau: 1, regret: 0, passes: true });
    expect(AGREEMENT_BAR).toEqual({ tau: 0.9, regret: 0.01 });
    expect(() => agreementOf([1], [1])).toThrow(/two or more/);
  });
});

describe('a test set checked against its knowledge base', () => {
  const kb = KnowledgeBase.build([{ id: 'a', title: '', text: 'alpha beta' }, { id: 'b', title: '', text: 'gamma delta' }], { chunking: false });
  const judge = (pairs: Array<[string, string]>) => new Map(pairs.map(([q, d]) => [q, new Map([[d, 1]])]));
  it('counts an id given twice once, leaves empty queries out, notes judged documents it does not hold', () => {
    const notes: string[] = [];
    const qs = [{ id: 'q1', text: 'alpha' }, { id: 'q1', text: 'alpha again' }, { id: 'q2', text: '  ' }, { id: 'q3', text: 'gamma' }, { id: 'q4', text: 'zeta' }, { id: 'q5', text: 'unjudged' }];
    const out = testSetQueries(qs, judge([['q1', 'a'], ['q2', 'a'], ['q3', 'b'], ['q4', 'z']]), kb, notes);
    expect(out.map((q) => q.id)).toEqual(['q1', 'q3', 'q4']);
    expect(notes).toEqual([
      "1 of the test set's 3 relevant (query, document) judgements name documents the knowledge base does not hold: they can never be met",
      '1 query id was given again: each counted once',
      '1 empty query was left out',
    ]);
  });
  it('refuses a test set of other documents, and one with fewer than 2 judged queries', () => {
    expect(() => testSetQueries([{ id: 'q', text: 'x' }, { id: 'r', text: 'y' }], judge([['q', 'x1'], ['r', 'x2']]), kb, [])).toThrow(/none of the test set's 2 relevant \(query, document\) judgements names a document of the knowledge base \(2 documents\)/);
    expect(() => testSetQueries([{ id: 'q', text: 'x' }], judge([['q', 'a']]), kb, [])).toThrow(TuneError);
  });
});

describe('a test set written by hand (CSV or JSONL)', () => {
  const kb = KnowledgeBase.build([
    { id: 'd1', title: 'Heart', text: 'The heart pumps blood through the body.' },
    { id: 'd2', title: 'Cells', text: 'Cells divide by mitosis.   Meiosis makes the GAMETES.' },
  ], { chunking: false });
  it('judges by document id, item id or answer text (case and white space folded); counts what it leaves out', () => {
    const csv = 'ID,Question,doc_id,chunk_id,answer\nq1,How does blood move?,d1,,\nq2,"Division, of cells",,d2,\nq3,gametes?,,,meiosis  makes the gametes\nq4,nothing,zzz,,\nq5,,d1,,\nq1,again,d2,,\nq6,both,d1|d2,,\n';
    const r = parseTestSetFile(csv, 'csv', kb);
    expect(r.queries.map((q) => [q.id, q.text])).toEqual([['q1', 'How does blood move?'], ['q2', 'Division, of cells'], ['q3', 'gametes?'], ['q6', 'both']]);
    expect(r.qrels.get('q2')).toEqual(new Map([['d2', 1]]));
    expect(r.qrels.get('q3')).toEqual(new Map([['d2', 1]]));
    expect(r.qrels.get('q6')).toEqual(new Map([['d1', 1], ['d2', 1]]));
    expect(r.notes).toEqual([
      '1 row judged nothing in the knowledge base (unknown ids, or an answer no item holds): left out',
      '1 row without a question: left out',
      '1 row id given again: the first kept',
    ]);
    const jsonl = '{"question":"How does blood move?","doc_id":"d1"}\n\n{"query":"gametes","answer":"THE gametes"}\n';
    const j = parseTestSetFile(jsonl, 'jsonl', kb);
    expect(j.queries.map((q) => q.id)).toEqual(['row-1', 'row-2']); // the n-th row (blank lines are not rows)
    expect(j.qrels.get('row-2')).toEqual(new Map([['d2', 1]]));
  });
  it('says what is wrong with a file that is not a test set', () => {
    expect(() => parseTestSetFile('{"question": 1\n', 'jsonl', kb)).toThrow(/line 1 is not JSON/);
    expect(() => parseTestSetFile('[1]\n', 'jsonl', kb)).toThrow(/line 1 is not an object/);
    expect(() => parseTestSetFile('a,b\n1,2\n', 'csv', kb)).toThrow(/no row has a question/);
    expect(() => parseTestSetFile('question\n"unclosed\n', 'csv', kb)).toThrow(TestSetFileError);
    expect(() => parseTestSetFile('x'.repeat(TEST_SET_LIMITS.bytes + 1), 'csv', kb)).toThrow(/over 2 MB/);
    expect(() => parseTestSetFile('question,doc_id\n' + 'q,d1\n'.repeat(TEST_SET_LIMITS.rows + 1), 'csv', kb)).toThrow(/more than 10,000/);
  });
});
