/**
 * What loading a model downloads: the files transformers.js fetches for a model at a dtype, sized from the Hub's
 * tree API (`GET <host>api/models/<id>/tree/<revision>?recursive=true`, paged by `Link: <…>; rel="next"`), with the
 * files already in the browser cache counted apart. Pure fetch: runs in the models worker, Node and tests.
 */
import * as v from 'valibot';
import type { Dtype, ModelSpec } from './types.ts';
import { withSlash } from './env.ts';
import { readBoundedJson } from '../hub/bounded-read.ts';
import { DownloadLimitError } from '../hub/download-limits.ts';

/** The revision transformers.js downloads from (its default). */
export const MODEL_REVISION = 'main';

/** A dtype of a download: the models layer's, or q4f16 (the in-browser LLM's 4-bit weights on WebGPU with fp16). */
export type DownloadDtype = Dtype | 'q4f16';

/** transformers.js file suffix per dtype (`onnx/model<suffix>.onnx`). */
const ONNX_SUFFIX: Readonly<Record<DownloadDtype, string>> = { fp32: '', fp16: '_fp16', q8: '_quantized', uint8: '_uint8', q4: '_q4', q4f16: '_q4f16' };
/** The ONNX graph transformers.js loads for a dtype: `onnx/model<suffix>.onnx`. */
export function onnxGraphFile(dtype: DownloadDtype): string {
  return `onnx/model${ONNX_SUFFIX[dtype]}.onnx`;
}

const BASE_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
const MAX_PAGES = 20;

const TreeEntry = v.object({
  type: v.string(), path: v.string(), size: v.optional(v.pipe(v.number(), v.minValue(0))),
  // The git blob id; an LFS file's content SHA-256 is `lfs.oid`. Either changes when the file's bytes do.
  oid: v.optional(v.string()), lfs: v.optional(v.object({ oid: v.string() })),
});
const Tree = v.array(TreeEntry);

export interface ModelDownload {
  id: string;
  /** Bytes of the needed files that are not cached yet. */
  bytes: number;
  /** Bytes of the needed files already in the browser cache. */
  cachedBytes: number;
  /** Needed files the host does not list (loading will fail on the first one). */
  missing: string[];
}

/** The files a load fetches: config, tokenizer, and the ONNX graph for the dtype with any external-data parts listed. */
export function neededFiles(dtype: DownloadDtype, listed: readonly string[]): string[] {
  const graph = onnxGraphFile(dtype);
  const external = listed.filter((p) => p === `${graph}_data` || p.startsWith(`${graph}_data_`)).sort();
  return [...BASE_FILES, graph, ...external];
}

/** The URL transformers.js downloads (and caches) a file from. */
export function fileUrl(remoteHost: string, id: string, file: string): string {
  const host = withSlash(remoteHost);
  return `${host}${id}/resolve/${MODEL_REVISION}/${file}`;
}

function nextLink(header: string | null): string | null {
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1]!;
  }
  return null;
}

/** A listed file: its size and what identifies its content (LFS SHA-256, else git blob id; '' when not listed). */
export interface ListedFile { size: number; contentId: string }

/** Every file the host lists for a model, with sizes. */
export async function listModelFiles(remoteHost: string, id: string, fetchFn: typeof fetch = fetch, signal?: AbortSignal): Promise<Map<string, number>> {
  const files = await listModelTree(remoteHost, id, fetchFn, signal);
  return new Map([...files].map(([p, f]) => [p, f.size]));
}

/** Every file the host lists for a model, with sizes and content ids. */
export async function listModelTree(remoteHost: string, id: string, fetchFn: typeof fetch = fetch, signal?: AbortSignal): Promise<Map<string, ListedFile>> {
  const host = withSlash(remoteHost);
  let url: string | null = `${host}api/models/${id}/tree/${MODEL_REVISION}?recursive=true`;
  const files = new Map<string, ListedFile>();
  for (let page = 0; url && page < MAX_PAGES; page++) {
    let res: Response;
    try {
      res = await fetchFn(url, { headers: { Accept: 'application/json' }, ...(signal ? { signal } : {}) });
    } catch (e) {
      if (signal?.aborted) throw e;
      // A browser says only "Failed to fetch" here: name the likely causes instead of echoing it.
      throw new Error(`the model host ${new URL(host).origin} could not be reached (offline, blocked, or it refuses cross-origin requests)`);
    }
    if (res.status === 404) throw new Error(`model "${id}" is not listed on the model host (HTTP 404)`);
    if (!res.ok) throw new Error(`the model host did not list the files of "${id}" (HTTP ${res.status})`);
    let json: unknown;
    try {
      json = await readBoundedJson(res, { file: `the file list of "${id}"`, kind: 'viewer-page' });
    } catch (e) {
      if (e instanceof DownloadLimitError) throw e;
      throw new Error(`the model host answered the file list of "${id}" with something that is not JSON`);
    }
    const r = v.safeParse(Tree, json);
    if (!r.success) throw new Error(`the model host's file list for "${id}" is malformed: ${r.issues[0]?.message ?? 'unknown error'}`);
    for (const e of r.output) if (e.type === 'file') files.set(e.path, { size: e.size ?? 0, contentId: e.lfs?.oid ?? e.oid ?? '' });
    const next = nextLink(res.headers.get('link'));
    url = next ? new URL(next, url).href : null;
  }
  return files;
}

/** Sizes what loading `spec` downloads; `isCached(url)` says whether a file is already in the browser cache. */
export async function planModelDownload(remoteHost: string, spec: Pick<ModelSpec, 'id'> & { dtype: DownloadDtype; device?: ModelSpec['device'] }, opts: { fetch?: typeof fetch; isCached?: (url: string) => Promise<boolean>; signal?: AbortSignal } = {}): Promise<ModelDownload> {
  const listed = await listModelFiles(remoteHost, spec.id, opts.fetch ?? fetch, opts.signal);
  const out: ModelDownload = { id: spec.id, bytes: 0, cachedBytes: 0, missing: [] };
  for (const file of neededFiles(spec.dtype, [...listed.keys()])) {
    const size = listed.get(file);
    if (size === undefined) { out.missing.push(file); continue; }
    if (opts.isCached && (await opts.isCached(fileUrl(remoteHost, spec.id, file)))) out.cachedBytes += size;
    else out.bytes += size;
  }
  return out;
}

/**
 * What identifies the bytes loading `spec` downloads: one "path contentId" line per needed file, from the host's tree
 * (one listing; a needed file the host does not list is an error). A cache key built from it changes when the host's
 * model files do.
 */
export async function modelFileIds(remoteHost: string, spec: { id: string; dtype: DownloadDtype }, opts: { fetch?: typeof fetch; signal?: AbortSignal } = {}): Promise<string[]> {
  const listed = await listModelTree(remoteHost, spec.id, opts.fetch ?? fetch, opts.signal);
  const files = neededFiles(spec.dtype, [...listed.keys()]);
  const missing = files.filter((f) => !listed.has(f));
  if (missing.length) throw new Error(`the model host lists no ${missing.join(', ')} for "${spec.id}"`);
  return files.map((f) => `${f} ${listed.get(f)!.contentId}`);
}
