/**
 * A fetch that gives up on a host that stops answering: no response headers within `headersMs`, or a body that
 * delivers no bytes for `idleMs`, aborts the request (an offline or stalled host then fails in seconds instead of
 * hanging a build). A slow but steady download is never cut. The caller's own signal still aborts it.
 */
export interface StallLimits {
  /** Milliseconds until the response headers arrive. */
  headersMs: number;
  /** Milliseconds without a body chunk. */
  idleMs: number;
}

export class StallError extends Error {
  constructor(readonly url: string, readonly phase: 'headers' | 'body', ms: number) {
    const t = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(0)} s`;
    super(phase === 'headers' ? `no answer from ${new URL(url).origin} within ${t}` : `the download of ${url} stalled for ${t}`);
    this.name = 'StallError';
  }
}

function checkLimits(l: StallLimits): void {
  for (const [k, v] of Object.entries(l)) if (!(Number.isFinite(v) && v > 0)) throw new Error(`stallGuardedFetch: ${k} must be a positive number of milliseconds, got ${v}`);
}

export function stallGuardedFetch(limits: StallLimits, inner: typeof fetch = fetch): typeof fetch {
  checkLimits(limits);
  return async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const controller = new AbortController();
    const outer = init.signal;
    const onOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted) onOuter();
    outer?.addEventListener('abort', onOuter, { once: true });
    let stalled: StallError | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const arm = (phase: 'headers' | 'body', ms: number) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => { stalled = new StallError(url, phase, ms); controller.abort(stalled); }, ms);
    };
    const done = () => { if (timer) clearTimeout(timer); timer = null; outer?.removeEventListener('abort', onOuter); };
    arm('headers', limits.headersMs);
    let res: Response;
    try {
      res = await inner(input, { ...init, signal: controller.signal });
    } catch (e) {
      done();
      throw stalled ?? e;
    }
    if (!res.body) { done(); return res; }
    const reader = res.body.getReader();
    arm('body', limits.idleMs);
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        try {
          const { done: end, value } = await reader.read();
          if (end) { done(); c.close(); return; }
          arm('body', limits.idleMs);
          c.enqueue(value);
        } catch (e) {
          done();
          c.error(stalled ?? e);
        }
      },
      cancel(reason) { done(); return reader.cancel(reason); },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
