/** Download sizes from the loopback Hub's tree API (the wire format of huggingface.co/api/models/<id>/tree/<rev>). */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fileUrl, listModelFiles, neededFiles, planModelDownload } from '../../src/lib/models/download-size.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const size = (id: string, f: string) => statSync(join(FIXTURES, id, f)).size;
let hub: HubServer;
let paged: HubServer;

beforeAll(async () => {
  hub = await serveHub(FIXTURES);
  paged = await serveHub(FIXTURES, '/hub/', { treePageSize: 2 });
});
afterAll(async () => { await hub?.close(); await paged?.close(); });

describe('model download sizes', () => {
  test('the files a load fetches per dtype, external data parts included', () => {
    expect(neededFiles('q8', [])).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
    expect(neededFiles('fp32', ['onnx/model.onnx_data', 'onnx/model_quantized.onnx_data', 'onnx/model.onnx'])).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model.onnx_data']);
  });

  test('sums the sizes the tree API lists for exactly those files', async () => {
    const id = 'rag-lab/tiny-embedder';
    const plan = await planModelDownload(hub.url, { id, dtype: 'q8', device: 'wasm' });
    const expected = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'].reduce((a, f) => a + size(id, f), 0);
    expect(plan).toEqual({ id, bytes: expected, cachedBytes: 0, missing: [] });
    expect(hub.requests).toContain(`/hub/api/models/${id}/tree/main`);
    // fp32 takes model.onnx instead of the quantized graph.
    const fp32 = await planModelDownload(hub.url, { id, dtype: 'fp32', device: 'wasm' });
    expect(fp32.bytes - plan.bytes).toBe(size(id, 'onnx/model.onnx') - size(id, 'onnx/model_quantized.onnx'));
  });

  test('follows Link rel="next" pages', async () => {
    const all = await listModelFiles(hub.url, 'rag-lab/tiny-embedder');
    const pages = await listModelFiles(paged.url, 'rag-lab/tiny-embedder');
    expect([...pages.entries()].sort()).toEqual([...all.entries()].sort());
    expect(paged.requests.filter((p) => p.includes('/tree/')).length).toBeGreaterThan(2);
  });

  test('cached files count apart; files the host lacks are named', async () => {
    const id = 'rag-lab/tiny-cross-encoder';
    const cached = fileUrl(hub.url, id, 'onnx/model_quantized.onnx');
    const plan = await planModelDownload(hub.url, { id, dtype: 'q8', device: 'wasm' }, { isCached: async (u) => u === cached });
    expect(plan.cachedBytes).toBe(size(id, 'onnx/model_quantized.onnx'));
    const fp16 = await planModelDownload(hub.url, { id, dtype: 'fp16', device: 'wasm' });
    expect(fp16.missing).toEqual(['onnx/model_fp16.onnx']);
  });

  test('an unknown model or a host without the tree API gives a clear error', async () => {
    await expect(planModelDownload(hub.url, { id: 'nobody/nothing', dtype: 'q8', device: 'wasm' })).rejects.toThrow(/"nobody\/nothing" is not listed on the model host \(HTTP 404\)/);
    const notJson = (async () => new Response('<html>', { status: 200 })) as typeof fetch;
    await expect(listModelFiles(hub.url, 'a/b', notJson)).rejects.toThrow(/not JSON/);
    const wrong = (async () => Response.json({ files: [] })) as typeof fetch;
    await expect(listModelFiles(hub.url, 'a/b', wrong)).rejects.toThrow(/malformed/);
    const offline = (async () => { throw new TypeError('Failed to fetch'); }) as typeof fetch;
    await expect(listModelFiles('https://huggingface.co/', 'a/b', offline)).rejects.toThrow('the model host https://huggingface.co could not be reached (offline, blocked, or it refuses cross-origin requests)');
  });
});
