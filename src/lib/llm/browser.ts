/**
 * The in-browser model: a small instruct LLM run by transformers.js (ONNX Runtime Web in browsers and workers,
 * onnxruntime-node under Node), so the app answers with no API key and no server.
 *
 * - Model: AutoTokenizer + AutoModelForCausalLM + `generate()` (not the text-generation pipeline, so the prompt
 *   length, the generated ids and the stop reason are known exactly). Default `onnx-community/Qwen2.5-0.5B-Instruct`
 *   (Qwen2.5 0.5B Instruct exported for transformers.js); any ONNX causal LM in Hub layout works, from the model host
 *   or the local model folder set with `configureModels` (src/lib/models/env.ts).
 * - Device and dtype ('auto', the default): WebGPU where `navigator.gpu` gives an adapter, with q4f16
 *   (`onnx/model_q4f16.onnx`) when the adapter has `shader-f16`, else q4 (`model_q4.onnx`); otherwise WASM with q8
 *   (`model_quantized.onnx`: int8 kernels, the best-supported quantisation on the CPU); under Node the CPU with q8.
 *   Both can be set explicitly. Loading goes through the models layer (`modelLoad`): per-file progress and a
 *   `ModelLoadError` (kind, file, what to do) when the model cannot be loaded.
 * - Prompt: the tokenizer's chat template (`tokenizer_config.json` `chat_template`) with the generation prompt. When
 *   the template refuses a system message it is merged into the first user message; a tokenizer without a template
 *   gets a plain "System: … / User: … / Assistant:" transcript (`plainChatPrompt`). (transformers.js 4.3.2's
 *   AutoTokenizer reads the template from tokenizer_config.json only, not from a separate chat_template.jinja.)
 * - Decoding: `maxTokens` new tokens at most (default 1024), capped by the model's context (a prompt that does not
 *   fit is a 'bad-request' ProviderError). Temperature 0 is greedy; above 0 samples at that temperature; left out,
 *   the model's own generation_config.json decides. Repetition penalty, top-k/p come from generation_config.json.
 * - Stop reasons: 'stop' (an end-of-sequence token), 'length' (max tokens or context), 'aborted' (the signal).
 * - Usage: input tokens = prompt tokens (template and prefill included); output tokens = generated tokens, the
 *   end-of-sequence token included (it was computed like any other).
 * - JSON mode: by instruction (a system message) and, unless `jsonPrefill: false`, the reply is prefilled with '{'
 *   (the prompt ends with it; the returned text and the first streamed delta start with it). Without prefill,
 *   Markdown code fences around a whole reply are removed.
 * - Streaming: after each token the generated ids are decoded as a whole and the new text is delivered; a trailing
 *   incomplete UTF-8 sequence (U+FFFD from a byte-level token cut inside a character) is held back until completed,
 *   and dropped if generation ends there. Deltas concatenate to the returned text (decoding is done without
 *   `clean_up_tokenization_spaces`, which would rewrite earlier text).
 * - Abort: the signal interrupts generation after the current token (`InterruptableStoppingCriteria`). `stream()`
 *   resolves with the text so far (partial, finishReason 'aborted'), as the HTTP providers do; `chat()` rejects with
 *   an 'aborted' ProviderError, as the HTTP providers' chat() does, so callers never mistake a cut reply for a whole
 *   one. Waiting for a download or for another request on the same model can be aborted too.
 * - Loaded models are shared by every provider object in this JS context (key: model, device, dtype) and run one
 *   request at a time; `dispose()` / `disposeBrowserModels()` free them.
 */
import { BaseStreamer, InterruptableStoppingCriteria, type Tensor } from '@huggingface/transformers';
import { resolveGeneratorSpec, type GeneratorDtype } from './browser-spec.ts';
import type { Device, FileProgress } from '../models/types.ts';
import { stripCodeFence } from './anthropic.ts';
import { keyOf, loaded, loadGenerator, type BrowserModelInfo, type Generator } from './browser-loader.ts';
import { buildBrowserPrompt } from './browser-prompt.ts';
import { configError, ProviderError } from './errors.ts';
import { BROWSER_PROVIDER } from './provider-meta.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent } from './types.ts';

/** Default model: `BROWSER_PROVIDER.defaultModel` (provider-meta.ts, where the suggestions for the model field live too). */
export const BROWSER_DEFAULT_MODEL: string = BROWSER_PROVIDER.defaultModel;
export const BROWSER_LABEL: string = BROWSER_PROVIDER.label;
export const BROWSER_DEFAULT_MAX_TOKENS = 1024;
export { disposeBrowserModels, type BrowserModelInfo } from './browser-loader.ts';
export { defaultGeneratorDtype, resolveGeneratorDevice, resolveGeneratorSpec, type GeneratorDtype } from './browser-spec.ts';

export interface BrowserModelOptions {
  /** Hub id or folder under the local model path; a request's non-empty `model` overrides it. */
  model?: string | undefined;
  /** 'auto' (default): WebGPU where available, else WASM in browsers, the CPU under Node. */
  device?: Device | 'auto' | undefined;
  /** 'auto' (default): q4f16 / q4 on WebGPU (with / without shader-f16), q8 on WASM and the CPU. */
  dtype?: GeneratorDtype | 'auto' | undefined;
  /** Per-file download progress while the model loads, then one 'ready' event. */
  onProgress?: ((p: FileProgress) => void) | undefined;
  /** New tokens when a request sets no `maxTokens` (default 1024). */
  defaultMaxTokens?: number | undefined;
  /** Prefill the reply with '{' in JSON mode (default true). */
  jsonPrefill?: boolean | undefined;
}

const DECODE = { skip_special_tokens: true, clean_up_tokenization_spaces: false } as const;

/** Text ready to show: drops a trailing U+FFFD (an incomplete UTF-8 sequence that later tokens may complete). */
function settled(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0xfffd) end--;
  return text.slice(0, end);
}

/** Collects generated ids (the first `put` is the prompt) and reports the settled text after each token. */
class IdStreamer extends BaseStreamer {
  readonly ids: number[] = [];
  #prompt = true;
  constructor(private readonly onToken: (ids: readonly number[]) => void) {
    super();
  }
  override put(value: bigint[][]): void {
    if (this.#prompt) {
      this.#prompt = false;
      return;
    }
    for (const id of value[0] ?? []) this.ids.push(Number(id));
    this.onToken(this.ids);
  }
  override end(): void {}
}

function abortPromise(signal: AbortSignal | undefined): { promise: Promise<never>; cancel(): void } {
  if (!signal) return { promise: new Promise<never>(() => {}), cancel() {} };
  let onAbort: () => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(ABORTED);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => {});
  return { promise, cancel: () => signal.removeEventListener('abort', onAbort) };
}

const ABORTED = Symbol('aborted');

interface RunOutcome {
  result: ChatResult;
  /** The caller's signal stopped generation (or the wait before it). */
  aborted: boolean;
}

/** A ChatProvider running a small instruct model in this tab (or worker, or Node process). */
export class BrowserModelProvider implements ChatProvider {
  readonly id = 'browser' as const;
  readonly label = BROWSER_LABEL;
  readonly model: string;
  readonly #device: Device | 'auto';
  readonly #dtype: GeneratorDtype | 'auto';
  readonly #onProgress: ((p: FileProgress) => void) | undefined;
  readonly #defaultMaxTokens: number;
  readonly #jsonPrefill: boolean;

  constructor(opts: BrowserModelOptions = {}) {
    this.model = opts.model?.trim() || BROWSER_DEFAULT_MODEL;
    this.#device = opts.device ?? 'auto';
    this.#dtype = opts.dtype ?? 'auto';
    this.#onProgress = opts.onProgress;
    const m = opts.defaultMaxTokens ?? BROWSER_DEFAULT_MAX_TOKENS;
    if (!Number.isInteger(m) || m < 1) throw configError('browser', `defaultMaxTokens must be a positive integer, got ${String(m)}.`);
    this.#defaultMaxTokens = m;
    this.#jsonPrefill = opts.jsonPrefill ?? true;
  }

  /** Downloads (with progress) and starts the model now instead of on the first request. Rejects with a ModelLoadError. */
  async load(model?: string): Promise<BrowserModelInfo> {
    return (await this.#generator(model?.trim() || this.model)).info;
  }

  /** Frees this provider's model (shared: every provider using the same model, device and dtype loses it). */
  async dispose(): Promise<void> {
    const key = keyOf(await resolveGeneratorSpec(this.model, this.#device, this.#dtype));
    const e = loaded.get(key);
    if (!e) return;
    loaded.delete(key);
    await e.promise.then((g) => g.model.dispose(), () => undefined);
  }

  async #generator(model: string): Promise<Generator> {
    return loadGenerator(await resolveGeneratorSpec(model, this.#device, this.#dtype), this.#onProgress);
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const { result, aborted } = await this.#run(req, null);
    if (aborted) {
      throw new ProviderError(`The request to the ${BROWSER_LABEL.toLowerCase()} was cancelled.`, {
        kind: 'aborted',
        provider: 'browser',
        retryable: false,
      });
    }
    return req.json && !this.#jsonPrefill ? { ...result, text: stripCodeFence(result.text) } : result;
  }

  async stream(req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> {
    return (await this.#run(req, onDelta)).result;
  }

  async #run(req: ChatRequest, onDelta: ((e: ChatStreamEvent) => void) | null): Promise<RunOutcome> {
    if (!Array.isArray(req.messages) || req.messages.length === 0) {
      throw configError('browser', 'A chat request needs at least one message.');
    }
    const maxNew = req.maxTokens ?? this.#defaultMaxTokens;
    if (!Number.isInteger(maxNew) || maxNew < 1) throw configError('browser', `maxTokens must be a positive integer, got ${String(maxNew)}.`);
    const modelId = req.model?.trim() || this.model;
    const signal = req.signal;
    const cutShort = (text: string, usage: ChatResult['usage']): RunOutcome => ({
      aborted: true,
      result: {
        text,
        usage,
        finishReason: 'aborted',
        model: modelId,
        partial: true,
        interruption: 'signal',
        interruptionMessage: `Stopped: the request to the ${BROWSER_LABEL.toLowerCase()} was cancelled; the text generated so far is kept.`,
      },
    });
    if (signal?.aborted) return cutShort('', null);

    // Wait for the model (download, session) and for earlier requests on it; both waits end on abort.
    const abort = abortPromise(signal);
    let gen: Generator;
    try {
      gen = await Promise.race([this.#generator(modelId), abort.promise]);
    } catch (e) {
      abort.cancel();
      if (e === ABORTED) return cutShort('', null);
      throw e;
    }
    const previous = gen.queue;
    let release: () => void = () => {};
    gen.queue = new Promise<void>((r) => (release = r));
    try {
      try {
        await Promise.race([previous.catch(() => undefined), abort.promise]);
      } catch (e) {
        if (e === ABORTED) return cutShort('', null);
        throw e;
      }
      return await this.#generate(gen, req, modelId, maxNew, onDelta, cutShort);
    } finally {
      abort.cancel();
      release();
    }
  }

  async #generate(
    gen: Generator,
    req: ChatRequest,
    modelId: string,
    maxTokens: number,
    onDelta: ((e: ChatStreamEvent) => void) | null,
    cutShort: (text: string, usage: ChatResult['usage']) => RunOutcome,
  ): Promise<RunOutcome> {
    const { tokenizer, model, info } = gen;
    const prompt = buildBrowserPrompt(tokenizer, req.messages, { json: req.json, jsonPrefill: this.#jsonPrefill });
    const enc = tokenizer(prompt.text, { add_special_tokens: prompt.addSpecialTokens }) as unknown as {
      input_ids: Tensor;
      attention_mask: Tensor;
    };
    const inputTokens = enc.input_ids.dims.at(-1) ?? 0;
    if (inputTokens >= info.contextLength) {
      throw new ProviderError(
        `The prompt is ${inputTokens} tokens, but ${modelId} takes at most ${info.contextLength} (prompt and reply together). ` +
          'Use fewer or shorter context passages, or a model with a longer context.',
        { kind: 'bad-request', provider: 'browser', retryable: false },
      );
    }
    const maxNew = Math.min(maxTokens, info.contextLength - inputTokens);

    // Streaming: emit the settled text after each token; deltas always extend what was emitted.
    let emitted = '';
    let consumerFailure: { e: unknown } | null = null;
    const stopper = new InterruptableStoppingCriteria();
    const emit = (delta: string) => {
      if (!delta || !onDelta || consumerFailure) return;
      emitted += delta;
      try {
        onDelta({ delta });
      } catch (e) {
        consumerFailure = { e };
        stopper.interrupt();
      }
    };
    const decode = (ids: readonly number[]) => (ids.length === 0 ? '' : tokenizer.decode(ids as number[], DECODE));
    emit(prompt.prefill);
    const streamer = new IdStreamer((ids) => {
      if (!onDelta) return;
      const text = prompt.prefill + settled(decode(ids));
      if (text.length > emitted.length && text.startsWith(emitted)) emit(text.slice(emitted.length));
    });

    const signal = req.signal;
    const onAbort = () => stopper.interrupt();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) stopper.interrupt();
    const sampling: Record<string, unknown> = {};
    if (req.temperature !== undefined) {
      if (req.temperature > 0) Object.assign(sampling, { do_sample: true, temperature: req.temperature });
      else sampling['do_sample'] = false;
    }
    try {
      await model.generate({
        input_ids: enc.input_ids,
        attention_mask: enc.attention_mask,
        max_new_tokens: maxNew,
        ...sampling,
        streamer,
        stopping_criteria: stopper,
      } as never);
    } catch (e) {
      if (consumerFailure) throw (consumerFailure as { e: unknown }).e;
      throw new ProviderError(
        `The ${BROWSER_LABEL.toLowerCase()} (${modelId}) failed while generating: ${(e as Error)?.message ?? String(e)}. ` +
          'Reload the model (or the page); if it keeps failing, choose another dtype, device or model.',
        { kind: 'server', provider: 'browser', retryable: false },
      );
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (consumerFailure) throw (consumerFailure as { e: unknown }).e;

    const ids = streamer.ids;
    const usage = { inputTokens, outputTokens: ids.length };
    const last = ids.at(-1);
    const stopped = last !== undefined && gen.eos.has(last);
    const aborted = !stopped && signal?.aborted === true;
    // A reply cut by length or abort may end inside a character: that incomplete sequence is dropped.
    const raw = decode(ids);
    const text = prompt.prefill + (stopped ? raw : settled(raw));
    if (onDelta && text.length > emitted.length && text.startsWith(emitted)) emit(text.slice(emitted.length));
    if (aborted) return cutShort(text, usage);
    return { aborted: false, result: { text, usage, finishReason: stopped ? 'stop' : 'length', model: modelId } };
  }
}
