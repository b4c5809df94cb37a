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
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  BaseStreamer,
  InterruptableStoppingCriteria,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { IS_NODE } from '../models/env.ts';
import { resolveGeneratorSpec, type GeneratorDtype } from './browser-spec.ts';
import { loadConfig, modelLoad } from '../models/loading.ts';
import type { Device, Dtype, FileProgress, ModelSpec } from '../models/types.ts';
import { stripCodeFence } from './anthropic.ts';
import { configError, ProviderError } from './errors.ts';
import { BROWSER_PROVIDER } from './registry.ts';
import type { ChatMessage, ChatProvider, ChatRequest, ChatResult, ChatStreamEvent } from './types.ts';

/** Default model: `BROWSER_PROVIDER.defaultModel` (registry.ts, where the suggestions for the model field live too). */
export const BROWSER_DEFAULT_MODEL: string = BROWSER_PROVIDER.defaultModel;
export const BROWSER_LABEL: string = BROWSER_PROVIDER.label;
export const BROWSER_DEFAULT_MAX_TOKENS = 1024;
export const BROWSER_JSON_INSTRUCTION =
  'Respond with a single valid JSON object and nothing else: no prose before or after it, no Markdown code fences.';

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

/** What `load()` reports about a loaded model. */
export interface BrowserModelInfo {
  id: string;
  device: Device;
  dtype: GeneratorDtype;
  /** Tokens the model takes (prompt + reply); Infinity when neither config nor tokenizer says. */
  contextLength: number;
  /** Whether the tokenizer has a chat template (otherwise the plain transcript format is used). */
  chatTemplate: boolean;
}

interface Generator {
  readonly info: BrowserModelInfo;
  readonly tokenizer: PreTrainedTokenizer;
  readonly model: PreTrainedModel;
  readonly eos: ReadonlySet<number>;
  /** The tail of the request queue: requests on one model run one at a time. */
  queue: Promise<unknown>;
}

interface Entry {
  promise: Promise<Generator>;
  /** Progress callbacks of every provider waiting for this load (emptied once it settles). */
  listeners: Set<(p: FileProgress) => void>;
  settled: boolean;
}

const loaded = new Map<string, Entry>();

const keyOf = (s: { id: string; device: Device; dtype: GeneratorDtype }) => `${s.id}\n${s.device}\n${s.dtype}`;

const finiteLimit = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 && x < 1e9 ? x : Infinity);

function eosIds(...sources: unknown[]): Set<number> {
  const out = new Set<number>();
  for (const s of sources) {
    for (const v of Array.isArray(s) ? s : [s]) if (typeof v === 'number' && Number.isInteger(v)) out.add(v);
  }
  return out;
}

/** Loads (once per model, device and dtype in this JS context) the tokenizer and the ONNX session. */
function loadGenerator(spec: { id: string; device: Device; dtype: GeneratorDtype }, onProgress?: (p: FileProgress) => void): Promise<Generator> {
  const key = keyOf(spec);
  const existing = loaded.get(key);
  if (existing) {
    if (onProgress && !existing.settled) existing.listeners.add(onProgress);
    return existing.promise;
  }
  const listeners = new Set<(p: FileProgress) => void>();
  if (onProgress) listeners.add(onProgress);
  // modelLoad takes the models layer's ModelSpec; 'q4f16' is not one of its dtypes but is only handed on to
  // transformers.js, which accepts it.
  const modelSpec: ModelSpec = { id: spec.id, device: spec.device, dtype: spec.dtype as Dtype };
  const promise = modelLoad(modelSpec, { onProgress: (p) => listeners.forEach((l) => l(p)) }, async (o) => {
    const config = await loadConfig(modelSpec, o);
    const [tokenizer, model] = await Promise.all([
      AutoTokenizer.from_pretrained(spec.id, { progress_callback: o.progress_callback as never }),
      AutoModelForCausalLM.from_pretrained(spec.id, {
        config,
        progress_callback: o.progress_callback as never,
        device: o.device,
        dtype: spec.dtype,
        session_options: o.session_options as never,
      }),
    ]);
    const cfg = config as unknown as { max_position_embeddings?: unknown; eos_token_id?: unknown };
    const gen = (model as unknown as { generation_config?: { eos_token_id?: unknown } | null }).generation_config;
    return {
      info: {
        id: spec.id,
        device: spec.device,
        dtype: spec.dtype,
        contextLength: Math.min(finiteLimit(cfg.max_position_embeddings), finiteLimit(tokenizer.model_max_length)),
        chatTemplate: hasChatTemplate(tokenizer),
      },
      tokenizer,
      model,
      eos: eosIds(gen?.eos_token_id, cfg.eos_token_id, tokenizer.eos_token_id),
      queue: Promise.resolve(),
    } satisfies Generator;
  });
  const entry: Entry = { promise, listeners, settled: false };
  loaded.set(key, entry);
  // A failed load is forgotten, so the next request tries again (after the user fixed the host, the cache…).
  promise.then(
    () => {
      entry.settled = true;
      listeners.clear();
    },
    () => {
      entry.settled = true;
      listeners.clear();
      if (loaded.get(key) === entry) loaded.delete(key);
    },
  );
  return promise;
}

/** Frees every loaded in-browser model (ONNX sessions, WebGPU/WASM memory). */
export async function disposeBrowserModels(): Promise<void> {
  const all = [...loaded.values()];
  loaded.clear();
  await Promise.all(all.map((e) => e.promise.then((g) => g.model.dispose(), () => undefined)));
}

function hasChatTemplate(tokenizer: PreTrainedTokenizer): boolean {
  const t = (tokenizer as unknown as { chat_template?: unknown }).chat_template;
  return (typeof t === 'string' && t.trim() !== '') || (typeof t === 'object' && t !== null);
}

const ROLE_NAMES: Readonly<Record<ChatMessage['role'], string>> = { system: 'System', user: 'User', assistant: 'Assistant' };

/** The transcript used when the tokenizer has no chat template: "System: …\n\nUser: …\n\nAssistant:". */
export function plainChatPrompt(messages: readonly ChatMessage[]): string {
  return `${messages.map((m) => `${ROLE_NAMES[m.role]}: ${m.content}`).join('\n\n')}\n\nAssistant:`;
}

/** The messages with the JSON instruction added to the system prompt (or as a new first system message). */
export function withBrowserJsonInstruction(messages: readonly ChatMessage[]): ChatMessage[] {
  const out = messages.map((m) => ({ role: m.role, content: m.content }));
  const sys = out.find((m) => m.role === 'system');
  if (sys) sys.content = `${sys.content}\n\n${BROWSER_JSON_INSTRUCTION}`;
  else out.unshift({ role: 'system', content: BROWSER_JSON_INSTRUCTION });
  return out;
}

/** System messages merged into the first user message (for templates that reject the system role). */
function systemIntoUser(messages: readonly ChatMessage[]): ChatMessage[] {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const rest = messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content }));
  if (system.length === 0) return rest;
  const first = rest.find((m) => m.role === 'user');
  if (first) first.content = `${system.join('\n\n')}\n\n${first.content}`;
  else rest.unshift({ role: 'user', content: system.join('\n\n') });
  return rest;
}

export interface BuiltPrompt {
  /** The text given to the tokenizer (prefill included). */
  text: string;
  /** 'template': the tokenizer's chat template; 'template-no-system': the same with system merged into user; 'plain'. */
  format: 'template' | 'template-no-system' | 'plain';
  /** Whether the tokenizer adds its special tokens (only for the plain format: templates write their own). */
  addSpecialTokens: boolean;
  /** Text the reply is forced to start with ('{' in JSON mode with prefill, else ''). */
  prefill: string;
}

/** The prompt text for a request (chat template when the tokenizer has one). */
export function buildBrowserPrompt(
  tokenizer: PreTrainedTokenizer,
  messages: readonly ChatMessage[],
  o: { json?: boolean | undefined; jsonPrefill?: boolean | undefined } = {},
): BuiltPrompt {
  const msgs = o.json ? withBrowserJsonInstruction(messages) : messages.map((m) => ({ role: m.role, content: m.content }));
  const prefill = o.json && (o.jsonPrefill ?? true) ? '{' : '';
  if (hasChatTemplate(tokenizer)) {
    const render = (m: ChatMessage[]) =>
      tokenizer.apply_chat_template(m as never, { tokenize: false, add_generation_prompt: true }) as unknown as string;
    try {
      return { text: render(msgs) + prefill, format: 'template', addSpecialTokens: false, prefill };
    } catch {
      // Some templates (Gemma, Mistral v1) raise on a system message; retry without one, then give up on templates.
      if (msgs.some((m) => m.role === 'system')) {
        try {
          return { text: render(systemIntoUser(msgs)) + prefill, format: 'template-no-system', addSpecialTokens: false, prefill };
        } catch {
          /* the plain transcript below */
        }
      }
    }
  }
  return { text: plainChatPrompt(msgs) + prefill, format: 'plain', addSpecialTokens: true, prefill };
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
