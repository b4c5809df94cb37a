/**
 * The cache transformers.js reads model files through (`env.customCache`, set by `configureModels`): a URL of a
 * corpus-trained model (`<any host>/corpus/<name>/resolve/<rev>/<file>`, trained-ids.ts) is answered from this
 * browser's store of trained models, so such a model loads offline exactly like a downloaded one; every other key
 * goes to the browser cache transformers.js would use itself (`caches.open('transformers-cache')`), so downloaded
 * models are cached, listed and deleted as before. transformers.js 4.3 (`utils/cache.js` `getCache`, `tryCache`)
 * calls `match(key)` with string keys; Request keys (the Cache API's other form) are answered the same way.
 */
import { trainedFileOf } from './trained-ids.ts';

/** Where trained models' files are read from (IndexedDbTrainedModelStore; null: not stored). */
export interface TrainedFileSource {
  readFile(id: string, path: string): Promise<Uint8Array | null>;
}

/** The part of the Cache API transformers.js uses. */
export interface ModelFileCache {
  match(request: string | Request): Promise<Response | undefined>;
  put(request: string | Request, response: Response): Promise<void>;
  delete(request: string | Request): Promise<boolean>;
}

const CONTENT_TYPE: Record<string, string> = { json: 'application/json', onnx: 'application/octet-stream' };

/**
 * A cache answering trained models from `source` and delegating every other key to `fallback()` (opened once, on
 * first use; null or a failure to open: no cache, as transformers.js behaves when the Cache API is refused).
 */
export function trainedModelCache(source: TrainedFileSource, fallback: (() => Promise<ModelFileCache | null>) | null): ModelFileCache {
  let opened: Promise<ModelFileCache | null> | null = null;
  const other = () => (opened ??= fallback ? fallback().catch(() => null) : Promise.resolve(null));
  const urlOf = (r: string | Request) => (typeof r === 'string' ? r : r.url);
  return {
    async match(request) {
      const trained = trainedFileOf(urlOf(request));
      if (!trained) return (await other())?.match(request);
      const bytes = await source.readFile(trained.id, trained.file);
      if (!bytes) return undefined;
      const ext = trained.file.slice(trained.file.lastIndexOf('.') + 1);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { 'content-length': String(bytes.byteLength), 'content-type': CONTENT_TYPE[ext] ?? 'application/octet-stream' },
      });
    },
    async put(request, response) {
      // A trained model is never written to the browser cache: its one copy is the store's.
      if (trainedFileOf(urlOf(request))) return;
      await (await other())?.put(request, response);
    },
    async delete(request) {
      if (trainedFileOf(urlOf(request))) return false;
      return (await (await other())?.delete(request)) ?? false;
    },
  };
}
