import { describe, expect, it } from 'vitest';
import { H1_REFERENCE, queryAlphaNote, reportAlphaNote, saturatedNote, telemetryAlphaNote } from '../../src/ui/search/alpha-note.ts';
import { noRealQueryText, reportSimRun } from '../../src/ui/search/alpha-sim-view.ts';

const LOG2_20 = Math.log2(20);

describe('why α sits at 0.5: the note where α is shown', () => {
  it('the telemetry of a search whose two entropies are at log2 k says so and why, with the H1 reference', () => {
    const t = { hSparse: 4.322, hDense: 4.3219, entropy: { k: 20 }, candidates: { sparse: 20, dense: 20 } };
    const note = telemetryAlphaNote(t)!;
    expect(note).toMatch(/^Both entropies are within 1 % of their maximum log2\(20\) = 4\.32: the calibrated scores of the top candidates are near-uniform/);
    expect(note).toContain('so entropy carries no signal and α = 0.5');
    expect(note).toContain('seed B’s own H1 result');
    expect(note).toContain(H1_REFERENCE);
    // one side with signal, no entropy (not a calibrated hybrid), or fewer candidates than k (H's top is lower)
    expect(telemetryAlphaNote({ ...t, hSparse: 3.1 })).toBeNull();
    expect(telemetryAlphaNote({ ...t, entropy: null })).toBeNull();
    expect(telemetryAlphaNote({ ...t, hSparse: Math.log2(5), candidates: { sparse: 5, dense: 20 } })).toMatch(/log2\(5\) = 2\.32 \(BM25\) and log2\(20\) = 4\.32 \(dense\)/);
    expect(telemetryAlphaNote({ ...t, candidates: { sparse: 40, dense: 40 }, entropy: { k: 20, kDense: 40 } })).toBeNull(); // dense H 4.32 is far below log2 40
  });

  it("the simulator's query note follows the same rule", () => {
    expect(queryAlphaNote({ sparse: LOG2_20, dense: LOG2_20 }, { sparse: 20, dense: 20 })).toBe(saturatedNote({ sparse: 20, dense: 20 }));
    expect(queryAlphaNote({ sparse: 2, dense: LOG2_20 }, { sparse: 20, dense: 20 })).toBeNull();
  });

  it('a report counts its queries with both CDF entropies saturated, each query once (rows are per mode)', () => {
    const row = (mode: string, q: string, s: number, d: number) => ({ key: `${mode}:${q}`, group: mode, scores: { 'qpp.entropy.sparse.cdf': s, 'qpp.entropy.dense.cdf': d } });
    const rows = [row('sparse', 'q1', 4.32, 4.32), row('dense', 'q1', 4.32, 4.32), row('sparse', 'q2', 4.31, 4.3), row('sparse', 'q3', 3.0, 4.32)];
    const r = reportAlphaNote(rows, { qpp: { entropyK: 20 } })!;
    expect(r).toMatchObject({ saturated: 2, total: 3 });
    expect(r.text).toMatch(/^In 2 of 3 queries both entropies are within 1 % of their maximum log2\(20\) = 4\.32/);
    expect(reportAlphaNote(rows.slice(3), { qpp: { entropyK: 20 } })).toEqual({ saturated: 0, total: 1, text: null });
    expect(reportAlphaNote(rows, { qpp: null })).toBeNull(); // a run without predictors
    expect(reportAlphaNote([{ key: 'q1', group: 'sparse', scores: {} }], { qpp: { entropyK: 20 } })).toBeNull();
  });
});

describe("a report's simulator without a candidate loader (issue 32, point 9)", () => {
  const rows = [{ key: 'hybrid_calibrated:q1', group: 'hybrid_calibrated', scores: { 'qpp.entropy.sparse.cdf': 4.32, 'qpp.entropy.dense.cdf': 4.32 } }];
  it('a shared report of a run with a dense side says it had one, and why its queries cannot be re-fused here', () => {
    // what a share link keeps: the config (modes, embedder) and the rows
    const run = reportSimRun({ config: { modes: ['sparse', 'dense', 'hybrid_calibrated'], embedder: 'corpus/scifact-lsi256@fp32', qpp: { entropyK: 20 } }, rows });
    expect(run.embedder).toBe('corpus/scifact-lsi256@fp32');
    expect(run.alphaNote).toMatch(/^In 1 of 1 queries both entropies/);
    const text = noRealQueryText(run);
    expect(text).toMatch(/^This run had a dense side \(corpus\/scifact-lsi256@fp32\)/);
    expect(text).not.toMatch(/needs a run with a dense side/);
  });
  it('a BM25-only run (or one whose embedder no mode used) still says it needs a dense side', () => {
    for (const config of [{ modes: ['sparse'], embedder: null }, { modes: ['sparse'], embedder: 'x/y@q8' }, {}]) {
      const run = reportSimRun({ config, rows: [] });
      expect(run).toEqual({ embedder: null, alphaNote: null });
      expect(noRealQueryText(run)).toMatch(/needs a run with a dense side/);
    }
  });
});
