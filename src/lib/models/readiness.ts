/**
 * Model readiness has one owner: the models session's list of loaded models (model-session.ts; the page shows its
 * last answer in ModelsState, the search session asks it). Which retrieval modes can run is derived here, each time
 * it is asked, from that list and what the knowledge base holds (the dense vectors and the model that made them), or
 * for a benchmark run that builds its own vectors from the list alone; nothing else keeps a "dense ready" or
 * "reranker ready" flag.
 */
import { MODE_IDS, modeAvailability, type Availability, type Capabilities, type RetrievalMode } from '../retrieval/modes.ts';
import type { ModelSpec, ModelTask } from './types.ts';

/** A loaded model as the models worker lists it (workers/models-api.ts LoadedModel has at least these). */
export interface LoadedModelLike {
  task: ModelTask;
  spec: ModelSpec;
  dim: number | null;
}

/**
 * The model a knowledge base's vectors were made with: vectors embedded in this tab name the full spec; an
 * artifact's name the model id (its dtype and device do not matter to queries beyond rounding), so those are null.
 */
export interface DenseOwner {
  id: string;
  dtype: string | null;
  device: string | null;
  dim: number;
}

export const NEED_EMBEDDER = 'Dense search needs an embedding model: load one under Settings → Models.';
export const NEED_RERANKER = 'Reranking needs a cross-encoder: load one under Settings → Models.';
export const NEED_DENSE_INDEX = 'Dense search needs the dense index of this knowledge base: enable dense search under Settings → Models.';

/** Whether `m` is the model that made the vectors of `owner` (every non-null field agrees). */
export function ownsVectors(owner: DenseOwner, m: LoadedModelLike): boolean {
  return m.task === 'embedder' && m.spec.id === owner.id && m.dim === owner.dim
    && (owner.dtype === null || owner.dtype === m.spec.dtype) && (owner.device === null || owner.device === m.spec.device);
}

export interface Readiness<M extends LoadedModelLike> {
  /** The embedder that answers dense queries (loaded and the owner of the vectors), else null. */
  embed: M | null;
  rerank: M | null;
  denseReason: string;
  rerankerReason: string;
}

/** Which loaded models the search stages can use for a knowledge base whose vectors `dense` made (null: none). */
export function readiness<M extends LoadedModelLike>(dense: DenseOwner | null, loaded: readonly M[]): Readiness<M> {
  const embedder = loaded.find((m) => m.task === 'embedder') ?? null;
  const rerank = loaded.find((m) => m.task === 'cross-encoder') ?? null;
  let denseReason = NEED_EMBEDDER;
  let embed: M | null = null;
  if (embedder && !dense) denseReason = NEED_DENSE_INDEX;
  else if (embedder && dense && !ownsVectors(dense, embedder)) {
    denseReason = `The dense index was made with ${dense.id}${dense.dtype ? ` (${dense.dtype}${dense.device ? `, ${dense.device}` : ''})` : ''}, `
      + `but the loaded embedding model is ${embedder.spec.id} (${embedder.spec.dtype}, ${embedder.spec.device}): load that model, or enable dense search again to rebuild the index.`;
  } else if (embedder && dense) embed = embedder;
  return { embed, rerank, denseReason, rerankerReason: NEED_RERANKER };
}

export type ModeTable = Record<RetrievalMode, Availability>;

const tableOf = (caps: Capabilities) => Object.fromEntries(MODE_IDS.map((m) => [m, modeAvailability(m, caps)])) as ModeTable;

/**
 * Every mode's availability for a knowledge base (its vectors' owner) and the loaded models; `denseWhy`, when given,
 * is the reason dense modes are off (the page's: no embedder chosen for it, or another corpus's model loaded).
 */
export function modeTable(dense: DenseOwner | null, loaded: readonly LoadedModelLike[], denseWhy: string | null = null): ModeTable {
  const r = readiness(dense, loaded);
  return tableOf({ dense: r.embed !== null, reranker: r.rerank !== null, denseReason: r.embed === null && denseWhy ? denseWhy : r.denseReason, rerankerReason: r.rerankerReason });
}

const LOAD_EMBEDDER = 'needs an embedding model: load one under Settings → Models';
const LOAD_RERANKER = 'needs a cross-encoder: load one under Settings → Models';

/** Every mode's availability for a run that embeds the corpus itself (the retrieval benchmark): what is loaded. */
export function runModeTable(loaded: ReadonlyArray<{ task: string }>): ModeTable {
  return tableOf({
    dense: loaded.some((m) => m.task === 'embedder'), reranker: loaded.some((m) => m.task === 'cross-encoder'),
    denseReason: LOAD_EMBEDDER, rerankerReason: LOAD_RERANKER,
  });
}
