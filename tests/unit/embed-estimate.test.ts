import { describe, expect, test } from 'vitest';
import { embedRate } from '../../src/lib/models/embed-rate.ts';
import { downloadSummary, embedSummary, formatDuration, missingFiles } from '../../src/ui/models/model-messages.ts';

describe('embedding rate and time', () => {
  test('rate and times from hand-computed values', () => {
    // 128 passages in 4.267 s → 30.0 passages/s; 16,564 passages → 552.1 s; 16,436 left → 547.9 s.
    const r = embedRate(1000, 1000 + 4266.67, 128, 16_564)!;
    expect(r.perSecond).toBeCloseTo(30, 3);
    expect(r.totalS).toBeCloseTo(16_564 / 30, 1);
    expect(r.leftS).toBeCloseTo(16_436 / 30, 1);
    expect(r.measuredOn).toBe(128);
  });

  test('no estimate before anything was measured', () => {
    expect(embedRate(1000, 1000, 128, 500)).toBeNull();
    expect(embedRate(1000, 2000, 0, 500)).toBeNull();
    expect(embedRate(1000, 2000, 600, 500)).toBeNull();
  });

  test('durations in words', () => {
    expect(formatDuration(0.2)).toBe('1 s');
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(552)).toBe('9 min');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(4830)).toBe('1 h 21 min');
  });

  test('the estimate sentence before and after the first batch', () => {
    expect(embedSummary(16_564, null)).toBe(`embedding ${(16564).toLocaleString()} chunks; the time is measured on the first batch`);
    const r = embedRate(0, 4266.67, 128, 16_564)!;
    expect(embedSummary(16_564, r)).toBe(`embedding ${(16564).toLocaleString()} chunks takes about 9 min here at ~30 passages/s (measured on the first 128); about 9 min left`);
    const slow = embedRate(0, 40_000, 128, 1280)!; // 3.2 passages/s: one decimal
    expect(embedSummary(1280, slow)).toContain('~3.2 passages/s');
  });
});

describe('download summary', () => {
  const embedder = { id: 'Xenova/all-MiniLM-L6-v2', bytes: 22_900_000, cachedBytes: 0, missing: [] };
  const cross = { id: 'Xenova/ms-marco-MiniLM-L-6-v2', bytes: 23_000_000, cachedBytes: 0, missing: [] };
  test('sizes per model and the total (formatBytes: whole numbers from 10 up)', () => {
    expect(downloadSummary([{ label: 'embedder', plan: embedder }, { label: 'cross-encoder', plan: cross }]))
      .toBe('Downloads ~46 MB (embedder 23 MB, cross-encoder 23 MB)');
  });
  test('cached files are not counted as downloads', () => {
    const cached = { ...embedder, bytes: 0, cachedBytes: 22_900_000 };
    expect(downloadSummary([{ label: 'embedder', plan: cached }, { label: 'cross-encoder', plan: cross }]))
      .toBe('Downloads ~23 MB (embedder cached, cross-encoder 23 MB)');
    expect(downloadSummary([{ label: 'embedder', plan: cached }])).toBe('Nothing to download: the model files are in this browser’s cache (embedder cached)');
  });
  test('files the host lacks are named', () => {
    expect(missingFiles([{ label: 'embedder', plan: { ...embedder, missing: ['onnx/model_quantized.onnx'] } }, { label: 'cross-encoder', plan: cross }]))
      .toBe('the embedder (Xenova/all-MiniLM-L6-v2) has no onnx/model_quantized.onnx on the model host');
    expect(missingFiles([{ label: 'embedder', plan: { id: 'corpus/sotu-lsi256', bytes: 0, cachedBytes: 0, missing: ['config.json'] } }]))
      .toBe('the embedder (corpus/sotu-lsi256) has no config.json in this browser (a corpus-trained model: train it again)');
  });
});
