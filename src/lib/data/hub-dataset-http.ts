/**
 * A Hub dataset source's HTTP (hub-dataset.ts): a token only to the Hub's origin, retries for dropped connections
 * and 5xx, errors in words; the Hub API calls (JSON, revision → commit sha, the file tree).
 */
import * as v from 'valibot';
import { readBounded } from '../hub/bounded-read.ts';
import { authorizedFetch, backoffMs, checkHubToken, encodePath, sleep, type Fetch } from '../hub/download.ts';
import { DownloadLimitError } from '../hub/download-limits.ts';
import { HubDatasetError, type HubDatasetOptions } from './hub-dataset-types.ts';
import { hostOf, isNetworkError } from '../hub/hub-reach.ts';

const SHA = /^[0-9a-f]{40}$/;

export interface Ctx {
  hub: string;
  host: string;
  f: Fetch;
  signal: AbortSignal | undefined;
}

/** The last part of a request's URL path, for messages ("0000.parquet", "main"). */
function fileOfUrl(input: RequestInfo | URL): string {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  try {
    return decodeURIComponent(new URL(href).pathname.split('/').filter(Boolean).at(-1) ?? 'the answer');
  } catch {
    return 'the answer';
  }
}

const retryableStatus = (s: number) => s >= 500 || s === 429 || s === 408;

/**
 * A fetch that retries a request whose connection dropped (before or while the body came), that got no answer, or
 * that got a 5xx/429/408, `retries` times with jittered backoff. The body is read inside the retry loop (so a cut
 * in the middle of a range is retried too) and handed on as a new Response. Other statuses are handed on as they are.
 */
export function retryingFetch(base: Fetch, retries: number, delayMs: number, signal?: AbortSignal): Fetch {
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await base(input, init);
        if (retryableStatus(res.status) && attempt < retries) {
          await res.body?.cancel().catch(() => {});
          await sleep(backoffMs(attempt, delayMs), signal);
          continue;
        }
        const method = (init?.method ?? 'GET').toUpperCase();
        // Bounded by the kind of the file named (a parquet range: 1 GB; an API page: 256 MB), download-limits.ts.
        const body = method === 'HEAD' || res.status === 204 || res.status === 304 ? null : await readBounded(res, { file: fileOfUrl(input) });
        return new Response(body as Uint8Array<ArrayBuffer> | null, { status: res.status, statusText: res.statusText, headers: res.headers });
      } catch (e) {
        if (e instanceof DownloadLimitError) throw new HubDatasetError(e.message);
        if (signal?.aborted || (e as Error).name === 'AbortError') throw e;
        if (attempt >= retries || !(isNetworkError(e) || (e instanceof Error && /terminated|socket|ECONNRESET|network/i.test(e.message)))) throw e;
        await sleep(backoffMs(attempt, delayMs), signal);
      }
    }
  };
}

export function makeCtx(opts: HubDatasetOptions): Ctx {
  checkHubToken(opts.token);
  const hub = opts.hubUrl.replace(/\/+$/, '');
  const base: Fetch = opts.fetch ?? ((i, init) => fetch(i, init));
  const retried = retryingFetch(base, opts.retries ?? 3, opts.retryDelayMs ?? 400, opts.signal);
  return { hub, host: hostOf(hub), f: authorizedFetch(retried, opts.token, hub), signal: opts.signal };
}

const privateMessage = (dataset: string) => `${dataset} is private or gated: add a token in Settings (a Hugging Face token, hf_…, that may read it)`;

/** What a failed answer means, in words; `notFound` for 404. */
export function statusError(ctx: Ctx, status: number, dataset: string, notFound: string, what: string): HubDatasetError {
  if (status === 401 || status === 403) return new HubDatasetError(privateMessage(dataset));
  if (status === 404) return new HubDatasetError(notFound);
  return new HubDatasetError(`${ctx.host} answered HTTP ${status} for ${what}${retryableStatus(status) ? ' (after several tries)' : ''}: try again later`);
}

export function fetchError(ctx: Ctx, e: unknown, what: string): Error {
  if (ctx.signal?.aborted) return ctx.signal.reason instanceof Error ? ctx.signal.reason : (e as Error);
  if (e instanceof HubDatasetError) return e;
  return new HubDatasetError(`no answer from the Hub (${ctx.host}) while reading ${what}: the connection failed or dropped (${(e as Error).message}), also when tried again. Check the connection and the Hub URL in Settings, then try again`);
}

/** GET a Hub API path as JSON; null for a 404 when `allow404`. */
export async function apiJson(ctx: Ctx, url: string, dataset: string, notFound: string, what: string, allow404 = false): Promise<{ json: unknown; link: string | null } | null> {
  let res: Response;
  try {
    res = await ctx.f(url, { headers: { Accept: 'application/json' }, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  } catch (e) {
    throw fetchError(ctx, e, what);
  }
  if (res.status === 404 && allow404) return null;
  if (!res.ok) throw statusError(ctx, res.status, dataset, notFound, what);
  try {
    return { json: await res.json(), link: res.headers.get('Link') };
  } catch {
    throw new HubDatasetError(`${ctx.host} did not answer JSON for ${what}: is the Hub URL in Settings a Hub?`);
  }
}

export const apiBase = (ctx: Ctx, dataset: string) => `${ctx.hub}/api/datasets/${encodePath(dataset)}`;

/** The commit sha a revision points at; null when the revision (or the dataset) does not exist and `allow404`. */
export async function resolveSha(ctx: Ctx, dataset: string, revision: string, allow404: boolean): Promise<string | null> {
  if (SHA.test(revision)) return revision;
  const r = await apiJson(ctx, `${apiBase(ctx, dataset)}/revision/${encodeURIComponent(revision)}`, dataset,
    `no such dataset ${dataset} (revision "${revision}") on ${ctx.host}: check the name (owner/name) and the revision`, `${dataset}@${revision}`, allow404);
  if (!r) return null;
  const sha = (r.json as { sha?: unknown } | null)?.sha;
  if (typeof sha !== 'string' || !SHA.test(sha)) throw new HubDatasetError(`${ctx.host} gave no commit sha for ${dataset}@${revision}: is the Hub URL in Settings a Hub?`);
  return sha;
}

export interface TreeEntry { path: string; size: number | null }
const TreeEntries = v.array(v.object({ type: v.string(), path: v.string(), size: v.optional(v.number()) }));

/** Every file of the repo at `sha` (the tree API, recursive, following `Link: rel="next"` pages). */
export async function listTree(ctx: Ctx, dataset: string, sha: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  let url: string | null = `${apiBase(ctx, dataset)}/tree/${sha}?recursive=true&expand=false`;
  for (let page = 0; url && page < 1000; page++) {
    const r = await apiJson(ctx, url, dataset, `no files listed for ${dataset}@${sha.slice(0, 7)} on ${ctx.host}`, `the file list of ${dataset}`);
    const parsed = v.safeParse(TreeEntries, r!.json);
    if (!parsed.success) throw new HubDatasetError(`${ctx.host} answered a file list of ${dataset} this app cannot read: is the Hub URL in Settings a Hub?`);
    for (const e of parsed.output) if (e.type === 'file') out.push({ path: e.path, size: e.size ?? null });
    const next = /<([^>]+)>;\s*rel="next"/.exec(r!.link ?? '');
    url = next ? new URL(next[1]!, ctx.hub).toString() : null;
  }
  return out;
}

