/** The Benchmark tab's retrieval part (src/ui/bench/retrieval-bench-view.ts) and the report view of a multi-mode retrieval report. */
import { describe, expect, it } from 'vitest';
import type { LocalKbMeta } from '../../src/lib/data/local-kb-meta.ts';
import { DEFAULT_KB, hubEntry, localEntry } from '../../src/lib/data/kb-registry.ts';
import { MODE_IDS } from '../../src/lib/retrieval/modes.ts';
import { cellText, groupLabelOf, modeLatency, rowColumns, summaryTable } from '../../src/ui/reports/report-view.ts';
import { runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import {
  benchTrainedText, changedFields, embedderChoices, kbChoices, modeChoices, runEmbedderText, parseMaxQueries, presetFields, progressText, PROTOCOL_CHOICES, runnableModes, runOverrides,
} from '../../src/ui/bench/retrieval-bench-view.ts';
import { multiModeReport, singleModeReport } from '../helpers/retrieval-reports.ts';

describe('modes', () => {
  it('offers every mode; without models only sparse, each other one says what to load', () => {
    const c = modeChoices([]);
    expect(c.map((x) => x.mode)).toEqual(MODE_IDS);
    expect(c.filter((x) => x.available).map((x) => x.mode)).toEqual(['sparse']);
    expect(c.find((x) => x.mode === 'dense')!.reason).toMatch(/embedding model: train a corpus embedder on this dataset \(below\), or load one under Settings → Models/);
  });
  it('an embedder opens the dense and fusion modes, a cross-encoder the rerank ones', () => {
    const dense = modeChoices([{ task: 'embedder' }]);
    expect(dense.filter((x) => !x.available).map((x) => x.mode)).toEqual(['hybrid_fixed_rerank', 'hybrid_calibrated_rerank']);
    expect(dense.find((x) => x.mode === 'hybrid_fixed_rerank')!.reason).toMatch(/cross-encoder/);
    expect(modeChoices([{ task: 'embedder' }, { task: 'cross-encoder' }]).every((x) => x.available)).toBe(true);
  });
  it('runs the chosen modes that can run, in MODE_IDS order', () => {
    expect(runnableModes(['rrf', 'dense', 'sparse'], modeChoices([{ task: 'embedder' }]))).toEqual(['sparse', 'dense', 'rrf']);
    expect(runnableModes(['dense', 'sparse'], modeChoices([]))).toEqual(['sparse']);
  });
});

describe('max queries', () => {
  it('blank is all; a whole number ≥ 1 is kept; anything else says what to type', () => {
    expect(parseMaxQueries('  ')).toEqual({ ok: true, value: null });
    expect(parseMaxQueries('25')).toEqual({ ok: true, value: 25 });
    for (const bad of ['0', '-3', '2.5', 'ten', '1000001']) {
      const r = parseMaxQueries(bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toContain(`got "${bad}"`);
    }
  });
});

describe('run settings form', () => {
  it('fills every field from the protocol\'s preset', () => {
    expect(presetFields('default')).toEqual({
      candidateK: '', bm25K: '', denseK: '', fusionTopK: '', pool: 'grow', chunking: 'whole', chunkSize: '800', overlap: '120', k1: '0.9', b: '0.4', analyzer: 'english', calibration: 'cdf', entropyBasis: 'calibrated', alpha: '0.5', resamples: '',
    });
    expect(presetFields('seed-b')).toEqual({
      candidateK: '20', bm25K: '', denseK: '', fusionTopK: '', pool: 'fixed', chunking: 'chunks', chunkSize: '800', overlap: '120', k1: '1.5', b: '0.75', analyzer: 'plain', calibration: 'cdf', entropyBasis: 'calibrated', alpha: '0.5', resamples: '1000',
    });
  });
  it('describes each protocol from its preset', () => {
    const seedB = PROTOCOL_CHOICES.find((c) => c.id === 'seed-b')!;
    expect(seedB.description).toBe("800/120-character chunks with document dedup, candidate_k 20 per retriever with no pool growth, cdf calibration with entropy of the calibrated scores, BM25 k1 1.5 b 0.75 over plain lower-cased words, exact vector index, 1,000 resamples");
    expect(PROTOCOL_CHOICES[0]!.description).toMatch(/^whole documents, candidate_k auto .* with pool growth, .* BM25 k1 0\.9 b 0\.4 over English stems, the analysis' own resamples$/);
  });
  it('says which fields differ from the preset (the same number written otherwise does not; size and overlap only with chunks)', () => {
    const f = { ...presetFields('seed-b'), k1: '1.50', b: '0.7', candidateK: '30', entropyBasis: 'raw' as const, alpha: '0.50' };
    expect(changedFields('seed-b', f)).toEqual(['candidateK', 'b', 'entropyBasis']);
    expect(changedFields('seed-b', { ...f, alpha: '0.7' })).toEqual(['candidateK', 'b', 'entropyBasis', 'alpha']);
    expect(changedFields('default', { ...presetFields('default'), chunkSize: '500' })).toEqual([]);
    expect(changedFields('default', { ...presetFields('default'), chunking: 'chunks', chunkSize: '500' })).toEqual(['chunking', 'chunkSize']);
  });
  it('the preset\'s fields give the preset\'s settings (a dataset source)', () => {
    for (const p of ['default', 'seed-b'] as const) {
      const r = runOverrides(p, presetFields(p), true);
      expect(r.ok).toBe(true);
      if (r.ok) expect(runSettings(p, r.overrides)).toEqual(runSettings(p));
    }
  });
  it('edited fields become overrides: blank candidate_k is auto, blank resamples the analysis default', () => {
    const r = runOverrides('seed-b', { ...presetFields('seed-b'), candidateK: ' ', resamples: '', pool: 'grow', chunkSize: '400', overlap: '50', k1: '1.2', b: '0.5', calibration: 'zscore', alpha: '0.7' }, true);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.overrides).toMatchObject({ candidateK: null, resamples: null, growPool: true, calibration: 'zscore', alpha: 0.7, bm25: { k1: 1.2, b: 0.5 }, chunking: { chunkSize: 400, overlap: 50 } });
    expect(runOverrides('seed-b', { ...presetFields('seed-b'), chunking: 'whole' }, true)).toMatchObject({ ok: true, overrides: { chunking: false } });
  });
  it("seed A's separate k's: blank is candidate_k, a number an override, a bad one the setting's message (as eval-beir's flag)", () => {
    const r = runOverrides('seed-b', { ...presetFields('seed-b'), bm25K: '10', denseK: ' ', fusionTopK: '25' }, true);
    expect(r).toMatchObject({ ok: true, overrides: { bm25K: 10, denseK: null, fusionTopK: 25 } });
    expect(changedFields('seed-b', { ...presetFields('seed-b'), bm25K: '10' })).toEqual(['bm25K']);
    expect(runOverrides('default', { ...presetFields('default'), denseK: '0' }, true)).toEqual({ ok: false, message: 'dense_k must be an integer in [1, 1000], got "0"' });
    expect(runOverrides('default', { ...presetFields('default'), fusionTopK: 'ten' }, true)).toEqual({ ok: false, message: 'fusion_top_k must be an integer in [1, 1000], got "ten"' });
  });
  it('a knowledge-base source leaves chunking and BM25 out (its own), and does not check those fields', () => {
    const r = runOverrides('seed-b', { ...presetFields('seed-b'), k1: 'x', chunkSize: '0' }, false);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.overrides).not.toHaveProperty('chunking');
      expect(r.overrides).not.toHaveProperty('bm25');
    }
  });
  it('a bad value gets its setting\'s message naming the field (the range eval-beir\'s flag has), or the core\'s for the whole', () => {
    const bad = (p: Partial<ReturnType<typeof presetFields>>) => {
      const r = runOverrides('default', { ...presetFields('default'), chunking: 'chunks', ...p }, true);
      return r.ok ? null : r.message;
    };
    expect(bad({ candidateK: '0' })).toBe('candidate_k must be an integer in [1, 1000], got "0"');
    expect(bad({ candidateK: '2.5' })).toBe('candidate_k must be an integer in [1, 1000], got "2.5"');
    expect(bad({ candidateK: 'ten' })).toBe('candidate_k must be an integer in [1, 1000], got "ten"');
    expect(bad({ resamples: '50' })).toBe('resamples must be an integer in [100, 100000], got "50"');
    expect(bad({ b: '1.5' })).toBe('BM25 b must be a number in [0, 1], got "1.5"');
    expect(bad({ k1: '11' })).toBe('BM25 k1 must be a number in [0, 10], got "11"');
    expect(bad({ k1: '' })).toBe('BM25 k1 is empty: type a number');
    expect(bad({ overlap: '800' })).toBe('chunking needs a chunk size ≥ 1 and 0 ≤ overlap < chunk size, got 800/800');
    expect(bad({ chunking: 'whole', overlap: '800' })).toBeNull();
  });
});

describe('knowledge bases', () => {
  const meta = (name: string, queries: number) => ({ name, title: name, summary: { queries } }) as unknown as LocalKbMeta;
  it('lists local ones with queries first, Hub artifacts, local ones without queries disabled; never the embedded one', () => {
    const locals = [meta('plain', 0), meta('sci', 300)];
    const hub = hubEntry({ kind: 'hub', repo: 'me/kb', revision: 'main', path: 'scifact' });
    const c = kbChoices(locals, [DEFAULT_KB, localEntry('plain'), localEntry('sci'), hub]);
    expect(c.map((x) => [x.entry.id, x.queries, x.disabled])).toEqual([
      [localEntry('sci').id, 300, null], [hub.id, null, null], [localEntry('plain').id, 0, 'no queries: build it from a BEIR dataset'],
    ]);
  });
});

describe('progress', () => {
  it('says the phase and counts', () => {
    expect(progressText(null)).toBe('Starting…');
    expect(progressText({ phase: 'load', stage: 'corpus.parquet', done: 3, total: 10 })).toBe('Loading (corpus.parquet) 3 / 10');
    expect(progressText({ phase: 'embed', done: 5, total: 40 })).toBe('Embedding the documents 5 / 40 · ETA …');
    expect(progressText({ phase: 'run', mode: 'sparse', done: 4, total: 9, cached: 2, etaMs: 12_400 })).toBe('BM25 (sparse): 4 / 9 queries (2 cached) · ETA 12 s');
    expect(progressText({ phase: 'run', mode: 'dense', done: 1, total: 9, cached: 0, etaMs: null })).toBe('Dense (dense): 1 / 9 queries · ETA …');
  });
});

describe('report view of a multi-mode retrieval report', () => {
  const extra = { queries: 3, unjudged: 1, modes: [{ mode: 'sparse', queries: 3, mean_ms: 1.25, p95_ms: 2.5 }, { mode: 'dense', queries: 3, mean_ms: 0.5, p95_ms: null }], skipped_modes: {} };
  const r = multiModeReport({ sparse: [1, 0.5, 0], dense: [0.25, 0.25, 1] }, (i) => ({ 'qpp.nqc.sparse': i, 'qpp.alpha.fusion.raw': 0.5 }), { extra });

  it('is a mode × metric table with mean and p95 latency from summary.extra.modes', () => {
    expect(groupLabelOf(r)).toBe('mode');
    expect(modeLatency(r)!.get('sparse')).toEqual({ mean_ms: 1.25, p95_ms: 2.5, endToEnd: false, stages: null });
    const t = summaryTable(r);
    expect(t.groupLabel).toBe('mode');
    expect(t.latency.map((c) => c.label)).toEqual(['mean ms', 'p95 ms']);
    expect(t.rows.map((x) => [x.group, x.rows, x.latency])).toEqual([['sparse', 3, [1.25, 2.5]], ['dense', 3, [0.5, null]]]);
    // No pooled row: an average over modes is not a figure of any run.
    // mean NDCG@10 per mode: sparse (1 + 0.5 + 0)/3 = 0.5, dense (0.25 + 0.25 + 1)/3 = 0.5
    expect(t.rows[0]!.cells['ndcg@10']!.value).toBeCloseTo(0.5, 12);
    expect(t.rows[1]!.cells['ndcg@10']!.value).toBeCloseTo(0.5, 12);
    expect(t.columns.map((c) => c.id)).not.toContain('query_ms');
  });

  it('rows: mode column, the IR metrics then query_ms, no qpp.* columns', () => {
    const cols = rowColumns(r);
    expect(cols[0]).toMatchObject({ kind: 'group', label: 'mode' });
    const scores = cols.filter((c) => c.kind === 'score').map((c) => (c.kind === 'score' ? c.key : ''));
    expect(scores).toEqual(['ndcg@10', 'mrr@10', 'r@5', 'r@100', 'p@3', 'p@5', 'query_ms']);
    const ms = cols.find((c) => c.id === 'score:query_ms')!;
    expect(cellText('retrieval', r.rows[0]!, ms)).toBe('1.0');
  });

  it('an old single-mode report keeps its dataset label and has no latency columns', () => {
    const old = singleModeReport('sparse', [1, 0]);
    expect(groupLabelOf(old)).toBe('dataset');
    expect(modeLatency(old)).toBeNull();
    expect(summaryTable(old).latency).toEqual([]);
    expect(rowColumns(old)[0]).toMatchObject({ label: 'dataset' });
  });
});

describe('issue 32: the embedder of a benchmark run', () => {
  it('embedding progress has an ETA and counts chunks as chunks under seed B', () => {
    expect(progressText({ phase: 'embed', done: 4352, total: 5183, unit: 'documents', etaMs: 9_600 })).toBe('Embedding the documents 4352 / 5183 · ETA 10 s');
    expect(progressText({ phase: 'embed', done: 120, total: 9000, unit: 'chunks', etaMs: 185_000 })).toBe('Embedding the chunks 120 / 9000 · ETA 3 min 05 s');
  });
  it('the rerank modes name both models they lack; a trained model in this browser opens the dense modes', () => {
    const none = modeChoices([]);
    expect(none.find((x) => x.mode === 'hybrid_fixed_rerank')!.reason).toBe('needs an embedding model and a cross-encoder: train a corpus embedder on this dataset (below), and load a cross-encoder under Settings → Models');
    expect(none.find((x) => x.mode === 'dense')!.reason).toBe('needs an embedding model: train a corpus embedder on this dataset (below), or load one under Settings → Models');
    const trained = modeChoices([], 1);
    expect(trained.filter((x) => x.available).map((x) => x.mode)).toEqual(['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated']);
    expect(trained.find((x) => x.mode === 'hybrid_calibrated_rerank')!.reason).toMatch(/^needs a cross-encoder/);
  });
  it('the embedder choices: automatic first, the loaded pretrained one, each trained model with its corpus', () => {
    const loaded = [{ task: 'embedder', spec: { id: 'Xenova/all-MiniLM-L6-v2' } }];
    expect(embedderChoices(loaded, [{ id: 'corpus/holdout-manuals-lsi256', kbTitle: 'Holdout manuals' }])).toEqual([
      { value: 'auto', label: 'Automatic (pretrained, or trained on this dataset)' },
      { value: 'Xenova/all-MiniLM-L6-v2', label: 'Xenova/all-MiniLM-L6-v2 (loaded, pretrained)' },
      { value: 'corpus/holdout-manuals-lsi256', label: 'corpus/holdout-manuals-lsi256, trained on Holdout manuals' },
    ]);
    // a loaded trained model is listed once, as trained
    expect(embedderChoices([{ task: 'embedder', spec: { id: 'corpus/holdout-manuals-lsi256' } }], [{ id: 'corpus/holdout-manuals-lsi256', kbTitle: 'Holdout manuals' }]).map((c) => c.value))
      .toEqual(['auto', 'corpus/holdout-manuals-lsi256']);
  });
  it('says which embedder ran and what it was trained on', () => {
    expect(runEmbedderText(null)).toBe('No embedder ran (no dense mode).');
    expect(runEmbedderText({ id: 'e/x@q8', corpus: null })).toBe('Embedder: e/x@q8 (pretrained).');
    expect(runEmbedderText({ id: 'corpus/bench-toy-lsi256@q8', corpus: { title: 'toy', thisDataset: true } })).toBe('Embedder: corpus/bench-toy-lsi256@q8, trained on this dataset (toy).');
    expect(runEmbedderText({ id: 'corpus/h-lsi256@q8', corpus: { title: 'Holdout manuals', thisDataset: false } })).toBe('Embedder: corpus/h-lsi256@q8, trained on Holdout manuals, another corpus (chosen explicitly).');
    expect(benchTrainedText({ id: 'corpus/bench-toy-lsi256', documents: 1234, dim: 256, seconds: 3.21 }, 'chunks'))
      .toBe("Trained corpus/bench-toy-lsi256 on this dataset's 1,234 chunks (256-d) in 3.2 s: automatic runs on this dataset use it (it is not selected for other knowledge bases).");
  });
});
