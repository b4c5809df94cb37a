/** What the Ask tab says about the in-browser model before it starts (issue 21, point 9), and the files it sizes. */
import { describe, expect, test } from 'vitest';
import { neededFiles } from '../../src/lib/models/download-size.ts';
import { browserModelAbout, browserModelSize, fullyCached, type BrowserPlanState } from '../../src/ui/ask/browser-model-view.ts';

const M = 'onnx-community/Qwen2.5-0.5B-Instruct';
const ready = (over: Partial<{ bytes: number; cachedBytes: number; missing: string[]; device: 'webgpu' | 'wasm'; dtype: string }> = {}): BrowserPlanState => ({
  status: 'ready', model: M, plan: { id: M, bytes: 483_000_000, cachedBytes: 0, missing: [], device: 'webgpu', dtype: 'q4f16', ...over },
});

describe('the in-browser model before it starts', () => {
  test('says which model and where it runs', () => {
    expect(browserModelAbout(M)).toMatch(/^onnx-community\/Qwen2\.5-0\.5B-Instruct runs in this tab .*WebGPU.*WebAssembly \(WASM\)/);
  });

  test('says what starting it downloads, once, and that the browser caches it', () => {
    expect(browserModelSize(ready(), M)).toBe('Starting it downloads about 483 MB (q4f16 weights for WebGPU) once: the browser caches the files, so later answers and reloads start without downloading again.');
    expect(browserModelSize(ready({ device: 'wasm', dtype: 'q8', bytes: 1_500, cachedBytes: 900 }), M)).toMatch(/^Starting it downloads about 1\.5 kB \(q8 weights for WASM, plus 900 B already cached\) once/);
    expect(browserModelSize(ready({ bytes: 0, cachedBytes: 483_000_000 }), M)).toMatch(/^Already in this browser’s cache \(483 MB/);
    expect(browserModelSize(ready({ missing: ['onnx/model_q4f16.onnx'] }), M)).toMatch(/does not list onnx\/model_q4f16\.onnx .*will fail/);
    expect(browserModelSize({ status: 'error', model: M, error: 'the model host could not be reached' }, M)).toMatch(/could not be read \(the model host could not be reached\)\. Nothing is downloaded until you start it\.$/);
    // A plan of another model (the field changed) is not shown as this one's.
    expect(browserModelSize(ready(), 'HuggingFaceTB/SmolLM2-135M-Instruct')).toMatch(/^Reading the download size/);
  });

  test('only a model whose files are all cached starts without an explicit Start', () => {
    expect(fullyCached(ready({ bytes: 0, cachedBytes: 10 }), M)).toBe(true);
    expect(fullyCached(ready(), M)).toBe(false);
    expect(fullyCached(ready({ bytes: 0, cachedBytes: 10, missing: ['config.json'] }), M)).toBe(false);
    expect(fullyCached(ready({ bytes: 0, cachedBytes: 10 }), 'other')).toBe(false);
    expect(fullyCached({ status: 'loading', model: M }, M)).toBe(false);
  });

  test('the WebGPU fp16 graph is sized as the model loads it', () => {
    expect(neededFiles('q4f16', [])).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_q4f16.onnx']);
  });
});
