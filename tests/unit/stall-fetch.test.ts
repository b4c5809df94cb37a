/**
 * stallGuardedFetch against loopback servers: a host that never answers, a body that stops mid-way, and one that
 * streams slowly but steadily (never cut); the caller's signal still aborts. The model listing it guards reads
 * content ids from the tree (modelFileIds), and the build's vectors key changes with them.
 */
import { createServer, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { StallError, stallGuardedFetch } from '../../src/lib/hub/stall-fetch.ts';
import { modelFileIds } from '../../src/lib/models/download-size.ts';
import { sotuVectorsKey } from '../../scripts/sotu-vectors.ts';
import { serveHub } from '../helpers/hub-server.ts';
import { listenLocal, type Listening } from '../helpers/listen.ts';

const open: Listening[] = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close())); });

async function serve(handler: (path: string, res: ServerResponse) => void): Promise<string> {
  const s = await listenLocal(createServer((req, res) => handler(req.url ?? '/', res)));
  open.push(s);
  return s.origin;
}

describe('stallGuardedFetch', () => {
  test('rejects bad limits', () => {
    expect(() => stallGuardedFetch({ headersMs: 0, idleMs: 10 })).toThrow(/headersMs must be a positive/);
    expect(() => stallGuardedFetch({ headersMs: 10, idleMs: Number.NaN })).toThrow(/idleMs must be a positive/);
  });

  test('no headers in time: a StallError naming the host', async () => {
    const origin = await serve(() => { /* never answers */ });
    const f = stallGuardedFetch({ headersMs: 100, idleMs: 1000 });
    const err = await f(`${origin}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StallError);
    expect((err as StallError).phase).toBe('headers');
    expect((err as Error).message).toBe(`no answer from ${origin} within 100 ms`);
  });

  test('a body that stops: the read fails with a body StallError; a steady one is read whole', async () => {
    const origin = await serve((path, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      if (path === '/stops') { res.write('abc'); return; }
      let n = 0;
      const t = setInterval(() => { res.write('x'); if (++n === 5) { clearInterval(t); res.end(); } }, 40);
    });
    const f = stallGuardedFetch({ headersMs: 1000, idleMs: 150 });
    const stops = await f(`${origin}/stops`);
    const err = await stops.text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StallError);
    expect((err as StallError).phase).toBe('body');
    // 5 chunks 40 ms apart: 200 ms in all, longer than idleMs, but never idle for it.
    expect(await (await f(`${origin}/steady`)).text()).toBe('xxxxx');
  });

  test("the caller's signal aborts as with fetch", async () => {
    const origin = await serve(() => {});
    const f = stallGuardedFetch({ headersMs: 5000, idleMs: 5000 });
    const c = new AbortController();
    const p = f(`${origin}/x`, { signal: c.signal });
    c.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});

describe('model file ids and the vectors key', () => {
  test('modelFileIds lists the needed files with their content ids (LFS SHA-256 for the ONNX graph)', async () => {
    const hub = await serveHub(resolve(import.meta.dirname, '../fixtures/models'));
    try {
      const ids = await modelFileIds(hub.url, { id: 'rag-lab/tiny-embedder', dtype: 'q8' });
      expect(ids.map((l) => l.split(' ')[0])).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
      expect(ids[0]).toMatch(/^config\.json [0-9a-f]{40}$/);
      expect(ids[3]).toMatch(/^onnx\/model_quantized\.onnx [0-9a-f]{64}$/);
      await expect(modelFileIds(hub.url, { id: 'rag-lab/tiny-embedder', dtype: 'q4' })).rejects.toThrow('the model host lists no onnx/model_q4.onnx for "rag-lab/tiny-embedder"');
    } finally {
      await hub.close();
    }
  });

  test('the key changes with the BM25 key, the model, the dtype and any file id', () => {
    const plan = { embedder: 'a/b', dtype: 'q8' as const };
    const ids = ['config.json 1', 'onnx/model_quantized.onnx 2'];
    const k = sotuVectorsKey('bm25', plan, ids);
    expect(sotuVectorsKey('bm25', plan, [...ids])).toBe(k);
    expect(new Set([
      k, sotuVectorsKey('bm25b', plan, ids), sotuVectorsKey('bm25', { ...plan, embedder: 'a/c' }, ids),
      sotuVectorsKey('bm25', { ...plan, dtype: 'fp32' }, ids), sotuVectorsKey('bm25', plan, ['config.json 1', 'onnx/model_quantized.onnx 3']),
    ]).size).toBe(5);
  });
});
