import { describe, expect, it } from 'vitest';
import { LexicalEvaluator, lexicalTrace, stripMarkup } from '../../src/lib/eval/metrics/lexical.ts';

const DOCS = ['Paris is the capital of France. The Seine flows through Paris.'];
const Q = 'What is the capital of France?';
const ln = Math.log;

describe('content words', () => {
  const ev = new LexicalEvaluator();
  it('drops function and context words, stems the rest, keeps numbers whole', () => {
    expect(ev.contentWords('Based on the provided context, the Seine flows through Paris in 1990s and 2.5 km.'))
      .toEqual(['sein', 'flow', 'pari', '1990s', '2.5', 'km']);
  });
  it('strips list and citation markers', () => {
    expect(stripMarkup('1. First [1]\n2) Second [2, 4]\n- third [Context 3]')).toBe('First  \nSecond  \nthird  ');
    expect(ev.contentWords('1. Paris [1]')).toEqual(['pari']);
  });
  it('abstentions: a negation next to a word about the context', () => {
    expect(ev.isAbstention('The context does not mention the population.')).toBe(true);
    expect(ev.isAbstention("I'm sorry, I cannot provide an answer.")).toBe(true);
    expect(ev.isAbstention('The bridge is not open on Sundays.')).toBe(false);
    expect(ev.isAbstention('The context mentions the bridge.')).toBe(false);
  });
});

describe('adherence', () => {
  it('a sentence copied from the context is fully supported', () => {
    const r = lexicalTrace({ question: Q, documents: DOCS, response: 'Paris is the capital of France.' });
    expect(r.adherence).toBe(1);
    expect(r.sentences[0]).toMatchObject({ key: 'r1', claim: true, content: 1, phrasing: 1, bestKey: '0a', unsupported: [] });
  });

  it('an unsupported word lowers support by its weight (hand-computed)', () => {
    // Context sentences (N = 2): 0a {pari, capit, franc}, 0b {sein, flow, pari}.
    // idf = ln(1 + (N − n + 0.5)/(n + 0.5)): pari (n = 2) ln 1.2, capit (n = 1) ln 2, germani (n = 0) ln 6.
    // content = (ln 1.2 + ln 2) / (ln 1.2 + ln 2 + ln 6); phrasing: 4 of 5 pairs ("of germani" is new) = 0.8.
    const r = lexicalTrace({ question: Q, documents: DOCS, response: 'Paris is the capital of Germany.' });
    const content = (ln(1.2) + ln(2)) / (ln(1.2) + ln(2) + ln(6));
    expect(r.sentences[0]!.content).toBeCloseTo(content, 12);
    expect(r.sentences[0]!.phrasing).toBeCloseTo(0.8, 12);
    expect(r.adherence).toBeCloseTo((content + 0.8) / 2, 12);
    expect(r.sentences[0]!.unsupported).toEqual(['germani']);
  });

  it('numbers must match exactly and weigh as much as an absent word', () => {
    const docs = ['The tower is 330 metres tall. It opened in 1889.'];
    const good = lexicalTrace({ question: 'How tall is the tower?', documents: docs, response: 'The tower is 330 metres tall.' });
    const bad = lexicalTrace({ question: 'How tall is the tower?', documents: docs, response: 'The tower is 300 metres tall.' });
    expect(good.adherence).toBe(1);
    expect(bad.sentences[0]!.unsupported).toEqual(['300']);
    // N = 2; tower, metr, tall in 0a only (idf ln 2 each); 300 gets the absent-word weight ln 6.
    const content = (3 * ln(2)) / (3 * ln(2) + ln(6));
    // pairs: the tower, tower is, is 300, 300 metr, metr tall → 3 of 5 in the context
    expect(bad.adherence).toBeCloseTo((content + 3 / 5) / 2, 12);
  });

  it('abstaining is not hallucinating; an answer with no claim has adherence 1', () => {
    const r = lexicalTrace({ question: 'How many people live in Paris?', documents: DOCS, response: 'The context does not mention the population of Paris.' });
    expect(r.sentences[0]!.claim).toBe(false);
    expect(r.adherence).toBe(1);
  });

  it('citation markers do not change the score', () => {
    const a = lexicalTrace({ question: Q, documents: DOCS, response: 'Paris is the capital of Germany.' });
    const b = lexicalTrace({ question: Q, documents: DOCS, response: 'Paris is the capital of Germany [1].' });
    expect(b.adherence).toBe(a.adherence);
  });

  it('aggregates: content-weighted mean (default), min and mean', () => {
    const response: [string, string][] = [['a', 'Paris is the capital of France.'], ['b', 'Berlin hosts enormous zeppelin festivals.']];
    const w = lexicalTrace({ question: Q, documents: DOCS, response });
    const [s1, s2] = w.sentences;
    expect(s1!.support).toBe(1);
    expect(s2!.support).toBeLessThan(0.1);
    // weights: 3 content words (pari, capit, franc) and 5 (berlin, host, enorm, zeppelin, festiv)
    expect(w.adherence).toBeCloseTo((3 * s1!.support + 5 * s2!.support) / 8, 12);
    expect(lexicalTrace({ question: Q, documents: DOCS, response }, { aggregate: 'min' }).adherence).toBe(s2!.support);
    expect(lexicalTrace({ question: Q, documents: DOCS, response }, { aggregate: 'mean' }).adherence).toBeCloseTo((1 + s2!.support) / 2, 12);
  });
});

describe('relevance, utilization, completeness', () => {
  it('keys from question and answer coverage', () => {
    // question {capit, franc} is covered by 0a alone; the answer uses 0a only.
    const r = lexicalTrace({ question: Q, documents: DOCS, response: 'Paris is the capital of France.' });
    expect(r.relevantKeys).toEqual(['0a']);
    expect(r.utilizedKeys).toEqual(['0a']);
    expect([r.relevance, r.utilization, r.completeness]).toEqual([0.5, 0.5, 1]);
  });

  it('a relevant sentence the answer leaves out lowers completeness', () => {
    const docs: [string, string][][] = [[['0a', 'The Seine flows through Paris.'], ['0b', 'The Seine is 777 km long.']], [['1a', 'Bananas are yellow.']]];
    const r = lexicalTrace({ question: 'How long is the Seine?', documents: docs, response: 'The Seine flows through Paris.' });
    // question {long, sein}: 0b covers both → relevant; 0a only sein (ln 1.6 of ln 1.6 + ln(8/3), under half) but
    // the answer uses it, so it is utilized and relevant.
    expect(r.utilizedKeys).toEqual(['0a']);
    expect(r.relevantKeys).toEqual(['0a', '0b']);
    expect(r.relevance).toBeCloseTo(2 / 3, 12);
    expect(r.utilization).toBeCloseTo(1 / 3, 12);
    expect(r.completeness).toBeCloseTo(1 / 2, 12);
  });

  it('a question word the context lacks weighs most: covering the rest is not enough', () => {
    const docs: [string, string][][] = [[['0a', 'The Seine is 777 km long.'], ['0b', 'Paris is big.'], ['0c', 'Rome is old.']]];
    // question {long, sein, river}, N = 3: long and sein (n = 1) weigh ln(1 + 2.5/1.5) each, river (n = 0) ln 8:
    // 0a covers 2·ln(8/3) / (2·ln(8/3) + ln 8) < 0.5 → not relevant; nothing is utilized either.
    const r = lexicalTrace({ question: 'How long is the Seine river?', documents: docs, response: 'Bananas are yellow.' });
    expect(2 * ln(8 / 3) / (2 * ln(8 / 3) + ln(8))).toBeLessThan(0.5);
    expect(r.relevantKeys).toEqual([]);
    expect(r.completeness).toBeNaN();
  });

  it('is deterministic and independent of the evaluator instance', () => {
    const input = { question: Q, documents: DOCS, response: 'Paris, on the Seine, is the capital of France and of fashion.' };
    const ev = new LexicalEvaluator();
    expect(ev.evaluate(input)).toEqual(ev.evaluate(input));
    expect(new LexicalEvaluator().evaluate(input)).toEqual(ev.evaluate(input));
  });
});
