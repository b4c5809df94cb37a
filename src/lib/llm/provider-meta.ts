/**
 * The provider registry: one entry per LLM provider, and every provider list of the app derives from it. The HTTP
 * providers (`PROVIDERS`: label, SDK adapter, default base URL and model suggestions, key prefix and key binding
 * data, JSON mode, endpoint presets; `PROVIDER_IDS` is its keys) and the in-browser model (`BROWSER_PROVIDER`);
 * `ALL_PROVIDER_IDS` is both, the ids a RAG config may name. registry.ts validates settings and builds providers from
 * the entries, key-binding.ts binds keys with them, and the Ask and Benchmark tabs, the CLI's `--provider` choices
 * and help, and the RAG config's schema list them from here. A new provider: its adapter file, its id in
 * `ProviderId` (types.ts; the entry is then a compile error until written) and its entry here.
 */
import { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_KEY_PREFIX, AnthropicProvider } from './anthropic.ts';
import { GROQ_DEFAULT_BASE_URL, GROQ_KEY_PREFIX, GroqProvider, groqSdkBaseUrl } from './groq.ts';
import { HF_DEFAULT_BASE_URL, HF_KEY_PREFIX, HuggingFaceProvider } from './hf.ts';
import type { HttpProviderOptions } from './http-transport.ts';
import { OPENAI_DEFAULT_BASE_URL, OpenAICompatibleProvider } from './openai-compatible.ts';
import type { ChatProvider, ProviderId, RemoteProviderId } from './types.ts';

export interface EndpointPreset {
  readonly label: string;
  readonly baseUrl: string;
  readonly needsKey: boolean;
}

export interface ProviderMeta {
  readonly id: RemoteProviderId;
  readonly label: string;
  readonly defaultBaseUrl: string;
  /** Suggestions for the model field (providers rename models; any name is accepted). */
  readonly models: readonly string[];
  /** How this provider's keys begin, when they have a fixed prefix. */
  readonly keyPrefix: string | null;
  /** Whether a request without a key can work (false for 'openai': local servers need none). */
  readonly needsKey: boolean;
  /** Where to create a key. */
  readonly keyUrl: string | null;
  /** 'native': response_format json_object; 'instructed': system-prompt instruction (+ '{' prefill). */
  readonly jsonMode: 'native' | 'instructed';
  /** What the base URL should look like. */
  readonly baseUrlHint: string;
  /** Well-known endpoints speaking this wire format. */
  readonly presets: readonly EndpointPreset[];
  /** The SDK adapter: a ChatProvider for validated settings (base URL, key, model) and transport options. */
  readonly adapter: (options: HttpProviderOptions) => ChatProvider;
  /** How this provider's keys usually begin and what to call one, to tell a key pasted for the wrong provider. */
  readonly keyShape: { readonly prefix: string; readonly noun: string };
  /** A base URL in the form the adapter calls it, to tell whether a URL is the provider's own endpoint. */
  readonly endpointForm: (baseUrl: string) => string;
  /** A free plan exists whose keys are not billed (said beside a cost estimate). */
  readonly freePlan: boolean;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

export const PROVIDERS: Readonly<Record<RemoteProviderId, ProviderMeta>> = deepFreeze({
  groq: {
    id: 'groq',
    label: 'Groq',
    defaultBaseUrl: GROQ_DEFAULT_BASE_URL,
    models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant', 'openai/gpt-oss-120b', 'openai/gpt-oss-20b'],
    keyPrefix: GROQ_KEY_PREFIX,
    needsKey: true,
    keyUrl: 'https://console.groq.com/keys',
    jsonMode: 'native',
    baseUrlHint: 'https://api.groq.com (the SDK appends /openai/v1/chat/completions)',
    presets: [],
    adapter: (o) => new GroqProvider(o),
    keyShape: { prefix: GROQ_KEY_PREFIX, noun: 'a Groq key' },
    endpointForm: groqSdkBaseUrl,
    freePlan: true,
  },
  openai: {
    id: 'openai',
    label: 'OpenAI-compatible',
    defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
    models: ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4o'],
    keyPrefix: null,
    needsKey: false,
    keyUrl: 'https://platform.openai.com/api-keys',
    jsonMode: 'native',
    baseUrlHint: 'the API root that /chat/completions is appended to, e.g. https://api.openai.com/v1 or http://localhost:11434/v1',
    presets: [
      { label: 'OpenAI', baseUrl: OPENAI_DEFAULT_BASE_URL, needsKey: true },
      { label: 'Ollama (local)', baseUrl: 'http://localhost:11434/v1', needsKey: false },
      { label: 'LM Studio (local)', baseUrl: 'http://localhost:1234/v1', needsKey: false },
      { label: 'vLLM (local)', baseUrl: 'http://localhost:8000/v1', needsKey: false },
      { label: 'llama.cpp server (local)', baseUrl: 'http://localhost:8080/v1', needsKey: false },
      { label: 'Together AI', baseUrl: 'https://api.together.xyz/v1', needsKey: true },
      { label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', needsKey: true },
    ],
    adapter: (o) => new OpenAICompatibleProvider({ ...o, id: 'openai', label: 'OpenAI-compatible server' }),
    keyShape: { prefix: 'sk-', noun: 'an OpenAI key' },
    endpointForm: (u) => u,
    freePlan: false,
  },
  anthropic: {
    id: 'anthropic',
    label: 'Anthropic',
    defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    models: ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-3-5-haiku-latest'],
    keyPrefix: ANTHROPIC_KEY_PREFIX,
    needsKey: true,
    keyUrl: 'https://console.anthropic.com/settings/keys',
    jsonMode: 'instructed',
    baseUrlHint: 'https://api.anthropic.com (/v1/messages is appended)',
    presets: [],
    adapter: (o) => new AnthropicProvider(o),
    keyShape: { prefix: ANTHROPIC_KEY_PREFIX, noun: 'an Anthropic key' },
    endpointForm: (u) => u.replace(/\/v1$/, ''),
    freePlan: false,
  },
  hf: {
    id: 'hf',
    label: 'Hugging Face',
    defaultBaseUrl: HF_DEFAULT_BASE_URL,
    models: ['meta-llama/Llama-3.1-8B-Instruct', 'Qwen/Qwen2.5-7B-Instruct', 'openai/gpt-oss-20b'],
    keyPrefix: HF_KEY_PREFIX,
    needsKey: true,
    keyUrl: 'https://huggingface.co/settings/tokens',
    jsonMode: 'native',
    baseUrlHint: 'https://router.huggingface.co/v1 (/chat/completions is appended)',
    presets: [],
    adapter: (o) => new HuggingFaceProvider(o),
    keyShape: { prefix: HF_KEY_PREFIX, noun: 'a Hugging Face token' },
    endpointForm: (u) => u,
    freePlan: false,
  },
} satisfies Record<RemoteProviderId, ProviderMeta>);

/**
 * The lists derived from the HTTP providers' entries: their ids in the registry's order (the order every picker and
 * `--provider` help lists them), every id a config may name ('browser' last), and the provider and model a new RAG
 * config and the Benchmark tab's judge start with (the first provider, its first model).
 */
export function derivedProviderLists(providers: Readonly<Record<RemoteProviderId, ProviderMeta>>) {
  const ids = Object.freeze(Object.keys(providers) as RemoteProviderId[]);
  return {
    PROVIDER_IDS: ids as readonly RemoteProviderId[],
    ALL_PROVIDER_IDS: Object.freeze([...ids, 'browser'] as const) as readonly ProviderId[],
    DEFAULT_PROVIDER: ids[0]!,
    DEFAULT_PROVIDER_MODEL: providers[ids[0]!].models[0]!,
  };
}

export const { PROVIDER_IDS, ALL_PROVIDER_IDS, DEFAULT_PROVIDER, DEFAULT_PROVIDER_MODEL } = derivedProviderLists(PROVIDERS);

/** The in-browser model (transformers.js, see browser.ts): no base URL, no key. Pure data. */
export interface BrowserProviderMeta {
  readonly id: 'browser';
  readonly label: string;
  /** Used when the model field is left empty. */
  readonly defaultModel: string;
  /** Suggestions for the model field (any transformers.js-compatible ONNX causal LM id or local folder works). */
  readonly models: readonly string[];
  readonly needsKey: false;
  /** By system instruction and a '{' prefill. */
  readonly jsonMode: 'instructed';
}

/**
 * Hub ids could not be verified from the machine this was written on: each is an ONNX export published for
 * transformers.js (onnx/model_q4f16.onnx, model_q4.onnx, model_quantized.onnx…) when this was written.
 */
export const BROWSER_PROVIDER: Readonly<BrowserProviderMeta> = deepFreeze({
  id: 'browser',
  label: 'In-browser model',
  defaultModel: 'onnx-community/Qwen2.5-0.5B-Instruct',
  models: ['onnx-community/Qwen2.5-0.5B-Instruct', 'HuggingFaceTB/SmolLM2-360M-Instruct', 'HuggingFaceTB/SmolLM2-135M-Instruct'],
  needsKey: false,
  jsonMode: 'instructed',
} satisfies BrowserProviderMeta);
