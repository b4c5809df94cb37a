/**
 * The embedder against the tiny fixture model, downloaded through transformers.js's remote path from a local
 * Hub-like server; outputs are checked against the closed-form weights (tests/helpers/fixture-math.ts).
 */
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lengthSortedBatches } from '../../src/lib/models/batches.ts';
import { loadEmbedder } from '../../src/lib/models/embedder.ts';
import { configureModels, modelsEnvironment } from '../../src/lib/models/env.ts';
import type { FileProgress, ModelSpec } from '../../src/lib/models/types.ts';
import { embedding, maxAbsDiff } from '../helpers/fixture-math.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const ID = 'rag-lab/tiny-embedder';
const FP32: ModelSpec = { id: ID, dtype: 'fp32', device: 'cpu' };
const Q8: ModelSpec = { id: ID, dtype: 'q8', device: 'cpu' };
const TEXTS = ['the river', 'Paris is the capital of France.', 'Slavery and emancipation; xyzzy things!', 'a'];

let hub: HubServer;
let cacheDir: string;
let tokenizer: PreTrainedTokenizer;

function handEmbeddings(texts: readonly string[], quantized = false): number[] {
  return texts.flatMap((t) => {
    const e = tokenizer(t, { return_tensor: false }) as unknown as { input_ids: number[]; token_type_ids: number[] };
    return embedding({ ids: e.input_ids, types: e.token_type_ids }, quantized);
  });
}

beforeAll(async () => {
  hub = await serveHub(FIXTURES);
  cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-models-'));
  configureModels({ remoteHost: hub.url, cacheDir });
  tokenizer = await AutoTokenizer.from_pretrained(ID);
});

afterAll(async () => {
  await hub.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

beforeEach(() => configureModels({ remoteHost: hub.url, cacheDir }));

describe('loadEmbedder (tiny fixture over a local Hub)', () => {
  it('fp32: mean-pooled, L2-normalised vectors equal the hand computation to 1e-4', async () => {
    const emb = await loadEmbedder(FP32);
    expect(emb.dim).toBe(16);
    const v = await emb.embed(TEXTS, 'passage');
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(TEXTS.length * 16);
    expect(maxAbsDiff(v, handEmbeddings(TEXTS))).toBeLessThan(1e-4);
    for (let r = 0; r < TEXTS.length; r++) {
      const row = v.subarray(r * 16, (r + 1) * 16);
      expect(Math.hypot(...row)).toBeCloseTo(1, 5);
    }
    expect(hub.requests).toContain(`/hub/${ID}/resolve/main/onnx/model.onnx`);
    await emb.dispose();
  });

  it('q8: equals the dequantized-weight computation to 1e-4 and the fp32 one within 0.02', async () => {
    const emb = await loadEmbedder(Q8);
    const v = await emb.embed(TEXTS, 'passage');
    expect(hub.requests).toContain(`/hub/${ID}/resolve/main/onnx/model_quantized.onnx`);
    expect(maxAbsDiff(v, handEmbeddings(TEXTS, true))).toBeLessThan(1e-4);
    const fp32 = handEmbeddings(TEXTS);
    const d = maxAbsDiff(v, fp32);
    expect(d).toBeLessThan(0.02);
    expect(d).toBeGreaterThan(1e-6); // really the int8 weights
    await emb.dispose();
  });

  it('batches: any batch size gives the same rows, in order', async () => {
    const many = [...TEXTS, 'the moon', 'gold and silver', 'storm weather rain', 'the'];
    const one = await loadEmbedder(FP32, { batchSize: 3 });
    const v3 = await one.embed(many, 'passage');
    expect(maxAbsDiff(v3, handEmbeddings(many))).toBeLessThan(1e-4);
    expect(await one.embed([], 'query')).toEqual(new Float32Array(0));
    await one.dispose();
  });

  it('batches by token count, not characters (prefix included), and keeps rows in input order', async () => {
    // 'xyzzy' is not in the fixture vocabulary: few characters, many word-piece tokens.
    const texts = ['xyzzy xyzzy', 'the river and the moon', 'gold', 'storm weather rain and the sea'];
    const tokens = texts.map((t) => tokenizer.encode('a ' + t).length);
    const emb = await loadEmbedder(FP32, { batchSize: 2, prefixes: { passage: 'a ' } });
    const plan = emb.batchPlan(texts, 'passage');
    expect(plan).toEqual(lengthSortedBatches(tokens, 2));
    expect(plan).not.toEqual(lengthSortedBatches(texts.map((t) => t.length), 2)); // the case is meaningful
    expect(emb.batchPlan(['one'], 'query')).toEqual([[0]]);
    expect(emb.batchPlan([], 'query')).toEqual([]);
    expect(maxAbsDiff(await emb.embed(texts, 'passage'), handEmbeddings(texts.map((t) => 'a ' + t)))).toBeLessThan(1e-4);
    await emb.dispose();
  });

  it('applies the query/passage prefixes (registry default: none; overridable)', async () => {
    const plain = await loadEmbedder(FP32);
    expect(plain.prefixes).toEqual({ query: '', passage: '' });
    const withPrefix = await loadEmbedder(FP32, { prefixes: { query: 'the ', passage: 'a ' } });
    expect(withPrefix.prefixes).toEqual({ query: 'the ', passage: 'a ' });
    const q = await withPrefix.embed(['river'], 'query');
    const p = await withPrefix.embed(['river'], 'passage');
    expect(maxAbsDiff(q, handEmbeddings(['the river']))).toBeLessThan(1e-4);
    expect(maxAbsDiff(p, handEmbeddings(['a river']))).toBeLessThan(1e-4);
    expect(maxAbsDiff(await plain.embed(['river'], 'query'), handEmbeddings(['river']))).toBeLessThan(1e-4);
  });

  it('reports per-file byte progress, then one ready event', async () => {
    const events: FileProgress[] = [];
    // A fresh cache so that every file is downloaded.
    const fresh = mkdtempSync(join(tmpdir(), 'rag-lab-models-'));
    try {
      configureModels({ remoteHost: hub.url, cacheDir: fresh });
      await loadEmbedder(FP32, { onProgress: (p) => events.push(p) });
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
    expect(events.every((e) => e.model === ID)).toBe(true);
    const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
    for (const file of files) {
      const size = statSync(join(FIXTURES, ID, file)).size;
      const mine = events.filter((e) => e.file === file);
      expect(mine[0]?.status, file).toBe('initiate');
      expect(mine.at(-1), file).toMatchObject({ status: 'done', loaded: size, total: size });
      expect(mine.some((e) => e.status === 'progress' && e.total === size), file).toBe(true);
      for (const e of mine) if (e.total > 0) expect(e.loaded).toBeLessThanOrEqual(e.total);
    }
    const last = events.at(-1)!;
    const totalBytes = files.reduce((a, f) => a + statSync(join(FIXTURES, ID, f)).size, 0);
    expect(last).toEqual({ model: ID, file: '', status: 'ready', loaded: totalBytes, total: totalBytes });
    expect(events.filter((e) => e.status === 'ready')).toHaveLength(1);
  });

  it("accepts device 'wasm' under Node (runs on onnxruntime-node's CPU)", async () => {
    const emb = await loadEmbedder({ id: ID, dtype: 'fp32', device: 'wasm' });
    expect(maxAbsDiff(await emb.embed(['the river'], 'passage'), handEmbeddings(['the river']))).toBeLessThan(1e-4);
  });

  it('loads from a local folder with remote downloads off', async () => {
    configureModels({ allowRemote: false, localModelPath: FIXTURES });
    expect(modelsEnvironment()).toMatchObject({ allowRemote: false, localModelPath: `${FIXTURES}/` });
    const before = hub.requests.length;
    const emb = await loadEmbedder(FP32);
    expect(maxAbsDiff(await emb.embed(TEXTS, 'passage'), handEmbeddings(TEXTS))).toBeLessThan(1e-4);
    expect(hub.requests.length).toBe(before);
  });
});
