/**
 * The Build tab's "From a Hub dataset" form (one owner): the dataset field (owner/name or the Hub page URL), Inspect
 * (the build worker's `inspectHubDataset`, in a worker of its own that is terminated when done or cancelled), the
 * config and split (changing one inspects again: the columns may differ), the column mapping (the guess, editable),
 * the row limit, and Build (`build.start({ kind: 'hub-dataset', … })` with the Hub URL and token from Settings).
 * The pure rules are in `../hub-dataset-form.ts`.
 */
import type { HubDatasetInfo } from '../../lib/data/hub-dataset.ts';
import type { HubAccess } from '../../../workers/build-api.ts';
import { startBuildWorker } from '../clients/build-client.ts';
import { datasetFieldError, DEFAULT_MAX_ROWS, fieldsOf, mappingError, requestOf, rowLimitError, suggestedTitle, type MappingFields } from '../build/hub-dataset-form.ts';
import type { BuildState } from './build.svelte.ts';

export type InspectFn = (req: { dataset: string; config?: string; split?: string }, access: HubAccess) => { result: Promise<HubDatasetInfo>; cancel(): void };

/** Inspect in a fresh build worker (cancel terminates it). */
export const workerInspect: InspectFn = (req, access) => {
  const w = startBuildWorker();
  let cancel: () => void = () => {};
  const cancelled = new Promise<never>((_, fail) => { cancel = () => { w.terminate(); fail(new Error('Inspect cancelled.')); }; });
  const result = Promise.race([w.api.inspectHubDataset(req, access), cancelled]).finally(() => w.terminate());
  return { result, cancel };
};

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/^Error: /, '');

export class HubDatasetFormState {
  dataset = $state('');
  status = $state<'idle' | 'inspecting' | 'ready' | 'error'>('idle');
  error = $state<string | null>(null);
  info = $state.raw<HubDatasetInfo | null>(null);
  mapping = $state<MappingFields>({ id: '', title: '', text: '', metadata: [] });
  maxRows = $state(DEFAULT_MAX_ROWS);
  private running: { cancel(): void } | null = null;
  private seq = 0;

  constructor(private readonly build: BuildState, private readonly inspectFn: InspectFn = workerInspect) {}

  get datasetError(): string | null { return datasetFieldError(this.dataset); }
  get canInspect(): boolean { return this.dataset.trim() !== '' && this.datasetError === null && this.status !== 'inspecting'; }
  get rowLimitError(): string | null { return rowLimitError(this.maxRows); }
  get mappingError(): string | null { return this.info ? mappingError(this.info, this.mapping) : null; }
  get canBuild(): boolean {
    return this.info !== null && this.status === 'ready' && this.mappingError === null && this.rowLimitError === null && this.build.status !== 'building';
  }

  /** Inspects the dataset (a config and split when the user picked them). */
  async inspect(choice: { config?: string; split?: string } = {}): Promise<void> {
    if (this.dataset.trim() === '' || this.datasetError) { this.error = this.datasetError ?? 'Type a Hub dataset first.'; this.status = 'error'; return; }
    this.running?.cancel();
    const seq = ++this.seq;
    this.status = 'inspecting';
    this.error = null;
    const run = this.inspectFn({ dataset: this.dataset.trim(), ...choice }, this.build.access());
    this.running = run;
    try {
      const info = await run.result;
      if (seq !== this.seq) return;
      this.info = info;
      this.mapping = fieldsOf(info.guess);
      this.status = 'ready';
      this.build.suggestTitle(suggestedTitle(info));
    } catch (e) {
      if (seq !== this.seq) return;
      this.error = messageOf(e);
      this.status = this.info ? 'ready' : 'error';
      if (!choice.config && !choice.split) { this.info = null; this.status = 'error'; }
    } finally {
      if (seq === this.seq) this.running = null;
    }
  }

  cancel(): void {
    if (!this.running) return;
    this.seq++;
    this.running.cancel();
    this.running = null;
    this.status = this.info ? 'ready' : 'idle';
  }

  /** Another config: its first (or preferred) split, inspected again. */
  pickConfig(config: string): Promise<void> {
    return this.inspect({ config });
  }

  pickSplit(split: string): Promise<void> {
    return this.inspect({ ...(this.info ? { config: this.info.config } : {}), split });
  }

  toggleMetadata(column: string, on: boolean): void {
    const rest = this.mapping.metadata.filter((c) => c !== column);
    this.mapping.metadata = on ? [...rest, column] : rest;
  }

  /** Builds the knowledge base from the inspected dataset (the form's checks passed). */
  async start(): Promise<void> {
    if (!this.info) return;
    const problem = this.mappingError ?? this.rowLimitError;
    if (problem) { this.error = problem; return; }
    this.error = null;
    try {
      await this.build.start({ kind: 'hub-dataset', request: requestOf(this.info, this.mapping, this.maxRows), access: this.build.access() });
    } catch (e) {
      this.error = messageOf(e);
    }
  }
}
