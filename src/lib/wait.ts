/** Waiting: a cancellable sleep, and the wait a server's answer asks for (Retry-After). */

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Anything with `get(name)` (Fetch `Headers`), or a plain record of header values. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined> | null | undefined;

function header(h: HeaderSource, name: string): string | undefined {
  if (!h) return undefined;
  if (typeof (h as { get?: unknown }).get === 'function') return (h as { get(n: string): string | null }).get(name) ?? undefined;
  const rec = h as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The wait a response asks for, in ms: `retry-after-ms` (OpenAI), else `Retry-After` as delay-seconds (decimals
 * accepted) or an HTTP date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(headers: HeaderSource, nowMs: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.max(0, Math.round(Number(ms)));
  const ra = header(headers, 'retry-after')?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.max(0, Math.round(Number(ra) * 1000));
  const at = Date.parse(ra);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
