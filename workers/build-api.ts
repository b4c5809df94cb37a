/** The typed surface of workers/build.worker.ts (builds knowledge bases in the Build tab), shared with the UI. */
import type { HubDatasetInfo } from '../src/lib/data/hub-dataset.ts';
import type { BuildProgress } from '../src/lib/data/source-documents.ts';
import type { BuildSummary } from '../src/lib/data/local-kb-meta.ts';
import type { BuildRequest, BuildSource, HubAccess, PublishRequest, PublishResult } from '../src/lib/kb-build/requests.ts';
import type { TrainEmbedderProgress, TrainEmbedderRequest } from '../src/lib/kb-build/train-embedder.ts';
import type { TrainedModelMeta } from '../src/lib/store/trained-models.ts';

export type { BuildRequest, BuildSource, HubAccess, PublishRequest, PublishResult, TrainEmbedderProgress, TrainEmbedderRequest, TrainedModelMeta };

export interface BuildWorkerApi {
  /** Gives this worker a direct line to the models worker (embedding at build time uses its loaded embedder). */
  attachModels(port: MessagePort): void;
  /**
   * Builds a knowledge base in stages with progress and saves it in IndexedDB in one transaction at the end: a
   * failed or cancelled build (the page terminates the worker) leaves every saved knowledge base as it was.
   */
  build(request: BuildRequest, onProgress: (p: BuildProgress) => void): Promise<BuildSummary>;
  /** The configs, splits, schema and guessed columns of a Hub dataset (the form fills itself from it). */
  inspectHubDataset(req: { dataset: string; config?: string; split?: string; revision?: string }, access: HubAccess): Promise<HubDatasetInfo>;
  /** A saved knowledge base as a .zip of its artifact folder (`index_config.json` + `<name>/…`). */
  exportZip(name: string): Promise<Uint8Array>;
  /** Publishes a saved knowledge base to a Hub dataset repo: one commit on `parentCommit`, index_config.json merged. */
  publish(request: PublishRequest, onProgress: (p: BuildProgress) => void): Promise<PublishResult>;
  /**
   * Trains a corpus-trained embedder (LSI) on a knowledge base's chunk texts and saves it in the trained-model store
   * (`corpus/<name>-lsi<dim>`), progress per stage; the page cancels by terminating the worker.
   */
  trainEmbedder(request: TrainEmbedderRequest, onProgress: (p: TrainEmbedderProgress) => void): Promise<TrainedModelMeta>;
}
