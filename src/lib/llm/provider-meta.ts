/**
 * What the app knows about each LLM provider, as pure data: the HTTP providers (`PROVIDERS`, `PROVIDER_IDS`: label,
 * default base URL, model suggestions, key prefix, JSON mode, endpoint presets) and the in-browser model
 * (`BROWSER_PROVIDER`). registry.ts builds providers from it; browser.ts reads its defaults.
 */
import { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_KEY_PREFIX } from './anthropic.ts';
import { GROQ_DEFAULT_BASE_URL, GROQ_KEY_PREFIX } from './groq.ts';
import { HF_DEFAULT_BASE_URL, HF_KEY_PREFIX } from './hf.ts';
import { OPENAI_DEFAULT_BASE_URL } from './openai-compatible.ts';
import type { ProviderId, RemoteProviderId } from './types.ts';

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
  },
} satisfies Record<RemoteProviderId, ProviderMeta>);

export const PROVIDER_IDS: readonly RemoteProviderId[] = Object.freeze(['groq', 'openai', 'anthropic', 'hf'] as const);

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

/** Every provider id createProvider accepts: the HTTP providers, then 'browser'. */
export const ALL_PROVIDER_IDS: readonly ProviderId[] = Object.freeze([...PROVIDER_IDS, 'browser'] as const);
