/** The RAGBench progress of the Benchmark tab (bench-progress.ts): every subset with its state, from the first moment to the end. */
import { describe, expect, it } from 'vitest';
import { finishedProgress, loadText, startProgress, subsetStateText } from '../../src/ui/bench/bench-progress.ts';

describe('RAGBench progress', () => {
  it('is not blank at the start: the first subset loading, the others queued', () => {
    const p = startProgress(['covidqa', 'emanual']);
    expect(p.phase === 'load' && loadText(p)).toBe('Loading covidqa…');
    expect(p.subsets.map(subsetStateText)).toEqual(['covidqa: loading', 'emanual: queued']);
  });
  it('counts rows once the loader knows the total', () => {
    expect(loadText({ phase: 'load', subset: 'hagrid', loaded: 120, total: 1318, subsets: [] })).toBe('Loading hagrid: 120 / 1318 rows');
  });
  it('at the end: each subset done but the skipped ones, with why; nothing left to wait for', () => {
    const last = { phase: 'score' as const, subset: 'covidqa', total: 20, done: 19, cached: 0, invalid: 0, failed: 0, pending: 1, etaMs: 800, subsets: [] };
    const p = finishedProgress(last, ['emanual', 'covidqa'], [{ subset: 'emanual', reason: 'Could not reach the Hub' }]);
    expect(p.subsets.map(subsetStateText)).toEqual(['emanual: skipped (Could not reach the Hub)', 'covidqa: done']);
    expect(p.phase === 'score' && p.etaMs).toBe(0);
  });
});
