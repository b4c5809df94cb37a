/**
 * The app-wide settings (src/ui/app/settings.ts: where models, knowledge bases and datasets come from, which models
 * to use, threads, the arXiv proxy): the page's one owner of them. Read from localStorage once (an invalid field
 * falls back to its default, with a `warning`), saved back by `save`; states that act on a change (ModelsState
 * restarts its worker on a new thread count or host) subscribe with `onSave` in their constructors.
 */
import { defaultDevice } from '../../lib/models/runtime.ts';
import { parseSettings, SETTINGS_KEY, sotuVectorsRepo, withDevice, type Settings } from '../app/settings.ts';

export class AppSettingsState {
  value = $state<Settings>(parseSettings(null).settings);
  /** Why stored settings were (partly) reset on read. */
  warning = $state<string | null>(null);
  /** Resolves once first-visit defaults know the device (WebGPU where this browser has a GPU adapter, else WASM). */
  readonly defaultsReady: Promise<void>;
  private readonly listeners: ((next: Settings, previous: Settings) => void)[] = [];

  constructor() {
    const stored = localStorage.getItem(SETTINGS_KEY);
    const { settings, warning } = parseSettings(stored);
    this.value = settings;
    this.warning = warning;
    // First visit: models on WebGPU where this browser has a GPU adapter (else WASM, as in DEFAULT_SETTINGS).
    this.defaultsReady = stored !== null ? Promise.resolve() : defaultDevice().then((d) => {
      if (d === 'webgpu' && localStorage.getItem(SETTINGS_KEY) === null) this.value = withDevice(this.value, d);
    }, () => {});
  }

  /** Keeps `next` (validated by the caller: SettingsTab's validateSettings, or a settings.ts `with…` helper) and tells the subscribers. */
  save(next: Settings): void {
    const previous = this.value;
    this.value = next;
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(next));
    for (const listener of this.listeners) listener(next, previous);
  }

  /** Runs `listener` after every `save`, with the settings before it. */
  onSave(listener: (next: Settings, previous: Settings) => void): void {
    this.listeners.push(listener);
  }

  /** The Hub repo holding vectors for the embedded corpus, or null to embed in the tab. */
  vectorsRepo(): { repo: string; revision: string } | null {
    return sotuVectorsRepo(this.value.sotuVectors);
  }

  /** Where a RAGBench subset's rows come from when no file was picked for it: the model host and the dataset viewer. */
  ragbenchHosts(): { hubUrl: string; viewerUrl: string } {
    return { hubUrl: this.value.remoteHost, viewerUrl: this.value.datasetsHost };
  }
}
