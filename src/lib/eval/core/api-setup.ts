/**
 * An API run's provider and accounting from plain options, for the CLI's API runs and the Benchmark tab's judge and
 * answering model: the provider (the registry checks its settings), behind a client-side rate limiter when the run
 * has limits (a published preset's for the model, overridden by requests / tokens per minute), the price its
 * estimate and usage are counted at, and the rate limits line a shell prints.
 */
import { limitsLine, runLimits, runPrice, type ApiAccount } from './api-usage.ts';
import { createProvider } from '../../llm/registry.ts';
import { wrapProvider, type LimiterOptions, type RateLimiter } from '../../llm/rate-limit.ts';
import { redactSecrets } from '../../llm/redact.ts';
import type { ChatProvider, RemoteProviderId } from '../../llm/types.ts';

/** Why an API setup failed: the provider's settings (the message never holds the key) or the limits preset. */
export class ApiSetupError extends Error {
  override readonly name = 'ApiSetupError';
  constructor(readonly kind: 'provider' | 'limits', message: string) {
    super(message);
  }
}

/** A value, or a function giving it (called when the setup reads it, so the errors of what comes before come first). */
type Lazy<T> = T | (() => T);
const read = <T>(x: Lazy<T>): T => (typeof x === 'function' ? (x as () => T)() : x);

export interface ApiSetupOptions {
  /** A provider id of the registry (PROVIDER_IDS). */
  provider: string;
  model: string;
  /** The endpoint; absent: the provider's. */
  baseUrl?: string | null | undefined;
  apiKey?: string | null | undefined;
  /** A published free-tier preset (RATE_LIMIT_PRESETS) whose limits for `model` apply. */
  limitsPreset?: string | undefined;
  /** Requests / tokens per minute over the preset's (absent or null: the preset's); read after the provider and the preset. */
  rates?: Lazy<{ rpm?: number | null | undefined; tpm?: number | null | undefined } | null>;
  /** Prices per 1M input / output tokens over the built-in table's (then counted as known); read last. */
  prices?: Lazy<{ inputPerM?: number | undefined; outputPerM?: number | undefined }>;
  /** Told of each wait of the rate limiter. */
  onWait?: LimiterOptions['onWait'];
}

/** An API run's provider (behind the rate limiter when any; sessions meter it per role) and its accounting. */
export interface ApiSetup extends ApiAccount {
  provider: ChatProvider;
  limiter: RateLimiter | null;
  /** The endpoint given (null: the provider's). */
  baseUrl: string | null;
  model: string;
  /** For redacting messages; never logged. */
  apiKey: string | undefined;
  /** The rate limits line to print before the run (null without limits). */
  limitsLine: string | null;
}

/**
 * The provider, limits and price of an API run. A provider the registry refuses and an unknown preset are
 * ApiSetupErrors; what `rates` and `prices` throw passes as it is.
 */
export function apiSetup(o: ApiSetupOptions): ApiSetup {
  const apiKey = o.apiKey ?? undefined;
  const refused = (e: unknown) => new ApiSetupError('provider', redactSecrets((e as Error).message, [apiKey]));
  let base: ChatProvider;
  try {
    base = createProvider({ provider: o.provider as RemoteProviderId, baseUrl: o.baseUrl ?? undefined, model: o.model, apiKey });
  } catch (e) {
    throw refused(e);
  }
  const limits = runLimits(o.model, o.limitsPreset, (e) => new ApiSetupError('limits', e.message), () => read(o.rates ?? null) ?? {});
  let provider = base, limiter: RateLimiter | null = null;
  if (limits) {
    try {
      const wrapped = wrapProvider(base, limits, o.onWait ? { onWait: o.onWait } : {});
      provider = wrapped;
      limiter = wrapped.limiter;
    } catch (e) {
      throw refused(e);
    }
  }
  const prices = read(o.prices ?? {});
  const price = runPrice(o.provider, o.model, prices.inputPerM, prices.outputPerM);
  return { provider, limiter, limits, price, providerId: o.provider, baseUrl: o.baseUrl ?? null, model: o.model, apiKey, limitsLine: limits ? limitsLine(limits, o.model) : null };
}
