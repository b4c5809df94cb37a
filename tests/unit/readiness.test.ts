import { describe, expect, it } from 'vitest';
import { modeTable, NEED_DENSE_INDEX, NEED_EMBEDDER, NEED_RERANKER, ownsVectors, readiness, type LoadedModelLike } from '../../src/lib/models/readiness.ts';

const embedder: LoadedModelLike = { task: 'embedder', spec: { id: 'e/mini', dtype: 'q8', device: 'wasm' }, dim: 384 };
const reranker: LoadedModelLike = { task: 'cross-encoder', spec: { id: 'c/ms', dtype: 'q8', device: 'wasm' }, dim: null };
const tabVectors = { id: 'e/mini', dtype: 'q8', device: 'wasm', dim: 384 };

describe('mode availability from the loaded list and the knowledge base', () => {
  it('has only BM25 with nothing loaded, whatever the knowledge base holds', () => {
    const t = modeTable(tabVectors, []);
    expect(Object.entries(t).filter(([, a]) => a.available).map(([m]) => m)).toEqual(['sparse']);
    expect(t.dense).toEqual({ available: false, reason: NEED_EMBEDDER });
  });

  it('needs the knowledge base\'s dense index as well as a loaded embedder', () => {
    expect(modeTable(null, [embedder]).dense).toEqual({ available: false, reason: NEED_DENSE_INDEX });
    expect(modeTable(tabVectors, [embedder]).rrf).toEqual({ available: true });
    expect(modeTable(tabVectors, [embedder]).hybrid_fixed_rerank).toEqual({ available: false, reason: NEED_RERANKER });
    const all = modeTable(tabVectors, [embedder, reranker]);
    expect(Object.values(all).every((a) => a.available)).toBe(true);
  });

  it('refuses vectors another model made, naming both models', () => {
    const other: LoadedModelLike = { ...embedder, spec: { ...embedder.spec, device: 'webgpu', dtype: 'fp32' } };
    const r = readiness(tabVectors, [other]);
    expect(r.embed).toBeNull();
    expect(r.denseReason).toMatch(/made with e\/mini \(q8, wasm\), but the loaded embedding model is e\/mini \(fp32, webgpu\)/);
  });

  it('takes an artifact\'s vectors (model id and dim only) for any dtype or device of that model', () => {
    const artifact = { id: 'e/mini', dtype: null, device: null, dim: 384 };
    expect(ownsVectors(artifact, { ...embedder, spec: { ...embedder.spec, dtype: 'fp32', device: 'webgpu' } })).toBe(true);
    expect(ownsVectors(artifact, { ...embedder, dim: 768 })).toBe(false);
    expect(ownsVectors(artifact, { ...embedder, spec: { ...embedder.spec, id: 'e/other' } })).toBe(false);
    expect(readiness(artifact, [embedder, reranker]).rerank).toBe(reranker);
  });
});
