/**
 * An API run's accounting in words and as JSON: the token/cost estimate printed before it starts (with the shortest
 * duration under the rate limits and daily-limit warnings), the usage the provider reported after it, and the rate
 * limiter's summary. Pure: the CLI prints these lines and objects as they are.
 */
import { formatUsd, priceFor, type ResolvedPrice, type UsageMeter } from './cost.ts';
import { minDurationMs, presetLimits, type LimiterStats, type RateLimits } from '../../llm/rate-limit.ts';
import { isRemoteProvider } from '../../llm/key-binding.ts';
import { PROVIDERS } from '../../llm/provider-meta.ts';

/** The limits of a run: --rpm/--tpm, or a published preset's (with its daily limits and where it was published). */
export type RunLimits = RateLimits & { preset?: string; rpd?: number; tpd?: number; source?: string; asOf?: string };

/** What the accounting of an API run needs to know about its provider. */
export interface ApiAccount {
  providerId: string;
  price: ResolvedPrice;
  limits: RunLimits | null;
  limiter: { stats: LimiterStats } | null;
}

export interface EstimateView { calls: number; inputTokens: number; outputTokens: number; totalUsd: number; outputTokensPerCall?: number }

/**
 * A run's limits: the preset's for `model` (its error is passed to `presetError`), overridden by the requests and
 * tokens per minute `overrides` gives (read after the preset); null: none.
 */
export function runLimits(model: string, preset: string | undefined, presetError: (e: Error) => Error, overrides: () => { rpm?: number | null | undefined; tpm?: number | null | undefined }): RunLimits | null {
  let limits: RunLimits | null = null;
  if (preset) {
    try {
      const p = presetLimits(preset, model);
      limits = { rpm: p.rpm, tpm: p.tpm, preset: p.preset.id, source: p.preset.source, asOf: p.preset.asOf, ...(p.rpd ? { rpd: p.rpd } : {}), ...(p.tpd ? { tpd: p.tpd } : {}) };
    } catch (e) {
      throw presetError(e as Error);
    }
  }
  const { rpm, tpm } = overrides();
  if (rpm !== undefined || tpm !== undefined) limits = { ...(limits ?? {}), ...(rpm !== undefined ? { rpm } : {}), ...(tpm !== undefined ? { tpm } : {}) };
  return limits;
}

/** The price of a run: the built-in table's, with the given per-1M prices over it (then counted as known). */
export function runPrice(providerId: string, model: string, inputPerM: number | undefined, outputPerM: number | undefined): ResolvedPrice {
  const table = priceFor(providerId, model);
  return inputPerM !== undefined || outputPerM !== undefined
    ? { key: `${providerId}/${model}`, inputPerM: inputPerM ?? table.inputPerM, outputPerM: outputPerM ?? table.outputPerM, known: true }
    : table;
}

const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** The rate limits line printed when a run has limits. */
export function limitsLine(limits: RunLimits, model: string): string {
  const what = [limits.rpm ? `${int(limits.rpm)} requests` : '', limits.tpm ? `${int(limits.tpm)} tokens` : ''].filter(Boolean).join(' and ');
  return `rate limits: ${what} per minute${limits.preset ? ` (${limits.preset} for ${model}, as published at ${limits.source} on ${limits.asOf}; check your account)` : ''}`;
}

export function describeEstimate(api: ApiAccount, e: EstimateView, what: string): string[] {
  const p = api.price;
  const priced = p.known
    ? `≈ ${formatUsd(e.totalUsd)} at ${p.key} prices ($${p.inputPerM} in / $${p.outputPerM} out per 1M tokens${isRemoteProvider(api.providerId) && PROVIDERS[api.providerId].freePlan ? '; a free-plan key is not billed' : ''})`
    : `(no price known for ${p.key}: counted as $0; give --price-in/--price-out)`;
  const lines = [`estimate: ${what}: ${int(e.calls)} calls, ~${int(e.inputTokens)} input tokens (chars/4) + ~${int(e.outputTokens)} output tokens (assumed) ${priced}`];
  if (api.limits) {
    const ms = minDurationMs(e.calls, e.inputTokens + e.outputTokens, api.limits);
    if (ms > 0) lines.push(`  under the rate limits this takes at least ${(ms / 60_000).toFixed(1)} min`);
    if (api.limits.rpd && e.calls > api.limits.rpd) lines.push(`  warning: ${int(e.calls)} calls exceed the daily limit of ${int(api.limits.rpd)} requests`);
    if (api.limits.tpd && e.inputTokens + e.outputTokens > api.limits.tpd) lines.push(`  warning: ~${int(e.inputTokens + e.outputTokens)} tokens exceed the daily limit of ${int(api.limits.tpd)} tokens`);
  }
  return lines;
}

export function estimateJson(api: ApiAccount, e: EstimateView) {
  return {
    calls: e.calls, input_tokens: e.inputTokens, output_tokens: e.outputTokens,
    ...(e.outputTokensPerCall !== undefined ? { output_tokens_per_call: e.outputTokensPerCall } : {}),
    cost_usd: e.totalUsd,
    price: { key: api.price.key, input_per_m: api.price.inputPerM, output_per_m: api.price.outputPerM, known: api.price.known },
    min_minutes: api.limits ? minDurationMs(e.calls, e.inputTokens + e.outputTokens, api.limits) / 60_000 : 0,
  };
}

/** One usage line per role that made calls, then the rate limiter's waits. */
export function usageLines(api: ApiAccount, meters: [string, UsageMeter][]): string[] {
  const lines = meters.filter(([, m]) => m.summary.calls + m.failedCalls > 0).map(([name, m]) => {
    const s = m.summary;
    const missing = s.calls - s.callsWithUsage;
    return `usage (${name}): ${int(s.calls)} calls${m.failedCalls ? ` (+${m.failedCalls} failed)` : ''}, ${int(s.inputTokens)} input + ${int(s.outputTokens)} output tokens` +
      `${missing ? ` (${missing} calls reported no usage)` : ''}${api.price.known ? ` ≈ ${formatUsd(m.cost(api.price).totalUsd)}` : ''}`;
  });
  if (api.limiter) lines.push(`rate limiter: ${api.limiter.stats.waits} waits, ${(api.limiter.stats.waitedMs / 1000).toFixed(1)} s in all`);
  return lines;
}

export function usageJson(api: ApiAccount, meters: UsageMeter[]) {
  const s = { calls: 0, calls_with_usage: 0, input_tokens: 0, output_tokens: 0, failed_calls: 0 };
  for (const m of meters) {
    s.calls += m.summary.calls; s.calls_with_usage += m.summary.callsWithUsage; s.input_tokens += m.summary.inputTokens;
    s.output_tokens += m.summary.outputTokens; s.failed_calls += m.failedCalls;
  }
  // cost = (input tokens × input price + output tokens × output price) / 1M
  return { ...s, cost_usd: (s.input_tokens * api.price.inputPerM + s.output_tokens * api.price.outputPerM) / 1e6 };
}

export function limitsJson(api: ApiAccount) {
  if (!api.limits || !api.limiter) return null;
  return { rpm: api.limits.rpm ?? null, tpm: api.limits.tpm ?? null, preset: api.limits.preset ?? null, waits: api.limiter.stats.waits, waited_ms: api.limiter.stats.waitedMs };
}
