/**
 * The loaded models of one runtime (the models worker): each task's model loaded once, run off the main thread, and
 * the list of what is loaded (the one owner of model readiness: the page and the search session derive from it).
 */
import { loadCrossEncoder } from './cross-encoder.ts';
import { loadEmbedder } from './embedder.ts';
import { runtimeReason } from './device-fallback.ts';
import { runtimeThreads } from './env.ts';
import { ModelLoadError } from './errors.ts';
import type { LoadedModel, ParityReport } from './model-contract.ts';
import { loadNli } from './nli.ts';
import { parityReport } from './parity.ts';
import { isTrainedModelId } from './trained-ids.ts';
import { checkTrainedSpec, type TrainedMetaSource } from './trained-plan.ts';
import { warmUp } from './warmup.ts';
import type { FileProgress, ModelSpec, ModelTask, NliClassifier, NliProbabilities, PairScorer, TextEmbedder } from './types.ts';

export type Model = TextEmbedder | PairScorer | NliClassifier;
type Loaded = { info: LoadedModel; model: Model };

/**
 * Loads `spec` for `task` (corpus-trained ids checked against `trained` first), timed; with `warmup` it then runs
 * the warm-up batch (warmup.ts), timed apart, before it resolves.
 */
export async function loadModel(task: ModelTask, spec: ModelSpec, trained: TrainedMetaSource, onProgress?: (p: FileProgress) => void, warmup = false): Promise<{ info: LoadedModel; model: Model }> {
  const t0 = performance.now();
  const opts = onProgress ? { onProgress } : {};
  if (isTrainedModelId(spec.id)) await checkTrainedSpec(spec, trained);
  const model = task === 'embedder' ? await loadEmbedder(spec, opts) : task === 'cross-encoder' ? await loadCrossEncoder(spec, opts) : await loadNli(spec, opts);
  const loadMs = performance.now() - t0;
  const dim = task === 'embedder' ? (model as TextEmbedder).dim : null;
  const warmupMs = warmup ? await warmUp(task, model) : null;
  return { info: { task, spec, dim, loadMs, warmupMs, firstCallMs: null, fallback: null, threads: runtimeThreads() }, model };
}

/** Options of a models session. */
export interface ModelSessionOptions {
  /** Run the warm-up batch after each load, before the model is reported ready (default true). */
  warmup?: boolean;
}

export class ModelSession {
  private readonly models = new Map<ModelTask, Loaded>();
  private readonly pending = new Map<string, Promise<Loaded>>();
  /**
   * transformers.js chains every model start on one promise: after certain failures (a corrupt file, a backend
   * that failed to start) every later load in this runtime fails too. Then the page restarts the worker.
   */
  private broken: string | null = null;
  /** Told when this runtime can no longer run models (the page replaces it: ModelsState.recover). */
  onBroken: ((reason: string) => void) | null = null;

  private readonly warmup: boolean;

  constructor(private readonly trained: TrainedMetaSource, options: ModelSessionOptions = {}) {
    this.warmup = options.warmup ?? true;
  }

  /**
   * Runs `call` on the task's model. transformers.js chains every inference in a browser on one promise, so after one
   * failed run (WebGPU device lost, out of memory…) every later run here fails with the same error: the session marks
   * itself broken and tells the page, which starts a fresh one (WebGPU models then on WASM, device-fallback.ts).
   */
  private async run<T extends Model, R>(task: ModelTask, call: (model: T) => Promise<R>): Promise<R> {
    const slot = this.models.get(task);
    if (!slot) throw new Error(`No ${task} model is loaded.`);
    if (this.broken) throw new Error(`The model runtime is restarting after a failure: ${this.broken}`);
    try {
      const t0 = performance.now();
      const out = await call(slot.model as T);
      // The first call after loading (and warm-up): what the first query paid, shown beside load and warm-up.
      if (slot.info.firstCallMs === null) slot.info.firstCallMs = performance.now() - t0;
      return out;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (!this.broken) {
        this.broken = `${slot.info.spec.id} (${slot.info.spec.device}) failed: ${message}`;
        this.onBroken?.(message);
      }
      throw new Error(`Model "${slot.info.spec.id}" failed on ${slot.info.spec.device}: ${runtimeReason(message)} The model runtime restarts.`);
    }
  }

  /** Loads a task's model; `fallback` records why `spec` differs from what the user chose (shown in the UI). */
  async load(task: ModelTask, spec: ModelSpec, onProgress?: (p: FileProgress) => void, fallback: string | null = null): Promise<LoadedModel> {
    if (this.broken) throw new Error(`The model runtime must restart after an earlier failure: ${this.broken}`);
    const current = this.models.get(task);
    if (current && JSON.stringify(current.info.spec) === JSON.stringify(spec)) return current.info;
    const key = `${task}|${JSON.stringify(spec)}`;
    let p = this.pending.get(key);
    if (!p) {
      // Without a WebGPU adapter, modelLoad refuses before ONNX Runtime starts; the page then loads on WASM.
      p = loadModel(task, spec, this.trained, onProgress, this.warmup).then((loaded) => { loaded.info.fallback = fallback; return loaded; });
      this.pending.set(key, p);
    }
    try {
      const loaded = await p;
      await current?.model.dispose?.();
      this.models.set(task, loaded);
      return loaded.info;
    } catch (e) {
      if (e instanceof ModelLoadError && e.restartRequired) this.broken = e.message;
      throw e;
    } finally {
      this.pending.delete(key);
    }
  }

  /** True after a failure that leaves transformers.js unable to load more models in this runtime. */
  needsRestart(): boolean {
    return this.broken !== null;
  }

  loaded(): LoadedModel[] {
    return [...this.models.values()].map((m) => ({ ...m.info }));
  }

  /** Forgets the loaded models of `modelId` (its cached files were deleted). */
  unload(modelId: string): void {
    for (const [task, m] of this.models) if (m.info.spec.id === modelId) this.models.delete(task);
  }

  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array> {
    return this.run<TextEmbedder, Float32Array>('embedder', (m) => m.embed(texts, kind));
  }

  rerank(query: string, passages: string[]): Promise<number[]> {
    return this.run<PairScorer, number[]>('cross-encoder', (m) => m.score(query, passages));
  }

  nli(premise: string, hypothesis: string): Promise<NliProbabilities> {
    return this.run<NliClassifier, NliProbabilities>('nli', (m) => m.predict(premise, hypothesis));
  }

  /** The loaded model of `task` against its fp32 WASM reference on fixed inputs (parity.ts). */
  async parity(task: ModelTask): Promise<ParityReport> {
    const current = this.models.get(task);
    if (!current) throw new Error(`Load a ${task} model before running the parity test.`);
    const spec = current.info.spec;
    const ref = (await loadModel(task, { id: spec.id, dtype: 'fp32', device: 'wasm' }, this.trained)).model;
    try {
      return await parityReport(task, spec, current.model, ref);
    } finally {
      await ref.dispose?.();
    }
  }
}
