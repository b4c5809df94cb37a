/** The typed surface of workers/models.worker.ts: the models session (src/lib/models/model-session.ts) and cache. */
import type { ModelDownload } from '../src/lib/models/download-size.ts';
import type { CachedFile, GeneratorDownload, LoadedModel, ModelSettings, ParityReport } from '../src/lib/models/model-contract.ts';
import type { ModelSession } from '../src/lib/models/model-session.ts';
import type { AnswerScore, ScoreRequest } from '../src/lib/eval/score/score-answer.ts';
import type { FileProgress, ModelSpec, ModelTask } from '../src/lib/models/types.ts';

export type { CachedFile, GeneratorDownload, LoadedModel, ModelSettings, ParityReport };

export interface ModelsWorkerApi extends Pick<ModelSession, 'loaded' | 'needsRestart' | 'embed' | 'rerank' | 'nli' | 'parity'> {
  configure(settings: ModelSettings): void;
  /** Tells `callback` once when a failed run leaves this worker unable to run models (the page replaces it). */
  onBroken(callback: (reason: string) => void): void;
  /** Loads a task's model; `fallback` records why `spec` differs from what the user chose (shown in the UI). */
  load(task: ModelTask, spec: ModelSpec, onProgress: (p: FileProgress) => void, fallback?: string | null): Promise<LoadedModel>;
  cachedFiles(): Promise<CachedFile[]>;
  /** What loading `spec` downloads from the configured host (its tree API), minus files in the browser cache. */
  downloadPlan(spec: ModelSpec): Promise<ModelDownload>;
  /** What the in-browser LLM `model` downloads on this device (the device and dtype it would load), before it starts. */
  generatorDownloadPlan(model: string): Promise<GeneratorDownload>;
  deleteCachedModel(modelId: string): Promise<number>;
  /** Scores one answer with the loaded models or the judge (src/lib/eval/score/score-answer.ts); `apiKey` goes only to its endpoint. */
  score(request: ScoreRequest, apiKey: string | null): Promise<AnswerScore>;
  /** Serves the same API on a port (the search worker calls embed/rerank directly, not through the page). */
  connect(port: MessagePort): void;
}
