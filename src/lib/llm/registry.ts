/**
 * The remote LLM providers the app knows, and `createProvider`, which validates a user's settings (valibot) and
 * returns a ready `ChatProvider`. The in-browser model ('browser') is not an HTTP provider: it is not in `PROVIDERS`
 * / `PROVIDER_IDS` (which list the HTTP providers), it is described by `BROWSER_PROVIDER`, and `createProvider`
 * builds it from `{ provider: 'browser', model }` (no base URL or key). Its code (transformers.js) is imported only
 * when it is first used, so importing this module does not load transformers.js. The providers' registry (labels,
 * adapters, defaults, suggestions, key data) is provider-meta.ts, re-exported here; nothing here names a provider.
 *
 * Keys stay private: the provider objects keep them in private fields, `toJSON()` / `config` give the public view
 * (`hasApiKey` instead of the key), and every validation message is checked with `redactSecrets`.
 */
import * as v from 'valibot';
import { configError, type ErrorProvider } from './errors.ts';
import { normalizeBaseUrl, type FetchLike } from './http-transport.ts';
import { redactSecrets } from './redact.ts';
import type { RetryOptions } from './retry.ts';
import type { BrowserModelInfo, BrowserModelOptions, BrowserModelProvider } from './browser.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent, ProviderId, RemoteProviderId } from './types.ts';
import { BROWSER_PROVIDER, PROVIDER_IDS, PROVIDERS } from './provider-meta.ts';

export {
  ALL_PROVIDER_IDS,
  BROWSER_PROVIDER,
  DEFAULT_PROVIDER,
  DEFAULT_PROVIDER_MODEL,
  PROVIDER_IDS,
  PROVIDERS,
  type BrowserProviderMeta,
  type EndpointPreset,
  type ProviderMeta,
} from './provider-meta.ts';

export interface ProviderConfig {
  provider: RemoteProviderId;
  /** Omitted or empty: the provider's default. */
  baseUrl?: string | undefined;
  model: string;
  apiKey?: string | undefined;
}

/** A config as it may be shown, logged or saved: the key is replaced by whether there is one. */
export interface PublicProviderConfig {
  provider: ProviderId;
  /** '' for the in-browser model. */
  baseUrl: string;
  model: string;
  hasApiKey: boolean;
}

export interface CreateProviderOptions {
  fetch?: FetchLike | undefined;
  /** See `HttpProviderOptions.timeoutMs` (default 120 s). */
  timeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  headers?: Record<string, string> | undefined;
  /** The in-browser model's device, dtype, load progress, default max tokens, JSON prefill (see browser.ts). */
  browser?: Omit<BrowserModelOptions, 'model'> | undefined;
}

interface ConfiguredBase extends ChatProvider {
  readonly label: string;
  readonly model: string;
  readonly config: PublicProviderConfig;
  toJSON(): PublicProviderConfig;
}

/** An HTTP provider bound to a configuration: `model` is used when a request's model is empty. */
export interface ConfiguredRemoteProvider extends ConfiguredBase {
  readonly id: RemoteProviderId;
}

/** The in-browser model bound to a configuration; transformers.js is imported and the model loaded on first use. */
export interface ConfiguredBrowserProvider extends ConfiguredBase {
  readonly id: 'browser';
  /** Downloads (with progress) and starts the model now; rejects with a ModelLoadError. */
  load(): Promise<BrowserModelInfo>;
  /** Frees the model (shared by every in-browser provider using the same model, device and dtype). */
  dispose(): Promise<void>;
}

/** What createProvider returns; `id` tells which. */
export type ConfiguredProvider = ConfiguredRemoteProvider | ConfiguredBrowserProvider;

/** A validated in-browser model config. */
export interface BrowserProviderConfig {
  provider: 'browser';
  model: string;
}

const blankToUndefined = (x: unknown) => (typeof x === 'string' && x.trim() === '' ? undefined : x);

const ConfigSchema = v.object(
  {
    provider: v.picklist(PROVIDER_IDS as RemoteProviderId[], `Choose a provider: ${PROVIDER_IDS.join(', ')}.`),
    baseUrl: v.optional(
      v.pipe(
        v.string('The base URL must be text.'),
        v.trim(),
        v.regex(/^https?:\/\/\S+$/i, 'The base URL must start with http:// or https:// and contain no spaces.'),
      ),
    ),
    model: v.pipe(
      v.string('Enter a model name.'),
      v.trim(),
      v.nonEmpty('Enter a model name.'),
      v.maxLength(200, 'The model name is too long (over 200 characters).'),
      v.regex(/^\S+$/, 'A model name contains no spaces.'),
    ),
    apiKey: v.optional(
      v.pipe(
        v.string('The API key must be text.'),
        v.trim(),
        v.regex(/^[\x21-\x7e]+$/, 'The API key contains spaces or characters that cannot be sent; copy it again from the provider.'),
      ),
    ),
  },
  'The provider settings must be an object with provider, model and optionally baseUrl and apiKey.',
);

/** Whose key this looks like ("a Groq key"), by the registry's key shapes, the longest matching prefix first. */
function keyLooksLike(key: string): string | null {
  const shapes = PROVIDER_IDS.map((id) => PROVIDERS[id].keyShape).sort((a, b) => b.prefix.length - a.prefix.length);
  return shapes.find((k) => key.startsWith(k.prefix))?.noun ?? null;
}

/**
 * Validates user-entered provider settings: known provider, a model name, an http(s) base URL without credentials or
 * query, a key when the provider needs one, and (for the provider's own endpoint) a key with the right prefix.
 * Throws a 'config' ProviderError listing every problem; the key never appears in it.
 */
export function parseProviderConfig(input: unknown): ProviderConfig {
  const raw: Record<string, unknown> | null =
    input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  const key = typeof raw?.['apiKey'] === 'string' ? raw['apiKey'] : undefined;
  const cleaned = raw ? { ...raw, baseUrl: blankToUndefined(raw['baseUrl']), apiKey: blankToUndefined(raw['apiKey']) } : input;
  const providerOf = (): ErrorProvider => {
    const p = raw?.['provider'];
    return typeof p === 'string' && (PROVIDER_IDS as readonly string[]).includes(p) ? (p as RemoteProviderId) : 'unknown';
  };
  const fail = (problems: string[]): never => {
    throw configError(providerOf(), redactSecrets(`Invalid provider settings: ${problems.join(' ')}`, [key]), [key]);
  };

  const parsed = v.safeParse(ConfigSchema, cleaned, { abortPipeEarly: true });
  if (!parsed.success) {
    fail(
      parsed.issues.map((i) => {
        const path = i.path?.map((p) => String(p.key)).join('.');
        return path ? `${path}: ${i.message}` : i.message;
      }),
    );
  }
  const cfg = (parsed as v.SafeParseResult<typeof ConfigSchema> & { success: true }).output;
  const meta = PROVIDERS[cfg.provider];
  const problems: string[] = [];
  let baseUrl: string | undefined;
  if (cfg.baseUrl !== undefined) {
    try {
      baseUrl = normalizeBaseUrl(cfg.provider, meta.label, cfg.baseUrl, [key]);
    } catch (e) {
      problems.push(`baseUrl: ${(e as Error).message}`);
    }
  }
  const official = baseUrl === undefined || sameEndpoint(cfg.provider, baseUrl, meta.defaultBaseUrl);
  if (!cfg.apiKey) {
    if (meta.needsKey) {
      problems.push(`apiKey: ${meta.label} needs an API key${meta.keyPrefix ? ` (it starts with "${meta.keyPrefix}")` : ''}${meta.keyUrl ? `; create one at ${meta.keyUrl}` : ''}.`);
    } else if (official) {
      problems.push(`apiKey: ${meta.label === 'OpenAI-compatible' ? 'OpenAI' : meta.label} at ${meta.defaultBaseUrl} needs an API key; for a local server (Ollama, LM Studio, vLLM) enter its base URL instead.`);
    }
  } else if (meta.keyPrefix && official && !cfg.apiKey.startsWith(meta.keyPrefix)) {
    const looks = keyLooksLike(cfg.apiKey);
    problems.push(
      `apiKey: ${meta.label} keys start with "${meta.keyPrefix}"${looks ? `, but this looks like ${looks}` : ', and this one does not'}; check you pasted the right key.`,
    );
  }
  if (problems.length > 0) fail(problems);
  return { provider: cfg.provider, baseUrl, model: cfg.model, apiKey: cfg.apiKey };
}

function sameEndpoint(provider: RemoteProviderId, a: string, b: string): boolean {
  const norm = (u: string) => PROVIDERS[provider].endpointForm(u).toLowerCase();
  return norm(a) === norm(b);
}

const BrowserConfigSchema = v.object(
  {
    provider: v.literal('browser'),
    model: v.optional(
      v.pipe(
        v.string('Enter a model name.'),
        v.trim(),
        v.maxLength(200, 'The model name is too long (over 200 characters).'),
        v.regex(/^\S*$/, 'A model name contains no spaces.'),
      ),
    ),
  },
  'The provider settings must be an object with provider and model.',
);

/**
 * Validates an in-browser model config: `{ provider: 'browser', model }`, an empty or missing model meaning
 * `BROWSER_PROVIDER.defaultModel`. `baseUrl` and `apiKey` are ignored (the model host is a models-layer setting,
 * `configureModels`). Throws a 'config' ProviderError.
 */
export function parseBrowserConfig(input: unknown): BrowserProviderConfig {
  const parsed = v.safeParse(BrowserConfigSchema, input, { abortPipeEarly: true });
  if (!parsed.success) {
    const problems = parsed.issues.map((i) => {
      const path = i.path?.map((p) => String(p.key)).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    });
    throw configError('browser', `Invalid provider settings: ${problems.join(' ')}`);
  }
  return { provider: 'browser', model: parsed.output.model || BROWSER_PROVIDER.defaultModel };
}

function isBrowserConfig(input: unknown): boolean {
  return typeof input === 'object' && input !== null && (input as { provider?: unknown }).provider === 'browser';
}

function createBrowserProvider(config: unknown, options: CreateProviderOptions): ConfiguredBrowserProvider {
  const cfg = parseBrowserConfig(config);
  const model = cfg.model;
  const pub: PublicProviderConfig = Object.freeze({ provider: 'browser', baseUrl: '', model, hasApiKey: false });
  const browserOptions = { ...options.browser, model };
  let adapter: Promise<BrowserModelProvider> | undefined;
  // Imported on first use: keeps transformers.js out of bundles that only read the provider lists.
  const get = (): Promise<BrowserModelProvider> =>
    (adapter ??= import('./browser.ts').then((m) => new m.BrowserModelProvider(browserOptions)).catch((e: unknown) => {
      adapter = undefined;
      throw e;
    }));
  const withModel = (req: ChatRequest): ChatRequest => (req.model?.trim() ? req : { ...req, model });
  return Object.freeze({
    id: 'browser' as const,
    label: BROWSER_PROVIDER.label,
    model,
    config: pub,
    chat: async (req: ChatRequest): Promise<ChatResult> => (await get()).chat(withModel(req)),
    stream: async (req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> => (await get()).stream(withModel(req), onDelta),
    load: async (): Promise<BrowserModelInfo> => (await get()).load(),
    dispose: async (): Promise<void> => (await get()).dispose(),
    toJSON: () => pub,
  });
}

/** The config without its key (safe to show, log or save). */
export function publicConfig(config: ProviderConfig): PublicProviderConfig {
  const meta = PROVIDERS[config.provider];
  return {
    provider: config.provider,
    baseUrl: config.baseUrl ?? meta.defaultBaseUrl,
    model: config.model,
    hasApiKey: typeof config.apiKey === 'string' && config.apiKey.trim().length > 0,
  };
}

/**
 * Validates `config` (see `parseProviderConfig`, or `parseBrowserConfig` for `provider: 'browser'`) and returns the
 * provider. `options` carry what a user does not configure: fetch (tests), timeout, retry policy (tests inject
 * `sleep`), extra headers; for the in-browser model, `options.browser` (device, dtype, progress…).
 */
export function createProvider(
  config: { provider: 'browser'; model?: string | undefined; baseUrl?: string | null | undefined; apiKey?: string | null | undefined },
  options?: CreateProviderOptions,
): ConfiguredBrowserProvider;
export function createProvider(
  config: { provider: RemoteProviderId; model: string; baseUrl?: string | undefined; apiKey?: string | undefined },
  options?: CreateProviderOptions,
): ConfiguredRemoteProvider;
export function createProvider(config: unknown, options?: CreateProviderOptions): ConfiguredProvider;
export function createProvider(config: unknown, options: CreateProviderOptions = {}): ConfiguredProvider {
  if (isBrowserConfig(config)) return createBrowserProvider(config, options);
  const cfg = parseProviderConfig(config);
  const common = {
    baseUrl: cfg.baseUrl,
    apiKey: cfg.apiKey,
    model: cfg.model,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    retry: options.retry,
    headers: options.headers,
  };
  const adapter: ChatProvider = PROVIDERS[cfg.provider].adapter(common);
  const pub = Object.freeze(publicConfig(cfg));
  const model = cfg.model;
  const withModel = (req: ChatRequest): ChatRequest => (req.model?.trim() ? req : { ...req, model });
  return Object.freeze({
    id: cfg.provider,
    label: PROVIDERS[cfg.provider].label,
    model,
    config: pub,
    chat: (req: ChatRequest): Promise<ChatResult> => adapter.chat(withModel(req)),
    stream: (req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> => adapter.stream(withModel(req), onDelta),
    toJSON: () => pub,
  });
}
