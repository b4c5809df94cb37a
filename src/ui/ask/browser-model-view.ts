/**
 * What the Ask tab says about the in-browser model before it is started (unit-tested in
 * tests/unit/browser-model-view.test.ts): which model, where it runs, what starting it downloads (from the model
 * host's file list, `generatorDownloadPlan`) and that the browser caches it.
 */
import type { GeneratorDownload } from '../../../workers/models-api.ts';
import { formatBytes } from '../shared/format.ts';

/** The download plan of the model in the Model field, as it is being read. */
export type BrowserPlanState =
  | { status: 'idle' }
  | { status: 'loading'; model: string }
  | { status: 'ready'; model: string; plan: GeneratorDownload }
  | { status: 'error'; model: string; error: string };

/** Whether starting `model` downloads nothing: every file it needs is in the browser cache already. */
export function fullyCached(p: BrowserPlanState, model: string): boolean {
  return p.status === 'ready' && p.model === model && p.plan.bytes === 0 && p.plan.missing.length === 0 && p.plan.cachedBytes > 0;
}

/** What the model is and where it runs. */
export function browserModelAbout(model: string): string {
  return `${model} runs in this tab with transformers.js: on the GPU through WebGPU where this browser offers it, else on the CPU through WebAssembly (WASM). No key and no server: the question and the passages stay on this device.`;
}

/** What starting it downloads, in words (or why that is not known yet). */
export function browserModelSize(p: BrowserPlanState, model: string): string {
  if (p.status === 'idle' || p.model !== model || p.status === 'loading') return 'Reading the download size from the model host…';
  if (p.status === 'error') return `The download size could not be read (${p.error}). Nothing is downloaded until you start it.`;
  const { plan } = p;
  if (plan.missing.length > 0) return `The model host does not list ${plan.missing.join(', ')} for ${model}: starting it will fail. Pick another model.`;
  const on = `${plan.dtype} weights for ${plan.device === 'webgpu' ? 'WebGPU' : plan.device === 'wasm' ? 'WASM' : plan.device}`;
  if (plan.bytes === 0) return `Already in this browser’s cache (${formatBytes(plan.cachedBytes)}, ${on}): it starts without downloading.`;
  const cached = plan.cachedBytes > 0 ? `, plus ${formatBytes(plan.cachedBytes)} already cached` : '';
  return `Starting it downloads about ${formatBytes(plan.bytes)} (${on}${cached}) once: the browser caches the files, so later answers and reloads start without downloading again.`;
}
