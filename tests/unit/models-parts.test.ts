/** The model layer's pure parts: registry and prefixes, pair encoding and windows, progress, error mapping, env. */
import { env } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import {
  autoThreads,
  configureModels,
  DEFAULT_REMOTE_HOST,
  defaultDevice,
  defaultSpec,
  hasWebGPU,
  IS_NODE,
  modelsEnvironment,
  runtimeDevice,
  runtimeThreads,
  sessionOptions,
} from '../../src/lib/models/env.ts';
import { lengthSortedBatches, paddingShare } from '../../src/lib/models/batches.ts';
import { defaultDtype } from '../../src/lib/models/registry.ts';
import { fileFromLocation, ModelLoadError, toModelLoadError } from '../../src/lib/models/errors.ts';
import { maxInputLength } from '../../src/lib/models/loading.ts';
import { nliLabelIndex, softmax } from '../../src/lib/models/nli.ts';
import { locatePair, longestFirst, padBatch, planPremiseWindows, planWindows, slicePair, specialCount } from '../../src/lib/models/pair-encoding.ts';
import { trackProgress } from '../../src/lib/models/progress.ts';
import { DEFAULT_MODELS, MODEL_OPTIONS, prefixesFor } from '../../src/lib/models/registry.ts';
import type { FileProgress } from '../../src/lib/models/types.ts';

describe('registry', () => {
  it('defaults per task, frozen', () => {
    expect(DEFAULT_MODELS).toEqual({
      embedder: 'Xenova/all-MiniLM-L6-v2',
      'cross-encoder': 'Xenova/ms-marco-MiniLM-L-6-v2',
      nli: 'Xenova/nli-deberta-v3-base',
    });
    expect(Object.isFrozen(DEFAULT_MODELS)).toBe(true);
    expect(Object.isFrozen(MODEL_OPTIONS.nli)).toBe(true);
    expect(MODEL_OPTIONS.nli.map((m) => m.id)).toEqual(['Xenova/nli-deberta-v3-base', 'Xenova/nli-deberta-v3-xsmall']);
    for (const task of ['embedder', 'cross-encoder', 'nli'] as const) expect(MODEL_OPTIONS[task][0]!.id).toBe(DEFAULT_MODELS[task]);
  });

  it('prefixes by model id pattern, overridable', () => {
    expect(prefixesFor('Xenova/all-MiniLM-L6-v2')).toEqual({ query: '', passage: '' });
    expect(prefixesFor('Xenova/e5-small-v2')).toEqual({ query: 'query: ', passage: 'passage: ' });
    expect(prefixesFor('intfloat/multilingual-e5-base')).toEqual({ query: 'query: ', passage: 'passage: ' });
    expect(prefixesFor('Xenova/bge-small-en-v1.5')).toEqual({ query: 'Represent this sentence for searching relevant passages: ', passage: '' });
    expect(prefixesFor('BAAI/bge-base-en')).toEqual({ query: 'Represent this sentence for searching relevant passages: ', passage: '' });
    expect(prefixesFor('Xenova/bge-m3')).toEqual({ query: '', passage: '' });
    expect(prefixesFor('nomic-ai/nomic-embed-text-v1.5')).toEqual({ query: 'search_query: ', passage: 'search_document: ' });
    expect(prefixesFor('intfloat/multilingual-e5-large-instruct').query).toMatch(/^Instruct: .*\nQuery: $/);
    // Not fooled by substrings elsewhere in an id.
    expect(prefixesFor('someone/like5-model')).toEqual({ query: '', passage: '' });
    expect(prefixesFor('Xenova/e5-small-v2', { query: 'q: ' })).toEqual({ query: 'q: ', passage: 'passage: ' });
    expect(prefixesFor('x/y', { passage: 'p ' }, [{ pattern: /x\//, prefixes: { query: 'Q', passage: 'P' } }])).toEqual({ query: 'Q', passage: 'p ' });
  });
});

describe('pair encoding', () => {
  // A BERT-like template: 2 = [CLS], 3 = [SEP]; A = 10 11 12, B = 20 21.
  const full = { input_ids: [2, 10, 11, 12, 3, 20, 21, 3], attention_mask: [1, 1, 1, 1, 1, 1, 1, 1], token_type_ids: [0, 0, 0, 0, 0, 1, 1, 1] };

  it('locates both texts and counts template tokens', () => {
    const layout = locatePair(full.input_ids, [10, 11, 12], [20, 21])!;
    expect(layout).toEqual({ aStart: 1, aLen: 3, bStart: 5, bLen: 2, length: 8 });
    expect(specialCount(layout)).toBe(3);
    // RoBERTa-like <s> A </s></s> B </s>
    expect(specialCount(locatePair([0, 10, 2, 2, 20, 2], [10], [20])!)).toBe(4);
    expect(locatePair(full.input_ids, [10, 99], [20])).toBeNull();
    expect(locatePair(full.input_ids, [20, 21], [10])).toBeNull(); // wrong order
    expect(locatePair([2, 3, 3], [], [])).toEqual({ aStart: 0, aLen: 0, bStart: 3, bLen: 0, length: 3 });
  });

  it('slices windows of A and B keeping every template token and token type', () => {
    const layout = locatePair(full.input_ids, [10, 11, 12], [20, 21])!;
    expect(slicePair(full, layout, [1, 3], [0, 1])).toEqual({
      input_ids: [2, 11, 12, 3, 20, 3],
      attention_mask: [1, 1, 1, 1, 1, 1],
      token_type_ids: [0, 0, 0, 0, 1, 1],
    });
    expect(slicePair(full, layout, [0, 3], [0, 2])).toEqual(full);
  });

  it("longest_first equals trimming the longer text one token at a time (ties: from B)", () => {
    const loop = (a: number, b: number, budget: number) => {
      while (a + b > budget) if (a > b) a--; else b--;
      return [a, b];
    };
    for (let a = 0; a <= 12; a++) for (let b = 0; b <= 12; b++) for (let budget = 0; budget <= 26; budget++) {
      expect(longestFirst(a, b, budget), `${a},${b},${budget}`).toEqual(loop(a, b, budget));
    }
  });

  it('windows cover the text, overlap, stay full-size, and the last one ends at the end', () => {
    expect(planWindows(10, 26, 6)).toEqual([{ start: 0, end: 10 }]);
    expect(planWindows(70, 26, 6).map((w) => [w.start, w.end])).toEqual([[0, 26], [20, 46], [40, 66], [44, 70]]);
    expect(planWindows(0, 5, 1)).toEqual([{ start: 0, end: 0 }]);
    expect(() => planWindows(10, 0, 0)).toThrow(RangeError);
    for (const [total, size, overlap] of [[100, 7, 2], [31, 30, 29], [64, 16, 0], [1000, 509, 127]] as const) {
      const ws = planWindows(total, size, overlap);
      expect(ws[0]!.start).toBe(0);
      expect(ws.at(-1)!.end).toBe(total);
      for (const w of ws) expect(w.end - w.start).toBe(size);
      for (let i = 1; i < ws.length; i++) {
        expect(ws[i]!.start).toBeGreaterThan(ws[i - 1]!.start);
        expect(ws[i]!.start).toBeLessThanOrEqual(ws[i - 1]!.end - Math.min(overlap, size - 1)); // overlap kept
      }
    }
  });

  it('premise windows leave room for the hypothesis; a huge hypothesis is cut to half', () => {
    expect(planPremiseWindows(20, 5, 3, 32)).toEqual({ windows: [{ start: 0, end: 20 }], hypothesisTokens: 5, premiseBudget: 24 });
    const p = planPremiseWindows(70, 3, 3, 32);
    expect(p.premiseBudget).toBe(26);
    expect(p.windows).toHaveLength(4);
    const big = planPremiseWindows(30, 20, 3, 32);
    expect(big.hypothesisTokens).toBe(14);
    expect(big.premiseBudget).toBe(15);
    for (const w of big.windows) expect(w.end - w.start + big.hypothesisTokens + 3).toBeLessThanOrEqual(32);
    expect(() => planPremiseWindows(5, 5, 3, 4)).toThrow(RangeError);
  });

  it('pads a batch on the right', () => {
    const b = padBatch([{ input_ids: [5, 6, 7], attention_mask: [1, 1, 1], token_type_ids: [0, 1, 1] }, { input_ids: [5], attention_mask: [1], token_type_ids: [0] }], 9);
    expect(b).toEqual({ input_ids: [[5, 6, 7], [5, 9, 9]], attention_mask: [[1, 1, 1], [1, 0, 0]], token_type_ids: [[0, 1, 1], [0, 0, 0]] });
    expect(padBatch([{ input_ids: [1], attention_mask: [1] }], 0).token_type_ids).toBeUndefined();
  });

  it('batches inputs shortest first (ties in input order), so batches pad less', () => {
    const lengths = [9, 3, 7, 3, 12, 4];
    expect(lengthSortedBatches(lengths, 4)).toEqual([[1, 3, 5, 2], [0, 4]]);
    expect(lengthSortedBatches(lengths, 0.5)).toEqual([[1], [3], [5], [2], [0], [4]]);
    expect(lengthSortedBatches([], 8)).toEqual([]);
  });

  it('padding share = padded positions / real tokens − 1, lower with length-sorted batches', () => {
    const lengths = [9, 3, 7, 3, 12, 4]; // 38 real tokens
    // sorted: [3,3,4,7] pads to 4·7 = 28, [9,12] to 2·12 = 24 → 52/38 − 1 = 14/38
    expect(paddingShare(lengths, lengthSortedBatches(lengths, 4))).toBeCloseTo(14 / 38, 12);
    // arrival order: [9,3,7,3] → 4·9 = 36, [12,4] → 2·12 = 24 → 60/38 − 1 = 22/38
    expect(paddingShare(lengths, [[0, 1, 2, 3], [4, 5]])).toBeCloseTo(22 / 38, 12);
    expect(paddingShare(lengths, lengths.map((_, i) => [i]))).toBe(0);
    expect(paddingShare([], [])).toBe(0);
    expect(() => paddingShare([1], [[0, 1]])).toThrow(/row 1/);
  });

  it('max input length: tokenizer limit capped by position embeddings (RoBERTa keeps 2)', () => {
    expect(maxInputLength(128, { max_position_embeddings: 32 })).toBe(32);
    expect(maxInputLength(512, { max_position_embeddings: 512 })).toBe(512);
    expect(maxInputLength(1e30, { model_type: 'xlm-roberta', max_position_embeddings: 514 })).toBe(512);
    expect(maxInputLength(Infinity, {})).toBe(512);
  });
});

describe('NLI helpers', () => {
  it('finds the labels case-insensitively, or reports them missing', () => {
    expect(nliLabelIndex(['CONTRADICTION', 'Entailment', 'neutral'])).toEqual({ contradiction: 0, entailment: 1, neutral: 2 });
    expect(nliLabelIndex(['entailment', 'not_entailment'])).toBeNull();
    expect(nliLabelIndex(['LABEL_0'])).toBeNull();
  });

  it('softmax is stable and sums to 1', () => {
    const p = softmax([1000, 1001, 999]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p[1]).toBeCloseTo(Math.exp(1) / (1 + Math.exp(1) + Math.exp(-1)), 12);
  });
});

describe('progress', () => {
  it('maps transformers.js events to per-file bytes and one final ready', () => {
    const seen: FileProgress[] = [];
    const t = trackProgress('o/m', (p) => seen.push(p));
    t.callback({ status: 'initiate', file: 'config.json' });
    t.callback({ status: 'initiate', file: 'onnx/model.onnx' });
    t.callback({ status: 'download', file: 'config.json' });
    t.callback({ status: 'progress', file: 'config.json', loaded: 100, total: 270 });
    t.callback({ status: 'progress_total', file: undefined, loaded: 100, total: 9999 });
    t.callback({ status: 'progress', file: 'config.json', loaded: 270, total: 270 });
    expect(t.inFlight()).toEqual(['config.json', 'onnx/model.onnx']);
    t.callback({ status: 'done', file: 'config.json' });
    t.callback({ status: 'progress', file: 'onnx/model.onnx', loaded: 50, total: 0 }); // no Content-Length
    t.callback({ status: 'done', file: 'onnx/model.onnx' });
    t.callback({ status: 'ready' });
    expect(t.inFlight()).toEqual([]);
    expect(t.done()).toEqual(['config.json', 'onnx/model.onnx']);
    t.ready();
    expect(seen.map((p) => [p.file, p.status, p.loaded, p.total])).toEqual([
      ['config.json', 'initiate', 0, 0],
      ['onnx/model.onnx', 'initiate', 0, 0],
      ['config.json', 'download', 0, 0],
      ['config.json', 'progress', 100, 270],
      ['config.json', 'progress', 270, 270],
      ['config.json', 'done', 270, 270],
      ['onnx/model.onnx', 'progress', 50, 50],
      ['onnx/model.onnx', 'done', 50, 50],
      ['', 'ready', 320, 320],
    ]);
    expect(seen.every((p) => p.model === 'o/m')).toBe(true);
  });

  it('a throwing listener does not break loading', () => {
    const t = trackProgress('o/m', () => { throw new Error('ui bug'); });
    expect(() => t.callback({ status: 'initiate', file: 'a' })).not.toThrow();
  });
});

describe('toModelLoadError (browser-side messages and edge cases)', () => {
  const url = 'https://huggingface.co/o/m/resolve/main/onnx/model_quantized.onnx';

  it('keeps a ModelLoadError as is and records the cause', () => {
    const e = new ModelLoadError('x', { modelId: 'o/m', kind: 'unknown' });
    expect(toModelLoadError(e, 'other')).toBe(e);
    const cause = new Error('weird');
    const w = toModelLoadError(cause, 'o/m');
    expect(w).toMatchObject({ kind: 'unknown', modelId: 'o/m', cause });
    expect(w.message).toContain('weird');
  });

  it('browser fetch failures are unreachable', () => {
    for (const m of ['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed']) {
      const e = toModelLoadError(new TypeError(m), 'o/m', { inFlight: ['config.json'], remoteHost: 'https://hub.example/' });
      expect(e).toMatchObject({ kind: 'unreachable', file: 'config.json' });
      expect(e.message).toContain('https://hub.example/');
    }
  });

  it('onnxruntime-web session failures are corrupt, with the reload advice in a browser', () => {
    const msg = "Can't create a session. ERROR_CODE: 7, ERROR_MESSAGE: Failed to load model because protobuf parsing failed.";
    const e = toModelLoadError(new Error(msg), 'o/m', { done: ['config.json', 'onnx/model_quantized.onnx'], inFlight: [], web: true });
    expect(e).toMatchObject({ kind: 'corrupt', file: 'onnx/model_quantized.onnx' });
    expect(e.message).toMatch(/reload the page/);
  });

  it('a replayed session failure in a browser says to restart; Node ignores replays', () => {
    const cause = new Error("Can't create a session. ERROR_CODE: 7, ERROR_MESSAGE: Failed to load model because protobuf parsing failed.");
    const e = toModelLoadError(cause, 'good/model', { web: true, replayed: true, done: ['onnx/model.onnx'] });
    expect(e).toMatchObject({ kind: 'restart-required', restartRequired: true, file: undefined, modelId: 'good/model' });
    expect(e.message).toMatch(/earlier model failed to start.*Reload the page/);
    expect(toModelLoadError(cause, 'good/model', { web: false, replayed: true })).toMatchObject({ kind: 'corrupt', restartRequired: false });
    const gpu = toModelLoadError(new Error('no available backend found. ERR: [webgpu] Error: Failed to get GPU adapter.'), 'o/m', { web: true });
    expect(gpu).toMatchObject({ kind: 'unsupported', restartRequired: true });
  });

  it('401/403 say the repo may be missing or private', () => {
    const e = toModelLoadError(Object.assign(new Error(`Unauthorized access to file: "${url.replace('onnx/model_quantized.onnx', 'config.json')}".`), { name: 'ModelFileNotFoundError', status: 401 }), 'o/m');
    expect(e).toMatchObject({ kind: 'not-found', status: 401, file: 'config.json' });
    expect(e.message).toMatch(/private or gated/);
  });

  it('unknown statuses and device errors', () => {
    expect(toModelLoadError(new Error(`Error (429) occurred while trying to load file: "${url}".`), 'o/m')).toMatchObject({ kind: 'http', status: 429, file: 'onnx/model_quantized.onnx' });
    expect(toModelLoadError(new Error('Unsupported device: "wasm". Should be one of: cuda, webgpu, cpu.'), 'o/m').kind).toBe('unsupported');
    expect(toModelLoadError(new TypeError("Cannot read properties of undefined (reading 'tokenizer_class')"), 'o/m')).toMatchObject({ kind: 'not-found', file: 'tokenizer_config.json' });
  });

  it('file names from URLs and cache paths', () => {
    expect(fileFromLocation(url, 'o/m')).toBe('onnx/model_quantized.onnx');
    expect(fileFromLocation('/tmp/cache/o/m/onnx/model.onnx', 'o/m')).toBe('onnx/model.onnx');
    expect(fileFromLocation('C:\\cache\\o\\m\\tokenizer.json', 'o/m')).toBe('tokenizer.json');
    expect(fileFromLocation('/elsewhere/x', 'o/m')).toBeUndefined();
  });
});

describe('env', () => {
  it('Node: cpu device, fp32; wasm maps to cpu; no WebGPU', async () => {
    expect(IS_NODE).toBe(true);
    expect(await hasWebGPU()).toBe(false);
    expect(await defaultDevice()).toBe('cpu');
    expect(defaultDtype('cpu')).toBe('fp32');
    expect(defaultDtype('wasm')).toBe('q8');
    expect(defaultDtype('webgpu')).toBe('fp32');
    expect(runtimeDevice('wasm')).toBe('cpu');
    expect(runtimeDevice('webgpu')).toBe('webgpu');
    expect(await defaultSpec('nli')).toEqual({ id: 'Xenova/nli-deberta-v3-base', device: 'cpu', dtype: 'fp32' });
    expect(await defaultSpec('embedder', { device: 'wasm' })).toEqual({ id: 'Xenova/all-MiniLM-L6-v2', device: 'wasm', dtype: 'q8' });
  });

  it('auto threads: min(4, logical cores) when cross-origin isolated, else 1', () => {
    expect([1, 2, 3, 4, 8, 64].map((n) => autoThreads(n, true))).toEqual([1, 2, 3, 4, 4, 4]);
    expect(autoThreads(8, false)).toBe(1);
    expect(autoThreads(0, true)).toBe(1);
    expect(autoThreads(Number.NaN, true)).toBe(1);
  });

  it('configureModels sets transformers.js env, with defaults for what is left out', () => {
    configureModels({ remoteHost: 'http://127.0.0.1:9/hub', localModelPath: '/models', allowRemote: false, numThreads: 2, wasmPaths: { mjs: 'http://x/a.mjs', wasm: 'http://x/a.wasm' } });
    expect(env.remoteHost).toBe('http://127.0.0.1:9/hub/');
    expect(env.allowLocalModels).toBe(true);
    expect(env.localModelPath).toBe('/models/');
    expect(env.allowRemoteModels).toBe(false);
    expect(env.useBrowserCache).toBe(false); // Node
    expect(env.backends.onnx.wasm?.wasmPaths).toEqual({ mjs: 'http://x/a.mjs', wasm: 'http://x/a.wasm' });
    expect(env.backends.onnx.wasm?.numThreads).toBe(2);
    expect(sessionOptions()).toEqual({ intraOpNumThreads: 2 });
    expect(runtimeThreads()).toBe(2);
    configureModels();
    expect(modelsEnvironment()).toMatchObject({ remoteHost: DEFAULT_REMOTE_HOST, allowRemote: true, localModelPath: null });
    expect(() => configureModels({ remoteHost: 'ftp://x/' })).toThrow(/http/);
    expect(() => configureModels({ remoteHost: 'not a url' })).toThrow();
  });
});
