/**
 * The Build tab's state: the form (name, title, chunking, BM25, embedder), the build running in the build worker
 * (progress per stage, cancel), its summary, and the knowledge bases built in this browser (rename, rebuild, delete).
 * CONTRACT STUB (issue 12): the UI helper implements it. The Hub-dataset and arXiv forms call `start(source)` with
 * their source; the form's name, title and settings come from here.
 */
import type { BuildSource, HubAccess } from '../../../workers/build-api.ts';

export class BuildState {
  status = $state<'idle' | 'building' | 'done' | 'error' | 'cancelled'>('idle');
  /** The Hub URL and token (App wires Settings and HubTokenState in; never from a link). */
  access: () => HubAccess = () => ({ hubUrl: 'https://huggingface.co/', token: null });
  /** The arXiv proxy URL from Settings ('' = none set). */
  arxivProxy: () => string = () => '';

  /** Builds a knowledge base from `source` with the form's name, title and settings. */
  async start(_source: BuildSource): Promise<void> {
    throw new Error('The Build tab is not built yet.');
  }
}
