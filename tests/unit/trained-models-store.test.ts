/**
 * The store of corpus-trained models (IndexedDB through fake-indexeddb): put computes sizes and SHA-256s, list is
 * the validated entries newest first, readFile serves a file only when it matches its hash, a record of the wrong
 * shape or a changed file is reported in words, the size and count bounds and the file names are enforced, and
 * remove deletes a model with its files.
 */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/checksum.ts';
import { IndexedDbTrainedModelStore, MAX_TRAINED_MODEL_BYTES, MAX_TRAINED_MODELS, TrainedModelMetaSchema, type NewTrainedModel } from '../../src/lib/store/trained-models.ts';
import * as v from 'valibot';
import { checkTrainedSpec, trainedDownloadPlan } from '../../src/lib/models/trained-plan.ts';

let n = 0;
const freshStore = () => { const name = `trained-test-${++n}`; return { name, store: new IndexedDbTrainedModelStore(name) }; };
const bytes = (s: string) => new TextEncoder().encode(s);

function model(id: string, created = '2026-12-02T03:00:00.000Z', extra: Record<string, Uint8Array> = {}): NewTrainedModel {
  return {
    meta: { id, kbId: 'sotu', kbTitle: 'State of the Union', method: 'lsi', dim: 256, documents: 10, vocabulary: 40, seconds: 1.5, created, notes: [] },
    files: { 'config.json': bytes('{"model_type":"bert"}'), 'onnx/model.onnx': new Uint8Array([1, 2, 3, 4]), ...extra },
  };
}

describe('IndexedDbTrainedModelStore', () => {
  it('saves a model with its sizes and hashes, lists it and serves its files', async () => {
    const { store } = freshStore();
    const meta = await store.put(model('corpus/sotu-lsi256'));
    expect(meta.bytes).toBe(21 + 4);
    expect(meta.files).toEqual([
      { path: 'config.json', bytes: 21, sha256: await sha256Hex(bytes('{"model_type":"bert"}')) },
      { path: 'onnx/model.onnx', bytes: 4, sha256: await sha256Hex(new Uint8Array([1, 2, 3, 4])) },
    ]);
    expect(v.safeParse(TrainedModelMetaSchema, meta).success).toBe(true);
    expect(await store.list()).toEqual([meta]);
    expect(await store.readFile('corpus/sotu-lsi256', 'onnx/model.onnx')).toEqual(new Uint8Array([1, 2, 3, 4]));
    expect(await store.readFile('corpus/sotu-lsi256', 'tokenizer.json')).toBeNull();
    expect(await store.readFile('corpus/other-lsi256', 'config.json')).toBeNull();
    expect((await store.verify('corpus/sotu-lsi256')).id).toBe('corpus/sotu-lsi256');
    await expect(store.verify('corpus/other-lsi256')).rejects.toThrow(/not in this browser/);
  });

  it('lists newest first and replaces a model of the same id (its old files gone)', async () => {
    const { store } = freshStore();
    await store.put(model('corpus/a-lsi256', '2026-12-01T00:00:00.000Z'));
    await store.put(model('corpus/b-lsi256', '2026-12-02T00:00:00.000Z', { 'tokenizer.json': bytes('{}') }));
    expect((await store.list()).map((m) => m.id)).toEqual(['corpus/b-lsi256', 'corpus/a-lsi256']);
    await store.put(model('corpus/b-lsi256', '2026-12-03T00:00:00.000Z'));
    expect(await store.readFile('corpus/b-lsi256', 'tokenizer.json')).toBeNull();
    expect((await store.list()).length).toBe(2);
  });

  it('refuses unknown files, a model without config.json, a bad id and models over the size bound', async () => {
    const { store } = freshStore();
    await expect(store.put(model('corpus/x-lsi256', undefined, { 'evil.js': bytes('x') }))).rejects.toThrow(/"evil.js" is not a file of a corpus-trained model/);
    await expect(store.put({ ...model('corpus/x-lsi256'), files: { 'onnx/model.onnx': new Uint8Array(1) } })).rejects.toThrow(/no config.json/);
    await expect(store.put(model('Xenova/all-MiniLM-L6-v2'))).rejects.toThrow(/cannot be saved: .*id/);
    const big = new Uint8Array(MAX_TRAINED_MODEL_BYTES + 1);
    await expect(store.put(model('corpus/x-lsi256', undefined, { 'onnx/model_quantized.onnx': big }))).rejects.toThrow(/more than the .* MB/);
    expect(await store.list()).toEqual([]);
  });

  it(`holds at most ${MAX_TRAINED_MODELS} models (replacing one is still allowed)`, async () => {
    const { store } = freshStore();
    for (let i = 0; i < MAX_TRAINED_MODELS; i++) await store.put(model(`corpus/m${i}-lsi256`));
    await expect(store.put(model('corpus/one-more-lsi256'))).rejects.toThrow(/20 corpus-trained models are stored already/);
    await expect(store.put(model('corpus/m0-lsi256'))).resolves.toMatchObject({ id: 'corpus/m0-lsi256' });
  });

  it('reports a changed file or a record of the wrong shape, and lists only valid entries', async () => {
    const { name, store } = freshStore();
    await store.put(model('corpus/sotu-lsi256'));
    await store.put(model('corpus/other-lsi256'));
    const db = await openDB(name);
    await db.put('files', { key: 'corpus/sotu-lsi256\u0000onnx/model.onnx', bytes: new Uint8Array([9, 9, 9, 9]) });
    await expect(store.readFile('corpus/sotu-lsi256', 'onnx/model.onnx')).rejects.toThrow(/damaged \(onnx\/model.onnx does not match its SHA-256\): delete it and train it again/);
    await db.put('files', { key: 'corpus/sotu-lsi256\u0000config.json', bytes: 'not bytes' });
    await expect(store.verify('corpus/sotu-lsi256')).rejects.toThrow(/damaged \(config.json has the wrong shape/);
    await db.put('meta', { id: 'corpus/other-lsi256', schemaVersion: 1, meta: { id: 'corpus/other-lsi256', dim: 'NaN' } });
    expect((await store.list()).map((m) => m.id)).toEqual(['corpus/sotu-lsi256']);
    await expect(store.meta('corpus/other-lsi256')).rejects.toThrow(/damaged/);
    db.close();
  });

  it('removes a model and its files', async () => {
    const { name, store } = freshStore();
    await store.put(model('corpus/sotu-lsi256'));
    expect(await store.remove('corpus/sotu-lsi256')).toBe(true);
    expect(await store.remove('corpus/sotu-lsi256')).toBe(false);
    expect(await store.list()).toEqual([]);
    const db = await openDB(name);
    expect(await db.count('files')).toBe(0);
    db.close();
  });
});

describe('what the models worker says about a trained spec', () => {
  it('loads only a stored model at fp32 or q8, in words otherwise', async () => {
    const { store } = freshStore();
    await store.put(model('corpus/sotu-lsi256'));
    await expect(checkTrainedSpec({ id: 'corpus/sotu-lsi256', dtype: 'fp32', device: 'wasm' }, store)).resolves.toMatchObject({ id: 'corpus/sotu-lsi256' });
    await expect(checkTrainedSpec({ id: 'corpus/sotu-lsi256', dtype: 'fp16', device: 'wasm' }, store)).rejects.toThrow(/fp32 and q8 files only \(asked for fp16\)/);
    await expect(checkTrainedSpec({ id: 'corpus/gone-lsi256', dtype: 'q8', device: 'wasm' }, store)).rejects.toThrow(/corpus\/gone-lsi256 is a corpus-trained model that is not in this browser/);
  });

  it('plans no download: stored files count as cached, absent ones as missing', async () => {
    const { store } = freshStore();
    await store.put(model('corpus/sotu-lsi256', undefined, { 'tokenizer.json': bytes('{}'), 'tokenizer_config.json': bytes('{}') }));
    expect(await trainedDownloadPlan({ id: 'corpus/sotu-lsi256', dtype: 'fp32', device: 'wasm' }, store)).toEqual({ id: 'corpus/sotu-lsi256', bytes: 0, cachedBytes: 21 + 2 + 2 + 4, missing: [] });
    expect(await trainedDownloadPlan({ id: 'corpus/sotu-lsi256', dtype: 'q8', device: 'wasm' }, store)).toEqual({ id: 'corpus/sotu-lsi256', bytes: 0, cachedBytes: 25, missing: ['onnx/model_quantized.onnx'] });
    expect((await trainedDownloadPlan({ id: 'corpus/gone-lsi256', dtype: 'q8', device: 'wasm' }, store)).missing).toHaveLength(4);
  });
});
