/**
 * One error type for every LLM provider failure: it says what went wrong and what to do, names the provider, and
 * carries the HTTP status and whether retrying can help. Every message passes through `redactSecrets`, and the raw
 * cause is not attached (a fetch or SDK error can hold request details), so an error can be shown, logged or sent
 * across a worker boundary without leaking a key.
 */
import { redactSecrets } from './redact.ts';
import type { ProviderId } from './types.ts';

export type ProviderErrorKind =
  /** The key is missing, wrong or revoked (401), or not allowed to do this (403). */
  | 'auth'
  /** Unknown model or wrong endpoint URL (404). */
  | 'not-found'
  /** Rate limit or quota / credits exhausted (429, 402). */
  | 'rate-limit'
  /** The provider failed or is overloaded (5xx, 529). */
  | 'server'
  /** The provider refused the request as malformed (other 4xx: context too long, bad parameter…). */
  | 'bad-request'
  /** The provider could not be reached: DNS, connection refused or reset, TLS, or (in a browser) CORS. */
  | 'network'
  /** No answer within the timeout. */
  | 'timeout'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The provider answered 2xx with something that is not a chat completion. */
  | 'bad-response'
  /** The provider configuration is invalid (caught before any request). */
  | 'config';

/** 'unknown' only for a configuration that names no valid provider. */
export type ErrorProvider = ProviderId | 'unknown';

export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  provider: ErrorProvider;
  status?: number | undefined;
  /** Defaults to true for rate-limit (429 only), server, network and timeout. */
  retryable?: boolean | undefined;
  /** The wait the provider asked for (Retry-After), in ms. */
  retryAfterMs?: number | undefined;
  /** The provider's own error text (already redacted). */
  providerMessage?: string | undefined;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  readonly provider: ErrorProvider;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly providerMessage: string | undefined;

  /** `keys` are redacted from the message (known key shapes are redacted even without them). */
  constructor(message: string, init: ProviderErrorInit, keys: readonly (string | null | undefined)[] = []) {
    super(redactSecrets(message, keys));
    this.kind = init.kind;
    this.provider = init.provider;
    this.status = init.status;
    this.retryable =
      init.retryable ??
      (init.kind === 'server' || init.kind === 'network' || init.kind === 'timeout' ||
        (init.kind === 'rate-limit' && init.status === 429));
    this.retryAfterMs = init.retryAfterMs;
    this.providerMessage = init.providerMessage === undefined ? undefined : redactSecrets(init.providerMessage, keys);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      provider: this.provider,
      status: this.status,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

export function isProviderError(e: unknown): e is ProviderError {
  return e instanceof ProviderError;
}

/** What an adapter knows when it turns a failure into a `ProviderError`. */
export interface ErrorContext {
  provider: ProviderId;
  /** Human name, e.g. 'Groq'. */
  label: string;
  /** Secrets to keep out of messages (the API key). */
  keys: readonly (string | null | undefined)[];
  /** The endpoint that was called (shown without query string or credentials). */
  url?: string | undefined;
  model?: string | undefined;
  /** e.g. 'gsk_' — mentioned when a key is rejected. */
  keyPrefix?: string | null | undefined;
  /** Extra advice for a 401/403 (e.g. the Hugging Face token permission). */
  authHint?: string | undefined;
  timeoutMs?: number | undefined;
}

/** `scheme://host[:port]/path` of a URL: no credentials, query or fragment (where keys sometimes hide). */
export function safeUrl(url: string | undefined): string {
  if (!url) return '';
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The provider's own error text from an error body (OpenAI, Anthropic, Groq, Hugging Face, FastAPI/vLLM shapes). */
export function providerMessageFromBody(body: unknown): string | undefined {
  if (body == null) return undefined;
  if (typeof body === 'string') {
    const t = body.trim();
    if (!t) return undefined;
    try {
      return providerMessageFromBody(JSON.parse(t)) ?? clip(t);
    } catch {
      if (/^<(!doctype|html)/i.test(t)) return '(an HTML page instead of an API answer)';
      return clip(t.replace(/\s+/g, ' '));
    }
  }
  if (typeof body !== 'object') return clip(String(body));
  const o = body as Record<string, unknown>;
  const err = o['error'];
  if (typeof err === 'string' && err) return clip(err);
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    if (typeof e['message'] === 'string' && e['message']) return clip(e['message']);
    if (typeof e['type'] === 'string') return clip(e['type']);
  }
  if (typeof o['message'] === 'string' && o['message']) return clip(o['message']);
  const detail = o['detail'];
  if (typeof detail === 'string' && detail) return clip(detail);
  if (Array.isArray(detail) && detail.length > 0) {
    return clip(detail.map((d) => (d && typeof d === 'object' && 'msg' in d ? String((d as { msg: unknown }).msg) : String(d))).join('; '));
  }
  return undefined;
}

function fmtWait(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`;
}

/** The error for an HTTP error status (non-2xx) from a provider. */
export function errorFromStatus(
  ctx: ErrorContext,
  status: number,
  body: unknown,
  retryAfterMs?: number,
): ProviderError {
  const pm = providerMessageFromBody(body);
  const said = pm ? `: ${pm}` : '';
  const at = ctx.url ? ` at ${safeUrl(ctx.url)}` : '';
  const model = ctx.model ? ` "${ctx.model}"` : '';
  const init = { provider: ctx.provider, status, retryAfterMs, providerMessage: pm };
  const L = ctx.label;
  let kind: ProviderErrorKind;
  let msg: string;
  if (status === 401) {
    kind = 'auth';
    const prefix = ctx.keyPrefix ? ` (${L} keys start with "${ctx.keyPrefix}")` : '';
    msg = `${L} rejected the API key (HTTP 401${said}). Check that the key is complete, belongs to ${L}${prefix} and has not been revoked, then enter it again.${ctx.authHint ? ` ${ctx.authHint}` : ''}`;
  } else if (status === 403) {
    kind = 'auth';
    msg = `${L} refused access (HTTP 403${said}). The key was read but is not allowed to use model${model} here: check the key's permissions, your account or organisation access to the model, and any region or licence restrictions.${ctx.authHint ? ` ${ctx.authHint}` : ''}`;
  } else if (status === 404) {
    kind = 'not-found';
    msg = `${L} does not know model${model} or the endpoint does not exist (HTTP 404${at}${said}). Check the model name (spelling, organisation prefix) and the base URL.`;
  } else if (status === 429 || status === 402) {
    kind = 'rate-limit';
    const wait = retryAfterMs !== undefined ? ` ${L} asks to wait ${fmtWait(retryAfterMs)}.` : '';
    msg =
      status === 402
        ? `${L} says the account has no credits or quota left (HTTP 402${said}). Check billing and usage limits on the provider's site, or use another provider.`
        : `${L} rate limit or quota reached (HTTP 429${said}).${wait} Wait and try again, send fewer or shorter requests, use another model, or check your plan's limits and billing.`;
  } else if (status === 408) {
    kind = 'timeout';
    msg = `${L} timed out handling the request (HTTP 408${said}). Try again, or shorten the prompt.`;
  } else if (status >= 500) {
    kind = 'server';
    const what = status === 529 || status === 503 ? 'is overloaded or unavailable' : 'had an internal error';
    msg = `${L} ${what} (HTTP ${status}${said}). This is on the provider's side: try again in a moment, or choose another model or provider.`;
  } else if (status === 413) {
    kind = 'bad-request';
    msg = `${L} says the request is too large (HTTP 413${said}). Use fewer or shorter context passages, or a model with a longer context.`;
  } else if (status >= 400) {
    kind = 'bad-request';
    msg = `${L} rejected the request (HTTP ${status}${said}). Check the model${model} supports the options used (JSON mode, max tokens, temperature) and that the prompt fits its context window.`;
  } else {
    kind = 'bad-response';
    msg = `${L} answered with an unexpected HTTP status ${status}${at}${said}.`;
  }
  return new ProviderError(msg, { ...init, kind, retryable: status === 409 ? true : undefined }, ctx.keys);
}

const BROWSER_FETCH_FAILURES = /^(Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed|Network request failed)$/i;

function inBrowser(): boolean {
  const g = globalThis as Record<string, unknown>;
  return typeof g['document'] !== 'undefined' || typeof g['WorkerGlobalScope'] !== 'undefined';
}

/** A short description of a thrown fetch/socket error, e.g. 'connection refused (ECONNREFUSED)'. */
export function describeNetworkError(err: unknown): string {
  const e = err as { message?: unknown; cause?: unknown; code?: unknown } | null | undefined;
  const cause = (e?.cause ?? null) as { code?: unknown; message?: unknown } | null;
  const code = typeof cause?.code === 'string' ? cause.code : typeof e?.code === 'string' ? e.code : undefined;
  const named: Record<string, string> = {
    ECONNREFUSED: 'connection refused — nothing is listening there',
    ENOTFOUND: 'host name not found',
    EAI_AGAIN: 'DNS lookup failed',
    ECONNRESET: 'connection reset',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_SOCKET: 'connection closed by the other side',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  };
  if (code && named[code]) return `${named[code]} (${code})`;
  const msg = typeof e?.message === 'string' ? e.message : String(err);
  const causeMsg = typeof cause?.message === 'string' && cause.message !== msg ? `: ${cause.message}` : '';
  return clip(`${msg}${causeMsg}${code ? ` (${code})` : ''}`, 200);
}

/** The error for a request that never got an HTTP answer. */
export function errorFromNetwork(ctx: ErrorContext, err: unknown): ProviderError {
  const detail = describeNetworkError(err);
  const where = ctx.url ? ` at ${safeUrl(ctx.url)}` : '';
  const message = typeof (err as { message?: unknown })?.message === 'string' ? (err as { message: string }).message : '';
  const cors =
    inBrowser() || BROWSER_FETCH_FAILURES.test(message)
      ? ' In a browser this is also how a CORS refusal shows: the server must allow requests from this page' +
        ' (Ollama: set OLLAMA_ORIGINS; LM Studio: enable CORS; a plain HTTP URL is also blocked from an HTTPS page).'
      : '';
  return new ProviderError(
    `Could not reach ${ctx.label}${where} (${detail}). Check the base URL and your network connection; if it is a local server, check that it is running.${cors}`,
    { kind: 'network', provider: ctx.provider },
    ctx.keys,
  );
}

export function timeoutError(ctx: ErrorContext, phase = 'answer'): ProviderError {
  const s = ctx.timeoutMs !== undefined ? ` within ${Math.round(ctx.timeoutMs / 100) / 10} s` : '';
  return new ProviderError(
    `${ctx.label} did not ${phase}${s}. Try again, choose a smaller or faster model, shorten the prompt, or raise the timeout.`,
    { kind: 'timeout', provider: ctx.provider },
    ctx.keys,
  );
}

export function abortedError(ctx: ErrorContext): ProviderError {
  return new ProviderError(`The request to ${ctx.label} was cancelled.`, {
    kind: 'aborted',
    provider: ctx.provider,
    retryable: false,
  }, ctx.keys);
}

export function badResponseError(ctx: ErrorContext, what: string): ProviderError {
  return new ProviderError(
    `${ctx.label} sent an answer that is not a chat completion (${what}). Check that the base URL points at an ${ctx.provider === 'anthropic' ? 'Anthropic Messages' : 'OpenAI-compatible chat completions'} API.`,
    { kind: 'bad-response', provider: ctx.provider, retryable: false },
    ctx.keys,
  );
}

/** The words for a stream the server closed (or broke) before its end marker; `detail` says how, in brackets. */
export function streamCutMessage(detail: string): string {
  return `The server closed the stream before the answer was complete (${detail}). The text received so far is kept; ask again for the rest.`;
}

/** A stream that brought no answer, only events that could not be read (not JSON objects): retrying will not help. */
export function malformedStreamError(ctx: ErrorContext, malformed: number, events: number): ProviderError {
  return badResponseError(ctx, `${malformed} of the ${events} stream events it sent could not be read (each should be a JSON object) and no answer text arrived`);
}

export function configError(provider: ErrorProvider, message: string, keys: readonly (string | null | undefined)[] = []): ProviderError {
  return new ProviderError(message, { kind: 'config', provider, retryable: false }, keys);
}
