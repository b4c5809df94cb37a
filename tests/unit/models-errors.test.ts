/**
 * Load failures become ModelLoadErrors that name the model, the file and what to do. Every case is provoked for
 * real against local 127.0.0.1 servers (never the internet): unknown id, missing file, truncated ONNX, a closed
 * port, an HTTP 500, a connection cut mid-download, downloads disabled.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCrossEncoder } from '../../src/lib/models/cross-encoder.ts';
import { loadEmbedder } from '../../src/lib/models/embedder.ts';
import { clearCachedModel, configureModels } from '../../src/lib/models/env.ts';
import { ModelLoadError } from '../../src/lib/models/errors.ts';
import { loadNli } from '../../src/lib/models/nli.ts';
import type { ModelSpec } from '../../src/lib/models/types.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';
import { listenLocal } from '../helpers/listen.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const EMBEDDER = join(FIXTURES, 'rag-lab/tiny-embedder');
const spec = (id: string, dtype: ModelSpec['dtype'] = 'fp32'): ModelSpec => ({ id, dtype, device: 'cpu' });

let root: string;
let cacheDir: string;
let hub: HubServer;

async function failure(p: Promise<unknown>): Promise<ModelLoadError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ModelLoadError);
  return e as ModelLoadError;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ close(): Promise<void>; url: string }> {
  const { origin, close } = await listenLocal(createServer(handler));
  return { close, url: `${origin}/` };
}

beforeAll(async () => {
  // A Hub folder with broken copies of the tiny embedder next to the good fixtures.
  root = mkdtempSync(join(tmpdir(), 'rag-lab-hub-'));
  cpSync(join(FIXTURES, 'rag-lab'), join(root, 'rag-lab'), { recursive: true });
  for (const name of ['missing-onnx', 'truncated-onnx']) cpSync(EMBEDDER, join(root, 'broken', name), { recursive: true });
  rmSync(join(root, 'broken/missing-onnx/onnx/model.onnx'));
  truncateSync(join(root, 'broken/truncated-onnx/onnx/model.onnx'), 9000);
  hub = await serveHub(root);
  cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-models-'));
});

afterAll(async () => {
  await hub.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

beforeEach(() => configureModels({ remoteHost: hub.url, cacheDir }));

describe('ModelLoadError from real failures', () => {
  it('unknown model id: not-found on config.json, naming the id', async () => {
    const e = await failure(loadEmbedder(spec('nobody/no-such-model')));
    expect(e).toMatchObject({ modelId: 'nobody/no-such-model', kind: 'not-found', file: 'config.json', status: 404 });
    expect(e.message).toContain('"nobody/no-such-model" was not found');
    expect(e.message).toMatch(/check the model id/i);
    expect(e.cause).toMatchObject({ name: 'ModelFileNotFoundError' });
    // Same through the tokenizer + model path of the classifiers.
    expect(await failure(loadCrossEncoder(spec('nobody/no-such-reranker')))).toMatchObject({ kind: 'not-found', file: 'config.json' });
    expect(await failure(loadNli(spec('nobody/no-such-nli')))).toMatchObject({ kind: 'not-found', file: 'config.json' });
  });

  it('a file missing from the repo is named, with a hint about the dtype', async () => {
    const e = await failure(loadEmbedder(spec('broken/missing-onnx')));
    expect(e).toMatchObject({ modelId: 'broken/missing-onnx', kind: 'not-found', file: 'onnx/model.onnx', status: 404 });
    expect(e.message).toContain('has no file "onnx/model.onnx"');
    expect(e.message).toMatch(/dtype/);
    const q4 = await failure(loadEmbedder(spec('rag-lab/tiny-embedder', 'q4')));
    expect(q4).toMatchObject({ kind: 'not-found', file: 'onnx/model_q4.onnx' });
  });

  it('a truncated ONNX file is reported as corrupt; clearing the cache and reloading recovers', async () => {
    const id = 'broken/truncated-onnx';
    const e = await failure(loadEmbedder(spec(id)));
    expect(e).toMatchObject({ modelId: id, kind: 'corrupt', file: 'onnx/model.onnx' });
    expect(e.message).toMatch(/truncated or corrupt/);
    expect(e.message).toMatch(/Protobuf parsing failed/);
    expect(e.message).toMatch(/clearCachedModel/);
    // The bad copy is cached: fixing the server alone does not help…
    copyFileSync(join(EMBEDDER, 'onnx/model.onnx'), join(root, id, 'onnx/model.onnx'));
    expect(await failure(loadEmbedder(spec(id)))).toMatchObject({ kind: 'corrupt' });
    // …deleting the cached copy does.
    expect(await clearCachedModel(id)).toBe(4);
    const emb = await loadEmbedder(spec(id));
    expect(emb.dim).toBe(16);
    expect(await clearCachedModel('nobody/never-loaded')).toBe(0);
  });

  it('an unreachable host (closed port) is reported with the host and the OS error', async () => {
    const { close, url } = await listen(() => undefined);
    await close(); // the port is now closed
    configureModels({ remoteHost: url, cacheDir });
    // (An id never loaded before: the Node file cache keys files by id only, so cached files of another id would
    // still load from disk whatever the host.)
    const e = await failure(loadEmbedder(spec('rag-lab/elsewhere')));
    expect(e).toMatchObject({ modelId: 'rag-lab/elsewhere', kind: 'unreachable', file: 'config.json' });
    expect(e.message).toContain(`could not reach ${url}`);
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.message).toMatch(/model host setting/);
  });

  it('an HTTP 500 is reported as a host error with the status', async () => {
    const { close, url } = await listen((_req, res) => res.writeHead(500).end('boom'));
    try {
      configureModels({ remoteHost: url, cacheDir });
      const e = await failure(loadEmbedder(spec('rag-lab/http-500')));
      expect(e).toMatchObject({ kind: 'http', status: 500, file: 'config.json' });
      expect(e.message).toContain('HTTP 500');
    } finally {
      await close();
    }
  });

  it('a connection cut in the middle of the ONNX download is reported as interrupted', async () => {
    const { close, url } = await listen((req, res) => {
      const m = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
      const body = m ? readFileSync(join(EMBEDDER, m[2]!)) : Buffer.alloc(0);
      if (m?.[2] === 'onnx/model.onnx' && !req.headers.range) {
        res.writeHead(200, { 'Content-Length': body.length });
        res.write(body.subarray(0, 4000));
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.writeHead(200, { 'Content-Length': body.length }).end(body);
    });
    try {
      configureModels({ remoteHost: url, cacheDir });
      const e = await failure(loadEmbedder(spec('rag-lab/cut-off')));
      expect(e).toMatchObject({ kind: 'unreachable', file: 'onnx/model.onnx' });
      expect(e.message).toMatch(/download of "onnx\/model.onnx" .* was interrupted/);
    } finally {
      await close();
    }
  });

  it('an invalid id and disabled downloads are explained', async () => {
    expect(await failure(loadEmbedder(spec('not a model id')))).toMatchObject({ kind: 'invalid-id', modelId: 'not a model id' });
    configureModels({ allowRemote: false });
    expect(await failure(loadEmbedder(spec('rag-lab/never-downloaded')))).toMatchObject({ kind: 'offline' });
    const empty = mkdtempSync(join(tmpdir(), 'rag-lab-local-'));
    try {
      configureModels({ allowRemote: false, localModelPath: empty });
      const e = await failure(loadEmbedder(spec('rag-lab/never-downloaded')));
      expect(e).toMatchObject({ kind: 'offline', file: 'config.json' });
      expect(e.message).toMatch(/not in the local model folder/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a corrupt config.json (invalid JSON) is reported as corrupt', async () => {
    mkdirSync(join(root, 'broken/bad-json'), { recursive: true });
    writeFileSync(join(root, 'broken/bad-json/config.json'), '{"model_type": "bert",');
    const e = await failure(loadEmbedder(spec('broken/bad-json')));
    expect(e).toMatchObject({ kind: 'corrupt', file: 'config.json' });
    expect(e.message).toMatch(/not valid JSON/);
  });
});
