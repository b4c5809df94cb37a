import { describe, expect, it } from 'vitest';
import { rowCountInput, rowCountParam, uniqueList } from '../../src/lib/link-params.ts';
import { DEFAULT_URL_STATE, optionalK, parseUrlState, serializeUrlState } from '../../src/ui/search/url-state.ts';

describe('Search link parsing', () => {
  it('treats blank numbers as absent (never 0), with a warning each', () => {
    const { state, warnings } = parseUrlState('?thr=&k=&ymin=%20&ck=30');
    expect(state.rejectThreshold).toBe(DEFAULT_URL_STATE.rejectThreshold);
    expect(state.rejectThreshold).not.toBe(0);
    expect(state.topK).toBe(DEFAULT_URL_STATE.topK);
    expect(state.filters).toEqual([]);
    expect(state.candidateK).toBe(30);
    expect(warnings).toEqual([
      `Ignored the empty k= in the link; using ${DEFAULT_URL_STATE.topK}.`,
      "Ignored the empty thr= in the link; using the mode's default.",
      'Ignored the empty ymin= in the link; using no limit.',
    ]);
  });

  it("carries seed A's separate k's (bk, dk, fk): absent = candidate_k, round-tripped, refused out of range", () => {
    expect(DEFAULT_URL_STATE).toMatchObject({ bm25K: null, denseK: null, fusionTopK: null });
    const { state, warnings } = parseUrlState('?q=tariff&bk=10&dk=40&fk=25');
    expect(warnings).toEqual([]);
    expect(state).toMatchObject({ bm25K: 10, denseK: 40, fusionTopK: 25 });
    expect(serializeUrlState(state)).toBe('?q=tariff&bk=10&dk=40&fk=25');
    const bad = parseUrlState('?bk=0&dk=&fk=5000');
    expect(bad.state).toMatchObject({ bm25K: null, denseK: null, fusionTopK: null });
    expect(bad.warnings).toEqual(['Ignored invalid bk="0" in the link.', 'Ignored the empty dk= in the link; using candidate_k.', 'Ignored invalid fk="5000" in the link.']);
    expect(serializeUrlState(DEFAULT_URL_STATE)).toBe('');
    expect([optionalK(7), optionalK('12'), optionalK(''), optionalK(null), optionalK(0), optionalK(2.5), optionalK(1001)]).toEqual([7, 12, null, null, null, null, null]);
  });

  it('names and ignores an oversized parameter (bk= of 200,000 characters), and the search runs with the rest', () => {
    const huge = '9'.repeat(200_000);
    const { state, warnings } = parseUrlState(`?q=emancipation&mode=hybrid_fixed&bk=${huge}&f.party=${'x'.repeat(5000)}&min.${'y'.repeat(2000)}=1`);
    expect(state).toMatchObject({ q: 'emancipation', mode: 'hybrid_fixed', bm25K: null, filters: [] });
    expect(warnings).toEqual([
      'Ignored bk= (its value has 200,000 characters) in the link: at most 1,000; the rest of the link is used.',
      'Ignored f.party= (its value has 5,000 characters) in the link: at most 1,000; the rest of the link is used.',
      `Ignored a parameter whose name has 2,004 characters ("min.${'y'.repeat(56)}…") in the link: at most 1,000; the rest of the link is used.`,
    ]);
    // Under the limit but invalid: the value shown is cut, never echoed whole.
    const bad = parseUrlState(`?q=x&bk=${'9'.repeat(900)}&mode=${'m'.repeat(900)}`);
    expect(bad.state.q).toBe('x');
    expect(bad.warnings).toEqual([`Unknown mode "${'m'.repeat(60)}…" in the link; using sparse.`, `Ignored invalid bk="${'9'.repeat(60)}…" in the link.`]);
    // The query is free text: cut to its own limit, as before.
    expect(parseUrlState(`?q=${'a'.repeat(20_000)}`).warnings).toEqual(['The query in the link was cut to 10000 characters.']);
  });

  it('keeps a real 0 where 0 is allowed', () => {
    const { state, warnings } = parseUrlState('?thr=0');
    expect(state.rejectThreshold).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('falls back on blank or unknown mode and calibration, with a warning', () => {
    const { state, warnings } = parseUrlState('?mode=&cal=fancy');
    expect(state.mode).toBe(DEFAULT_URL_STATE.mode);
    expect(state.calibration).toBe(DEFAULT_URL_STATE.calibration);
    expect(warnings).toEqual([
      `Ignored the empty mode= in the link; using ${DEFAULT_URL_STATE.mode}.`,
      `Unknown calibration "fancy" in the link; using ${DEFAULT_URL_STATE.calibration}.`,
    ]);
  });

  it('keeps each party once and the first of a repeated parameter, with warnings', () => {
    const { state, warnings } = parseUrlState(`?party=Democratic&party=Republican&party=Democratic&party=&k=3&k=8&party=${'x'.repeat(101)}`);
    expect(state.filters).toEqual([{ field: 'party', values: ['Democratic', 'Republican'] }]);
    expect(state.topK).toBe(3);
    expect(warnings).toEqual([
      'The link gives k 2 times; using the first ("3").',
      'Ignored 1 party value(s) longer than 100 characters in the link.',
      'The link lists "Democratic" more than once in party; each is used once.',
    ]);
    // What is written back is the cleaned state, in the generic filter form.
    expect(serializeUrlState(state)).toBe('?k=3&f.party=Democratic&f.party=Republican');
  });
});

describe('generic filter parameters', () => {
  it('reads f.<field>, min.<field> and max.<field> for any field, and round-trips them', () => {
    const { state, warnings } = parseUrlState('?min.year=1900&max.year=1950.5&f.genre=essay&f.genre=poem&q=x');
    expect(warnings).toEqual([]);
    expect(state.filters).toEqual([{ field: 'year', min: 1900, max: 1950.5 }, { field: 'genre', values: ['essay', 'poem'] }]);
    expect(parseUrlState(serializeUrlState(state)).state).toEqual(state);
  });

  it('keeps old links: ymin, ymax and party mean min.year, max.year and f.party', () => {
    const { state, warnings } = parseUrlState('?ymin=1933&ymax=1945&party=Democratic');
    expect(warnings).toEqual([]);
    expect(state.filters).toEqual([{ field: 'year', min: 1933, max: 1945 }, { field: 'party', values: ['Democratic'] }]);
    expect(serializeUrlState(state)).toBe('?min.year=1933&max.year=1945&f.party=Democratic');
  });

  it('warns on a bound given twice (old and new name), a bad number, a blank bound and a field that is not a name', () => {
    const { state, warnings } = parseUrlState('?ymin=1900&min.year=1800&max.year=soon&min.x=%20&f.a%20b=1');
    expect(state.filters).toEqual([{ field: 'year', min: 1900 }]);
    expect(warnings).toEqual([
      'The link gives min.year more than once; using the first.',
      'Ignored invalid max.year="soon" in the link.',
      'Ignored the empty min.x= in the link; using no limit.',
      'Ignored f.a b= in the link: "a b" is not a field name.',
    ]);
  });
});

describe('uniqueList', () => {
  it('drops blanks, duplicates and unknown entries in order of first appearance, naming each change', () => {
    expect(uniqueList(['emanual', 'emanual', ' covidqa', '', 'nope'], 'b_sub', ['emanual', 'covidqa', 'hotpotqa'])).toEqual({
      values: ['emanual', 'covidqa'],
      warnings: ['Ignored unknown b_sub "nope" in the link (known: emanual, covidqa, hotpotqa).', 'The link lists "emanual" more than once in b_sub; each is used once.'],
    });
    expect(uniqueList(['a', 'b'], 'x')).toEqual({ values: ['a', 'b'], warnings: [] });
  });
});

describe('rows per subset in a Benchmark link (b_n)', () => {
  it('takes all and whole numbers; a number past any count means all rows with a warning, never an internal error', () => {
    expect(rowCountParam(null, 'b_n')).toEqual({});
    expect(rowCountParam('all', 'b_n')).toEqual({ n: null });
    expect(rowCountParam('25', 'b_n')).toEqual({ n: 25 });
    expect(rowCountParam(String(Number.MAX_SAFE_INTEGER), 'b_n')).toEqual({ n: Number.MAX_SAFE_INTEGER });
    const huge = rowCountParam('100000000000000000000', 'b_n');
    expect(huge.n).toBeNull();
    expect(huge.warning).toBe('b_n="100000000000000000000" in the link is more rows than any dataset holds: using all rows.');
    for (const bad of ['0', '-3', '2.5', 'abc', 'Infinity']) {
      const r = rowCountParam(bad, 'b_n');
      expect(r.n).toBeUndefined();
      expect(r.warning).toMatch(/^Ignored invalid b_n=/);
    }
    expect(rowCountParam(' ', 'b_n').warning).toMatch(/^Ignored the empty b_n=/);
  });

  it('the rows box: empty is all, a number is rounded to at least 1, past 2^53 − 1 it is all', () => {
    expect(rowCountInput('')).toBeNull();
    expect(rowCountInput('0')).toBe(1);
    expect(rowCountInput('12.4')).toBe(12);
    expect(rowCountInput('1e20')).toBeNull();
  });
});
