/**
 * A RAGBench subset from the Hugging Face Hub: the dataset's parquet files read with HTTP range requests (hyparquet),
 * the dataset viewer's `/rows` API as the fallback when no parquet file can be read.
 *
 * Parquet files tried in order (Hub file protocol, `{hub}datasets/{dataset}/resolve/{revision}/{path}`):
 *   1. the repository's own file, `main` : `{subset}/{split}-00000-of-00001.parquet`
 *   2. the Hub's conversion, `refs/convert/parquet` : `{subset}/{split}/0000.parquet`
 * A HEAD gives the size; then hyparquet reads the footer and each row group's column chunks as byte ranges.
 * When neither the Hub nor the viewer answers at all, the error says so and what to do (`HubUnreachableError`).
 */
import { HUB_HOST, HUB_ORIGIN } from '../hub/endpoint.ts';
import { asyncBufferFromUrl } from 'hyparquet';
import { HubUnreachableError, hostOf, isNetworkError, onOrigin } from '../hub/hub-reach.ts';
import { loadRagbenchFromHub, RAGBENCH_DATASET, RagbenchError, type HubLoadOptions, type RagbenchParseResult } from './ragbench.ts';
import { readRagbenchParquet } from './ragbench-parquet.ts';

export const HUB_URL = HUB_HOST;

export interface RagbenchHubOptions extends Omit<HubLoadOptions, 'endpoint'> {
  /** The Hub (file protocol). Default `HUB_URL`. */
  hubUrl?: string;
  /** The dataset viewer (rows API), the fallback. Default: ragbench.ts `DATASET_VIEWER`. */
  viewerUrl?: string;
}

export interface RagbenchHubResult extends RagbenchParseResult {
  /** Where the rows came from. */
  source: 'parquet' | 'viewer';
  /** Why an earlier source was not used (e.g. "parquet: not found"), for the run's notes. */
  notes: string[];
}

/** Whether a Hub token may go with a request to `url`: only to https://huggingface.co. */
export function tokenMayGoToHub(url: string): boolean {
  return onOrigin(url, HUB_ORIGIN);
}

/** The parquet files of one subset's split, in the order they are tried. */
export function ragbenchParquetUrls(hubUrl: string, dataset: string, subset: string, split: string): string[] {
  const base = new URL(`datasets/${dataset}/resolve/`, hubUrl.endsWith('/') ? hubUrl : `${hubUrl}/`);
  const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  return [
    new URL(`main/${enc(`${subset}/${split}-00000-of-00001.parquet`)}`, base).toString(),
    new URL(`${encodeURIComponent('refs/convert/parquet')}/${enc(`${subset}/${split}/0000.parquet`)}`, base).toString(),
  ];
}

type Attempt = { ok: true; result: RagbenchParseResult } | { ok: false; unreachable: boolean; reason: string };

async function tryParquet(url: string, subset: string, opts: RagbenchHubOptions): Promise<Attempt> {
  const f = opts.fetch ?? fetch;
  // A token goes only to the Hub itself, never to a host a setting or a link named (docs/architecture.md, secrets).
  const headers: Record<string, string> = opts.token && tokenMayGoToHub(url) ? { Authorization: `Bearer ${opts.token}` } : {};
  const init: RequestInit = { headers, ...(opts.signal ? { signal: opts.signal } : {}) };
  let head: Response;
  try {
    head = await f(url, { ...init, method: 'HEAD' });
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    return { ok: false, unreachable: isNetworkError(e), reason: `no answer (${(e as Error).message})` };
  }
  if (!head.ok) return { ok: false, unreachable: false, reason: head.status === 404 ? 'not found' : `HTTP ${head.status}` };
  const size = Number(head.headers.get('Content-Length') ?? head.headers.get('X-Linked-Size') ?? NaN);
  try {
    const file = await asyncBufferFromUrl({ url, requestInit: init, fetch: f, ...(Number.isFinite(size) && size > 0 ? { byteLength: size } : {}) });
    const label = `${subset} (parquet on ${hostOf(url)})`;
    const result = await readRagbenchParquet(file, subset, { label, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    return { ok: true, result };
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    return { ok: false, unreachable: isNetworkError(e), reason: (e as Error).message };
  }
}

/**
 * Loads one subset's split: parquet with range reads first, the dataset viewer when no parquet file could be read.
 * Throws `HubUnreachableError` when no host answered, `RagbenchError` with both reasons when both sources failed.
 */
export async function loadRagbenchSubset(subset: string, opts: RagbenchHubOptions = {}): Promise<RagbenchHubResult> {
  const hubUrl = opts.hubUrl ?? HUB_URL;
  const dataset = opts.dataset ?? RAGBENCH_DATASET;
  const split = opts.split ?? 'test';
  const notes: string[] = [];
  let hubUnreachable = false;
  for (const url of ragbenchParquetUrls(hubUrl, dataset, subset, split)) {
    const a = await tryParquet(url, subset, opts);
    if (a.ok) return { ...a.result, source: 'parquet', notes };
    notes.push(`${subset}: parquet ${url.includes('refs%2Fconvert') ? '(refs/convert/parquet)' : '(main)'}: ${a.reason}`);
    if (a.unreachable) { hubUnreachable = true; break; }
  }
  const { hubUrl: _h, viewerUrl, ...viewerOpts } = opts;
  void _h;
  try {
    const r = await loadRagbenchFromHub(subset, { ...viewerOpts, ...(viewerUrl ? { endpoint: viewerUrl } : {}) });
    return { ...r, source: 'viewer', notes };
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    if (e instanceof HubUnreachableError) {
      throw hubUnreachable ? new HubUnreachableError([hostOf(hubUrl), ...e.hosts]) : e;
    }
    if (e instanceof RagbenchError) throw new RagbenchError(`${e.message} (after ${notes.join('; ')})`);
    throw e;
  }
}
