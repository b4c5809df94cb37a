/**
 * The first stage of `rag-lab build-index --urls FILE` and `--search "QUERY" --search-endpoint URL`: web pages read
 * directly (Node has no CORS), with the same reader as the Build tab's web form (`webDocuments`), into the build's
 * data; every page that could not be used is a note naming it with its reason. The URL file is read through
 * {@link DataFiles} (the CLI's node:fs side), bounded in size. A fault the user can fix (no usable page, a search
 * endpoint that failed, a bad request, a URL file that cannot be read) is a {@link BuildError} in words.
 */
import { MAX_URL_LIST_CHARS, WEB_LIMITS, WebSourceError, type WebRequest, type WebSearchRequest } from '../data/web-urls.ts';
import { webDocuments, type WebOptions } from '../ingest/web-pages.ts';
import { BuildError } from './build-kb.ts';
import { idOf, type BuildData, type DataFiles } from './collect-data.ts';

/** `--urls FILE` and `--search "QUERY" --search-endpoint URL --max N`, as `checkBuildFlags` checked them. */
export interface WebFlags {
  urlsFile: string | null;
  search: WebSearchRequest | null;
}

/** How the CLI reads the pages: directly (no proxy), progress and notices for its log. */
export type WebCollectOptions = Omit<WebOptions, 'proxyUrl'>;

/** At most this many skipped pages are listed, one a line (the count is always given). */
const MAX_LISTED = 50;

/** A default index id for a search: `web-` and its words ("heron nests" → web-heron-nests). */
export function webIndexId(query: string): string {
  return `web-${query.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`.slice(0, 64).replace(/-+$/, '');
}

/**
 * The pages of `req` as build data. `listName` names the URL list (the `--urls` file's name, for the id and the
 * messages), null when the URLs come from a search only.
 */
export async function collectWeb(req: WebRequest, listName: string | null, opts: WebCollectOptions = {}): Promise<BuildData> {
  let got;
  try {
    got = await webDocuments(req, opts);
  } catch (e) {
    if (e instanceof WebSourceError) throw new BuildError(`${listName !== null ? `--urls ${listName}` : '--search'}: ${e.message}`);
    throw e;
  }
  const notes = [...got.notes];
  if (got.skipped.length > 0) {
    notes.push(`skipped ${got.skipped.length} ${got.skipped.length === 1 ? 'page' : 'pages'}:`);
    for (const s of got.skipped.slice(0, MAX_LISTED)) notes.push(`  ${s.path}: ${s.reason}`);
    if (got.skipped.length > MAX_LISTED) notes.push(`  … and ${got.skipped.length - MAX_LISTED} more`);
  }
  const origin = got.origin.kind === 'web' ? got.origin : null;
  const tried = origin?.urls ?? got.docs.length;
  const from = [
    ...(listName !== null ? [listName] : []),
    ...(req.search ? [`the search "${req.search.query}" on ${new URL(req.search.endpoint).host}`] : []),
  ].join(' and ');
  const n = got.docs.length;
  return {
    kind: 'web',
    id: listName !== null ? idOf(listName.split(/[\\/]/).pop()!) : webIndexId(req.search!.query),
    docs: got.docs, fields: got.fields, queries: null, qrels: null, notes,
    ...(got.examples ? { examples: got.examples } : {}),
    description: req.search ? `Web search: ${req.search.query} (${n} ${n === 1 ? 'page' : 'pages'})` : `Web pages (${n} ${n === 1 ? 'page' : 'pages'})`,
    summary: `web pages from ${from} (${n} of ${tried} ${tried === 1 ? 'page' : 'pages'} read)`,
  };
}

/** The `--urls` file's text: a regular file (a FIFO is never read) of at most {@link MAX_URL_LIST_CHARS} bytes. */
export function readUrlList(fs: Pick<DataFiles, 'exists' | 'isFile' | 'size' | 'readText'>, path: string): string {
  const what = 'give a text file with one URL a line';
  if (!fs.exists(path)) throw new BuildError(`--urls ${path}: not found (${what})`);
  if (!fs.isFile(path)) throw new BuildError(`--urls ${path}: not a regular file (${what})`);
  const size = fs.size(path);
  if (size > MAX_URL_LIST_CHARS) {
    throw new BuildError(`--urls ${path}: ${size.toLocaleString('en-US')} bytes, over the ${MAX_URL_LIST_CHARS.toLocaleString('en-US')} bytes a URL list may have (a build reads at most ${WEB_LIMITS.maxPages} pages)`);
  }
  return fs.readText(path);
}

/** `--urls FILE` and / or `--search` as checked by `checkBuildFlags`: the file read, then the pages ({@link collectWeb}). */
export function collectWebFlags(fs: Pick<DataFiles, 'exists' | 'isFile' | 'size' | 'readText'>, web: WebFlags, opts: WebCollectOptions = {}): Promise<BuildData> {
  const urls = web.urlsFile !== null ? readUrlList(fs, web.urlsFile) : '';
  return collectWeb({ urls, ...(web.search ? { search: web.search } : {}) }, web.urlsFile, opts);
}
