/**
 * The Tune panel's other embedders (TuneTabRequest.embedders, the tab's `rag-lab tune --embedders`): each
 * "owner/name" or "owner/name@dtype" (the dtype and device of the embedder loaded now, unless given) is loaded in the
 * search worker for this tune only, so the models worker keeps the one the Search tab uses; the open knowledge base's
 * items, and each chunking built again, are embedded by it once (cached under their own key, progress reported); the
 * models are freed when the tune ends.
 */
import { analyzerOf } from '../eval/retrieval/retrieval-session.ts';
import { modelKey } from '../eval/score/run-models.ts';
import type { EmbedderCorpus } from '../eval/retrieval/run-embedder.ts';
import { isDtype, type ModelSpec, type TextEmbedder } from '../models/types.ts';
import type { KbInfo } from '../rag/kb-contract.ts';
import { attachKbVectors } from '../rag/kb-vectors.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { TuneError } from './test-set-check.ts';
import { denseCopy, type TuneEmbedder } from './tune-embedder.ts';

/** Most other embedders one tune in the tab may load. */
export const TAB_EMBEDDERS_MAX = 4;

/** The specs of `ids` ("owner/name" or "owner/name@dtype"), checked; none may be the embedder loaded now. */
export function tabEmbedderSpecs(ids: readonly string[], current: ModelSpec | null): ModelSpec[] {
  const given = ids.map((x) => x.trim()).filter(Boolean);
  if (given.length > TAB_EMBEDDERS_MAX) throw new TuneError(`at most ${TAB_EMBEDDERS_MAX} other embedders in one tune, got ${given.length}`);
  if (given.length && !current) throw new TuneError('Other embedders are compared with the dense side of the one loaded now: load an embedder in the Models panel first');
  const specs = given.map((g) => {
    const m = /^([\w.-]+\/[\w.-]+)(?:@(\w+))?$/.exec(g);
    if (!m) throw new TuneError(`"${g}" is not a model id (owner/name, or owner/name@dtype)`);
    if (m[2] !== undefined && !isDtype(m[2])) throw new TuneError(`"${g}": ${m[2]} is not a dtype`);
    const spec: ModelSpec = { id: m[1]!, dtype: (m[2] ?? current!.dtype) as ModelSpec['dtype'], device: current!.device };
    if (modelKey(spec) === modelKey(current!)) throw new TuneError(`${modelKey(spec)} is the embedder loaded now: it is the current one already`);
    return spec;
  });
  if (new Set(specs.map(modelKey)).size < specs.length) throw new TuneError('an embedder is named twice');
  return specs;
}

export interface TabEmbedderDeps {
  load(spec: ModelSpec): Promise<TextEmbedder>;
  info: KbInfo;
  signal: AbortSignal;
  /** What an embedder was trained on (null: pretrained), for its identity (run-embedder.ts corpusLookup). */
  corpusOf(id: string): Promise<EmbedderCorpus | null>;
  /** The items embedded so far by `embedder` for one knowledge base. */
  onEmbed?(p: { embedder: string; done: number; total: number }): void;
}

/** The tune's other embedders (loaded now), and `dispose` to free them when it ends. */
export async function tabEmbedders(specs: readonly ModelSpec[], deps: TabEmbedderDeps): Promise<{ embedders: TuneEmbedder[]; dispose(): Promise<void> }> {
  const loaded: TextEmbedder[] = [];
  const dispose = async () => { for (const e of loaded.splice(0)) await e.dispose?.(); };
  try {
    for (const spec of specs) {
      deps.signal.throwIfAborted();
      loaded.push(await deps.load(spec).catch((e: unknown) => { throw new TuneError(`${modelKey(spec)} did not load: ${(e as Error).message || String(e)}`); }));
    }
  } catch (e) {
    await dispose();
    throw e;
  }
  const corpora = await Promise.all(loaded.map((m) => deps.corpusOf(m.spec.id))).catch(async (e: unknown) => { await dispose(); throw e; });
  const embedders = loaded.map((model, i): TuneEmbedder => ({
    identity: { embedder: modelKey(model.spec), embedderCorpus: corpora[i]! }, flag: modelKey(model.spec),
    encoder: { embedQuery: async (q) => model.embed([q], 'query') },
    async attach(kb: KnowledgeBase) {
      deps.signal.throwIfAborted();
      const key = `tune:${deps.info.corpusId}:${deps.info.corpusHash ?? ''}:${JSON.stringify([kb.options.chunking, analyzerOf(kb)])}`;
      return denseCopy(kb, (copy) => attachKbVectors(copy, null, model, {
        kbKey: async () => key, signal: deps.signal, onProgress: (stage, done, total) => { if (stage === 'embed') deps.onEmbed?.({ embedder: modelKey(model.spec), done, total }); },
      }));
    },
  }));
  return { embedders, dispose };
}
