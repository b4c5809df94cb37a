/**
 * The custom cache transformers.js reads model files through: a corpus-trained id's URL (whatever the host and
 * revision) is answered from the trained-model source, string and Request keys alike; every other key goes to the
 * fallback cache (the browser's 'transformers-cache'), which also receives puts and deletes of other models. Then
 * a trained model loads through loadEmbedder with no local folder and an unreachable model host, reading only the
 * cache, and embeds as its fp32 graph says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainCorpusEmbedder, type TrainedModel } from '../../src/lib/models/corpus-embedder/train.ts';
import { loadEmbedder } from '../../src/lib/models/embedder.ts';
import { configureModels, modelsEnvironment } from '../../src/lib/models/env.ts';
import { trainedModelCache, type ModelFileCache } from '../../src/lib/models/trained-cache.ts';
import { isTrainedModelId, trainedFileOf, trainedModelId } from '../../src/lib/models/trained-ids.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';

const ID = 'corpus/topics-lsi8';
let model: TrainedModel;
const reads: string[] = [];
const source = {
  async readFile(id: string, path: string) {
    reads.push(`${id}|${path}`);
    return id === ID ? (model.files[path] ?? null) : null;
  },
};

/** A Map-backed stand-in for the browser cache that records what reached it. */
function fallbackCache(): ModelFileCache & { calls: string[]; entries: Map<string, Response> } {
  const entries = new Map<string, Response>();
  const calls: string[] = [];
  const key = (r: string | Request) => (typeof r === 'string' ? r : r.url);
  return {
    calls, entries,
    async match(r) { calls.push(`match ${key(r)}`); return entries.get(key(r))?.clone(); },
    async put(r, res) { calls.push(`put ${key(r)}`); entries.set(key(r), res); },
    async delete(r) { calls.push(`delete ${key(r)}`); return entries.delete(key(r)); },
  };
}

beforeAll(async () => {
  model = await trainCorpusEmbedder(topicCorpus().map((d) => `${d.title}\n${d.text}`), { dim: 8, trainedOn: 'generated topics' });
});

afterAll(() => configureModels());

describe('trained model ids', () => {
  it('names a knowledge base as corpus/<slug>-lsi<dim> and recognises only such ids', () => {
    expect(trainedModelId('sotu', 256)).toBe('corpus/sotu-lsi256');
    expect(trainedModelId('local:my-notes', 128)).toBe('corpus/my-notes-lsi128');
    expect(trainedModelId('hub:Owner/Repo/idx@abc', 256)).toBe('corpus/hub-owner-repo-idx-abc-lsi256');
    expect(isTrainedModelId('corpus/sotu-lsi256')).toBe(true);
    for (const id of ['Xenova/all-MiniLM-L6-v2', 'corpus/../x', 'corpus/', 'corpus/a/b', 'Corpus/sotu']) expect(isTrainedModelId(id), id).toBe(false);
  });

  it('reads the id and file from a URL on any host and revision, and nothing else', () => {
    expect(trainedFileOf('https://huggingface.co/corpus/sotu-lsi256/resolve/main/onnx/model_quantized.onnx')).toEqual({ id: 'corpus/sotu-lsi256', file: 'onnx/model_quantized.onnx' });
    expect(trainedFileOf('http://127.0.0.1:9/mirror/corpus/sotu-lsi256/resolve/v2/config.json')).toEqual({ id: 'corpus/sotu-lsi256', file: 'config.json' });
    expect(trainedFileOf('https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/config.json')).toBeNull();
    expect(trainedFileOf('https://huggingface.co/corpus/sotu-lsi256/resolve/main/secrets.txt')).toBeNull();
    expect(trainedFileOf('/models/corpus/sotu-lsi256/config.json')).toBeNull();
  });
});

describe('trainedModelCache', () => {
  it('answers a trained id from the source (string and Request keys) and never asks the fallback', async () => {
    const fb = fallbackCache();
    const cache = trainedModelCache(source, async () => fb);
    const url = `https://huggingface.co/${ID}/resolve/main/config.json`;
    for (const key of [url, new Request(url)]) {
      const res = await cache.match(key);
      expect(res?.status).toBe(200);
      expect(res?.headers.get('content-length')).toBe(String(model.files['config.json']!.byteLength));
      expect(new Uint8Array(await res!.arrayBuffer())).toEqual(model.files['config.json']);
    }
    expect(await cache.match(`https://huggingface.co/corpus/other-lsi8/resolve/main/config.json`)).toBeUndefined();
    await cache.put(url, new Response('x'));
    expect(await cache.delete(url)).toBe(false);
    expect(fb.calls).toEqual([]);
  });

  it('delegates every other key to the fallback cache: match, put and delete', async () => {
    const fb = fallbackCache();
    let opens = 0;
    const cache = trainedModelCache(source, async () => { opens++; return fb; });
    const url = 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/config.json';
    expect(await cache.match(url)).toBeUndefined();
    await cache.put(url, new Response('{"a":1}'));
    expect(await (await cache.match(new Request(url)))?.text()).toBe('{"a":1}');
    expect(await cache.delete(url)).toBe(true);
    expect(fb.calls).toEqual([`match ${url}`, `put ${url}`, `match ${url}`, `delete ${url}`]);
    expect(opens).toBe(1);
  });

  it('without a fallback (or when it cannot open) other keys are simply not cached', async () => {
    for (const fallback of [null, () => Promise.reject(new Error('SecurityError'))]) {
      const cache = trainedModelCache(source, fallback);
      const url = 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/config.json';
      expect(await cache.match(url)).toBeUndefined();
      await cache.put(url, new Response('x'));
      expect(await cache.delete(url)).toBe(false);
    }
  });
});

describe('loading a trained model through loadEmbedder', () => {
  it('reads its files only through the cache (no local folder, unreachable host) and embeds as its graph says', async () => {
    configureModels({ remoteHost: 'http://127.0.0.1:9/', trainedModels: source });
    expect(modelsEnvironment().localModelPath).toBeNull();
    reads.length = 0;
    const emb = await loadEmbedder({ id: ID, dtype: 'fp32', device: 'cpu' });
    expect(emb.dim).toBe(model.summary.dim);
    expect(reads).toEqual(expect.arrayContaining([`${ID}|config.json`, `${ID}|tokenizer.json`, `${ID}|onnx/model.onnx`]));
    const [a, b] = [await emb.embed(['river boat on the water'], 'query'), await emb.embed(['boat river water'], 'passage')];
    const cos = a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(cos).toBeGreaterThan(0.9);
    await emb.dispose();
    const q8 = await loadEmbedder({ id: ID, dtype: 'q8', device: 'cpu' });
    expect(reads).toContain(`${ID}|onnx/model_quantized.onnx`);
    await q8.dispose();
  });
});
