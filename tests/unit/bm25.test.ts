import { describe, expect, it } from 'vitest';
import { Bm25Index, bm25Idf, bm25TermScore, DEFAULT_BM25, type Bm25Data } from '../../src/lib/retrieval/bm25.ts';

/*
 * Corpus with a plain analyzer (no stemming, no stop words), k1 = 1.2, b = 0.75:
 *   d0 "apple banana apple"      |d0| = 3  (apple tf 2, banana tf 1)
 *   d1 "banana cherry"           |d1| = 2
 *   d2 "cherry date elder fig"   |d2| = 4
 * N = 3, avgdl = 9/3 = 3
 * df: apple 1, banana 2, cherry 2, date 1, elder 1, fig 1
 * idf(df=1) = ln(1 + (3 − 1 + 0.5)/(1 + 0.5)) = ln(1 + 2.5/1.5) = ln(8/3) = 0.98082925
 * idf(df=2) = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln(1 + 1.5/2.5) = ln(1.6)  = 0.47000363
 */
const IDF1 = 0.98082925; // ln(8/3)
const IDF2 = 0.47000363; // ln(1.6)
// Length norms K(d) = k1·(1 − b + b·|d|/avgdl):
//   K(d0) = 1.2·(0.25 + 0.75·3/3) = 1.2
//   K(d1) = 1.2·(0.25 + 0.75·2/3) = 1.2·0.75 = 0.9
//   K(d2) = 1.2·(0.25 + 0.75·4/3) = 1.2·1.25 = 1.5
// term score = idf·tf·(k1 + 1)/(tf + K) with k1 + 1 = 2.2

const texts = ['apple banana apple', 'banana cherry', 'cherry date elder fig'];
const params = { k1: 1.2, b: 0.75 };
const plain = { stem: false, removeStopWords: false };
const idOf = (i: number) => `d${i}`;
const build = () => Bm25Index.build(texts, params, plain);

// banana: d0 = IDF2·1·2.2/(1 + 1.2) = IDF2 = 0.47000363; d1 = IDF2·2.2/(1 + 0.9) = 0.47000363·1.15789474 = 0.54421473
const BANANA_D0 = 0.47000363;
const BANANA_D1 = 0.54421473;
// apple (d0 only): IDF1·2·2.2/(2 + 1.2) = 0.98082925·4.4/3.2 = 0.98082925·1.375 = 1.34864022
const APPLE_D0 = 1.34864022;
// cherry: d1 = IDF2·2.2/1.9 = 0.54421473; d2 = IDF2·2.2/(1 + 1.5) = 0.47000363·0.88 = 0.41360319
const CHERRY_D1 = 0.54421473;
const CHERRY_D2 = 0.41360319;

describe('bm25Idf / bm25TermScore', () => {
  it('idf = ln(1 + (N − n + 0.5)/(n + 0.5))', () => {
    expect(bm25Idf(3, 1)).toBeCloseTo(IDF1, 7);
    expect(bm25Idf(3, 2)).toBeCloseTo(IDF2, 7);
    // n = N = 3: ln(1 + 0.5/3.5) = ln(8/7) = 0.13353139 (never negative, unlike classic Robertson idf)
    expect(bm25Idf(3, 3)).toBeCloseTo(0.13353139, 7);
    // N = 1000, n = 10: ln(1 + 990.5/10.5) = ln(95.333333) = 4.5573795
    expect(bm25Idf(1000, 10)).toBeCloseTo(4.5573795, 6);
  });

  it('term score = idf·tf·(k1+1)/(tf + k1·(1 − b + b·dl/avgdl))', () => {
    // idf 2, tf 3, dl 10, avgdl 5, k1 1.2, b 0.75: 2·3·2.2/(3 + 1.2·(0.25 + 1.5)) = 13.2/(3 + 2.1) = 2.58823529
    expect(bm25TermScore(2, 3, 10, 5, { k1: 1.2, b: 0.75 })).toBeCloseTo(2.58823529, 7);
    // b = 0: no length normalisation: 1·1·1.9/(1 + 0.9) = 1
    expect(bm25TermScore(1, 1, 100, 1, { k1: 0.9, b: 0 })).toBeCloseTo(1, 12);
  });

  it('uses Anserini defaults k1 = 0.9, b = 0.4', () => {
    expect(DEFAULT_BM25).toEqual({ k1: 0.9, b: 0.4 });
  });
});

describe('Bm25Index on a hand-computed corpus', () => {
  it('indexes sizes, average length and vocabulary', () => {
    const idx = build();
    expect(idx.size).toBe(3);
    expect(idx.avgdl).toBe(3);
    expect(idx.vocabularySize).toBe(6);
    expect(idx.params).toEqual(params);
  });

  it('scores a single term and ranks shorter documents higher', () => {
    const hits = build().search('banana', 10, idOf);
    expect(hits.map((h) => h.index)).toEqual([1, 0]);
    expect(hits[0]!.score).toBeCloseTo(BANANA_D1, 6);
    expect(hits[1]!.score).toBeCloseTo(BANANA_D0, 6);
  });

  it('sums term contributions over a multi-term query', () => {
    const hits = build().search('apple cherry', 10, idOf);
    // d0 = APPLE_D0 = 1.34864022; d1 = CHERRY_D1 = 0.54421473; d2 = CHERRY_D2 = 0.41360319
    expect(hits.map((h) => h.index)).toEqual([0, 1, 2]);
    expect(hits[0]!.score).toBeCloseTo(APPLE_D0, 6);
    expect(hits[1]!.score).toBeCloseTo(CHERRY_D1, 6);
    expect(hits[2]!.score).toBeCloseTo(CHERRY_D2, 6);
    // banana + cherry: d1 = 0.54421473 + 0.54421473 = 1.08842946
    const bc = build().search('banana cherry', 1, idOf);
    expect(bc).toHaveLength(1);
    expect(bc[0]!.index).toBe(1);
    expect(bc[0]!.score).toBeCloseTo(1.08842946, 6);
  });

  it('counts a duplicated query term twice', () => {
    const idx = build();
    const once = idx.scoreAll('banana');
    const twice = idx.scoreAll('banana banana');
    expect(twice[0]).toBeCloseTo(2 * BANANA_D0, 6);
    expect(twice[1]).toBeCloseTo(2 * BANANA_D1, 6);
    expect(twice[2]).toBe(0);
    expect(once[1]).toBeCloseTo(BANANA_D1, 6);
  });

  it('scoreAll returns a fresh array with zeros for non-matching items', () => {
    const idx = build();
    const a = idx.scoreAll('cherry');
    expect(a).toBeInstanceOf(Float64Array);
    expect(a).toHaveLength(3);
    expect(a[0]).toBe(0);
    expect(a[1]).toBeCloseTo(CHERRY_D1, 6);
    expect(a[2]).toBeCloseTo(CHERRY_D2, 6);
    // a second query does not overwrite the first result, and scores do not leak between queries
    const b = idx.scoreAll('apple');
    expect(a[1]).toBeCloseTo(CHERRY_D1, 6);
    expect([b[0]!, b[1]!, b[2]!].map((x) => Number(x.toFixed(6)))).toEqual([Number(APPLE_D0.toFixed(6)), 0, 0]);
  });

  it('scoreItems scores chosen items in the given order, 0 where nothing matches', () => {
    const idx = build();
    const s = idx.scoreItems('apple cherry', [2, 0, 1]);
    expect(s).toHaveLength(3);
    expect(s[0]).toBeCloseTo(CHERRY_D2, 6);
    expect(s[1]).toBeCloseTo(APPLE_D0, 6);
    expect(s[2]).toBeCloseTo(CHERRY_D1, 6);
    expect(idx.scoreItems('fig', [0, 1])).toEqual([0, 0]);
    // and a stale score from the previous query is not reused
    expect(idx.scoreItems('apple', [1, 2])).toEqual([0, 0]);
  });

  it('accepts pre-analysed terms and ignores unknown terms', () => {
    const idx = build();
    const hits = idx.search(['banana', 'zzz'], 10, idOf);
    expect(hits.map((h) => h.index)).toEqual([1, 0]);
    expect(idx.search('zzz qqq', 10, idOf)).toEqual([]);
    expect(idx.search('', 10, idOf)).toEqual([]);
  });

  it('honours accept and k', () => {
    const idx = build();
    expect(idx.search('banana', 10, idOf, (i) => i !== 1).map((h) => h.index)).toEqual([0]);
    expect(idx.search('apple cherry', 2, idOf).map((h) => h.index)).toEqual([0, 1]);
  });

  it('breaks equal scores by id', () => {
    // two identical documents: equal scores, ordered by id ascending (ids reversed relative to index)
    const idx = Bm25Index.build(['kiwi lime', 'kiwi lime', 'mango'], params, plain);
    const ids = ['z', 'y', 'x'];
    expect(idx.search('kiwi', 10, (i) => ids[i]!).map((h) => h.index)).toEqual([1, 0]);
  });

  it('rejects invalid parameters', () => {
    expect(() => Bm25Index.build(texts, { k1: -1 })).toThrow(/k1/);
    expect(() => Bm25Index.build(texts, { b: 1.5 })).toThrow(/b/);
    expect(() => Bm25Index.build(texts, { b: -0.1 })).toThrow();
    expect(() => Bm25Index.build(texts, { k1: Number.NaN })).toThrow();
  });

  it('handles an empty corpus and empty documents', () => {
    const empty = Bm25Index.build([]);
    expect(empty.size).toBe(0);
    expect(empty.search('anything', 5, idOf)).toEqual([]);
    const withBlank = Bm25Index.build(['', 'kiwi'], params, plain);
    expect(withBlank.size).toBe(2);
    // avgdl = (0 + 1)/2 = 0.5; K(d1) = 1.2·(0.25 + 0.75·1/0.5) = 1.2·1.75 = 2.1
    // idf(df=1, N=2) = ln(1 + 1.5/1.5) = ln 2 = 0.69314718; score = 0.69314718·2.2/(1 + 2.1) = 1.52492380/3.1 = 0.49191090
    expect(withBlank.avgdl).toBe(0.5);
    expect(withBlank.scoreAll('kiwi')[1]).toBeCloseTo(0.4919109, 6);
  });
});

describe('Bm25Index with the default analyzer and parameters', () => {
  it('analyses documents and queries the same way (stop words, stems)', () => {
    // d0 "The cats are running" → [cat, run] (2); d1 "a dog" → [dog] (1); d2 "Cat" → [cat] (1); avgdl = 4/3
    // "cat": df 2, N 3 → idf = ln(1 + 1.5/2.5) = ln 1.6 = 0.47000363
    // k1 0.9, b 0.4: K(d0) = 0.9·(0.6 + 0.4·2/(4/3)) = 0.9·1.2 = 1.08; K(d2) = 0.9·(0.6 + 0.4·0.75) = 0.81
    // d0 = 0.47000363·1.9/2.08 = 0.42933024; d2 = 0.47000363·1.9/1.81 = 0.49337398
    const idx = Bm25Index.build(['The cats are running', 'a dog', 'Cat']);
    expect(idx.avgdl).toBeCloseTo(4 / 3, 12);
    expect(idx.queryTerms('Cats!')).toEqual(['cat']);
    const hits = idx.search('Cats!', 5, idOf);
    expect(hits.map((h) => h.index)).toEqual([2, 0]);
    expect(hits[0]!.score).toBeCloseTo(0.49337398, 6);
    expect(hits[1]!.score).toBeCloseTo(0.42933024, 6);
    expect(idx.search('the are', 5, idOf)).toEqual([]);
  });

  it('reports build progress up to the total', () => {
    const calls: Array<[number, number]> = [];
    Bm25Index.build(texts, {}, {}, (done, total) => calls.push([done, total]));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[calls.length - 1]).toEqual([3, 3]);
  });
});

describe('Bm25Index serialisation', () => {
  it('toData / fromData round trip gives identical scores, also through structuredClone', () => {
    const idx = build();
    const restored = Bm25Index.fromData(idx.toData());
    const cloned = Bm25Index.fromData(structuredClone(idx.toData()));
    for (const q of ['apple cherry', 'banana', 'fig date date', 'nothing']) {
      const want = [...idx.scoreAll(q)];
      expect([...restored.scoreAll(q)]).toEqual(want);
      expect([...cloned.scoreAll(q)]).toEqual(want);
    }
    expect(cloned.params).toEqual(params);
    // the analyzer options travel with the data: stop words are not dropped, no stemming
    expect(cloned.queryTerms('the running')).toEqual(['the', 'running']);
  });

  it('keeps the default analyzer settings through a round trip', () => {
    const idx = Bm25Index.build(['The cats are running']);
    const data = structuredClone(idx.toData());
    expect(data.version).toBe(1);
    expect(data.analyzer.stem).toBe(true);
    expect(data.analyzer.stopWords).toContain('the');
    expect(Bm25Index.fromData(data).queryTerms('the running')).toEqual(['run']);
  });

  it('fromData rejects another version', () => {
    const data = build().toData();
    expect(() => Bm25Index.fromData({ ...data, version: 2 } as unknown as Bm25Data)).toThrow(/version/);
    expect(() => Bm25Index.fromData(undefined as unknown as Bm25Data)).toThrow(/version/);
  });

  it('fromData rejects inconsistent arrays', () => {
    const data = build().toData();
    expect(() => Bm25Index.fromData({ ...data, offsets: data.offsets.slice(0, -1) })).toThrow(/inconsistent/);
    expect(() => Bm25Index.fromData({ ...data, tfs: data.tfs.slice(1) })).toThrow(/inconsistent/);
    expect(() => Bm25Index.fromData({ ...data, docs: data.docs.slice(1), tfs: data.tfs.slice(1) })).toThrow(/inconsistent/);
    expect(() => Bm25Index.fromData({ ...data, terms: [...data.terms, 'extra'] })).toThrow(/inconsistent/);
  });
});

describe('Bm25Index.termMatches', () => {
  it('gives each query term its idf and whether the item holds it; unknown terms count with n = 0; repeats kept', () => {
    const idx = build();
    // d0 "apple banana apple": apple (df 1) yes, cherry (df 2) no
    expect(idx.termMatches(['apple', 'cherry'], 0)).toEqual({ idf: [expect.closeTo(IDF1, 7), expect.closeTo(IDF2, 7)], matched: [true, false] });
    // d2 "cherry date elder fig": cherry yes, fig yes; unknown zzz: ln(1 + (3 − 0 + 0.5)/(0 + 0.5)) = ln 8 = 2.07944154
    const r = idx.termMatches(['cherry', 'zzz', 'fig', 'cherry'], 2);
    expect(r.matched).toEqual([true, false, true, true]);
    expect(r.idf[1]).toBeCloseTo(2.07944154, 7);
    expect(r.idf[3]).toBeCloseTo(IDF2, 7);
    // banana is in d0 and d1 (first and second posting), not in d2 (past the end of its postings)
    expect([0, 1, 2].map((d) => idx.termMatches(['banana'], d).matched[0])).toEqual([true, true, false]);
    expect(idx.termMatches([], 1)).toEqual({ idf: [], matched: [] });
  });
});
