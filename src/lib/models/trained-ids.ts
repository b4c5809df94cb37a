/**
 * Ids of corpus-trained embedders (docs/corpus-embedder.md "In the tab"): `corpus/<name>-lsi<dim>`, under the reserved
 * owner `corpus`, which no pretrained model in this app uses. Pure: no transformers.js, no storage.
 */

/** The owner every corpus-trained model id has; such an id is never looked up on a model host. */
export const TRAINED_OWNER = 'corpus';
const ID = /^corpus\/[a-z0-9][a-z0-9-]{0,79}$/;
/** The files a trained model has (trainCorpusEmbedder's Hub layout); nothing else is stored or served. */
export const TRAINED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx'] as const;

export const isTrainedModelId = (id: string): boolean => ID.test(id);

/** `corpus/<slug of the knowledge-base id>-lsi<dim>`: `sotu` → corpus/sotu-lsi256, `local:notes` → corpus/notes-lsi256. */
export function trainedModelId(kbId: string, dim: number): string {
  const slug = kbId.replace(/^local:/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '') || 'kb';
  return `${TRAINED_OWNER}/${slug}-lsi${Math.max(1, Math.floor(dim))}`;
}

/**
 * The trained model and file a transformers.js URL names: `<any host>/corpus/<name>/resolve/<revision>/<file>`, the
 * host and revision ignored (the files are in this browser whatever the model host is). null for any other URL.
 */
export function trainedFileOf(url: string): { id: string; file: string } | null {
  let path: string;
  try {
    path = new URL(url, 'http://localhost/').pathname;
  } catch {
    return null;
  }
  const m = /\/(corpus\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path);
  if (!m) return null;
  const id = decodeURIComponent(m[1]!);
  const file = decodeURIComponent(m[2]!);
  return isTrainedModelId(id) && (TRAINED_FILES as readonly string[]).includes(file) ? { id, file } : null;
}
