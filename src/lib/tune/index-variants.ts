/**
 * The tuner's vector index dimension (RUN_SETTINGS.index): each kind (exact, int8, hnsw) built once per knowledge base
 * over the vectors its dense side already holds (nothing is embedded again), and a trial of that kind runs on the
 * same knowledge base with only the dense retriever swapped (`KnowledgeBase.withDenseIndex`). The kind the knowledge
 * base already has is the current settings' 'auto' (the dimension's value for it is the base's, so it is no new
 * setting). HNSW graphs hold wasm memory: disposed when the tune ends.
 */
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { DenseRetriever } from '../retrieval/dense.ts';
import { HnswIndex } from '../retrieval/hnsw.ts';
import { buildVectorIndex, indexVectors, vectorIndexKind, type VectorIndexChoice, type VectorIndexKind } from '../retrieval/vector-index.ts';
import type { TuneDimension } from './space.ts';

/** The kind of the knowledge base's dense index, or null (none, or a retriever not built by vector-index.ts). */
export function ownIndexKind(kb: KnowledgeBase): VectorIndexKind | null {
  if (!kb.dense) return null;
  try { return vectorIndexKind(kb.dense); } catch { return null; }
}

/**
 * The dimensions with the index kind's values as this knowledge base runs them: the kind it has is the base's value
 * ('auto' when the current settings say auto); the dimension is left out, with a note, when no other kind can be
 * built (no dense side, or an int8 index whose float vectors are not kept).
 */
export function indexDimensions(dims: readonly TuneDimension[], base: VectorIndexChoice, kb: KnowledgeBase, notes: string[]): TuneDimension[] {
  const at = dims.findIndex((d) => d.key === 'index');
  if (at < 0) return [...dims];
  const own = ownIndexKind(kb);
  if (!kb.dense) return dims.filter((_, i) => i !== at);
  if (!own || !indexVectors(kb.dense)) {
    notes.push(`the vector index kind is not in the space: the knowledge base's ${own ?? 'dense'} index keeps no float vectors to build another kind from`);
    return dims.filter((_, i) => i !== at);
  }
  const values = [...new Set(dims[at]!.values.map((x) => (x === own && base === 'auto' ? 'auto' : x)))];
  return dims.map((d, i) => (i === at ? { ...d, values } : d));
}

export class IndexVariants {
  private readonly built = new Map<string, Promise<DenseRetriever>>();
  private readonly disposable: HnswIndex[] = [];
  /** What was built and how long it took (the tune's notes). */
  readonly notes: string[] = [];

  constructor(private readonly signal?: AbortSignal) {}

  /** `kb` (built with chunking / analyzer `buildKey`) with the dense index `want` ('auto': its own). */
  async of(kb: KnowledgeBase, buildKey: string, want: VectorIndexChoice): Promise<KnowledgeBase> {
    const own = ownIndexKind(kb);
    if (want === 'auto' || want === own || !kb.dense) return kb;
    const vectors = indexVectors(kb.dense);
    if (!own || !vectors) throw new Error(`a trial asks for a ${want} index and the knowledge base's dense index keeps no float vectors to build it from`);
    const key = `${buildKey}|${want}`;
    if (!this.built.has(key)) this.built.set(key, this.build(want, vectors, kb.dense.dim, kb.dense.metric));
    return kb.withDenseIndex(await this.built.get(key)!);
  }

  private async build(kind: VectorIndexKind, vectors: Float32Array, dim: number, metric: DenseRetriever['metric']): Promise<DenseRetriever> {
    const t0 = performance.now();
    const index = await buildVectorIndex(kind, vectors, dim, undefined, { metric, ...(this.signal ? { signal: this.signal } : {}) });
    if (index instanceof HnswIndex) this.disposable.push(index);
    this.notes.push(`the ${kind} vector index over ${index.size} vectors built once for its trials (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    return index;
  }

  dispose(): void {
    for (const index of this.disposable.splice(0)) index.dispose();
  }
}
