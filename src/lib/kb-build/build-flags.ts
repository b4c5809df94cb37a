/**
 * The build request of `rag-lab build-index` from its flags, checked before any work in the order the command
 * gives its errors (`--data`/`--arxiv`/`--urls`/`--search`, `--chunk`, `--dtype`, `--int8`/`--hnsw`, `--id`, `--push`/`--token-env`);
 * a bad flag is a {@link BuildError} naming it. The token itself is read by the CLI (from the environment).
 */
import { ARXIV_MAX_RESULTS, type ArxivRequest } from '../data/arxiv.ts';
import { searchEndpointProblem, WEB_LIMITS } from '../data/web-urls.ts';
import { redactUrlForDisplay } from '../util/redact.ts';
import type { WebFlags } from './collect-web.ts';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../retrieval/chunk.ts';
import { BuildError } from './build-kb.ts';
import { DTYPES, isDtype } from '../models/types.ts';

export interface BuildFlags {
  data?: string | undefined; out?: string | undefined; id?: string | undefined; chunk?: string | undefined; 'no-chunk': boolean;
  dtype?: string | undefined; embedder?: string | undefined; int8: boolean; hnsw: boolean; push?: string | undefined; 'token-env'?: string | undefined;
  arxiv?: string | undefined; max?: string | undefined; 'arxiv-sort'?: string | undefined; 'arxiv-endpoint'?: string | undefined;
  urls?: string | undefined; search?: string | undefined; 'search-endpoint'?: string | undefined;
}

/** Result URLs a search asks for when `--max` does not say. */
export const DEFAULT_SEARCH_MAX = 20;

/** build-index's help for the web-page flags (their limits are WEB_LIMITS'). */
export const WEB_FLAGS_HELP = `  --urls FILE          index web pages: FILE lists their http(s) URLs, one a line (# comments); each page is a
                       document (HTML as its visible text, titled by its <title>; plain text too) whose hits show
                       its URL; at most ${WEB_LIMITS.maxPages} pages, ${WEB_LIMITS.maxPageBytes / 1e6} MB and ${WEB_LIMITS.pageTimeoutMs / 1000} s a page, ${WEB_LIMITS.maxRedirects} redirects to the same host;
                       a page that fails is listed with its reason and the others are built
  --search QUERY       also index the pages a search finds: --max N result URLs, 1–${WEB_LIMITS.maxPages} (default ${DEFAULT_SEARCH_MAX}),
                       after those of --urls when it is given too
  --search-endpoint URL with --search: a SearXNG instance with its json format enabled (/search?q=…&format=json);
                       it gets the query, never a token`;

const CHUNK = /^(\d+)\/(\d+)$/;
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
const SORTS = ['relevance', 'lastUpdatedDate', 'submittedDate'] as const;

/** `--chunk SIZE/OVERLAP` → chunk options (the default separators), checked. */
export function parseChunkArg(value: string): ChunkOptions {
  const m = CHUNK.exec(value.trim());
  if (!m) throw new BuildError(`--chunk must be SIZE/OVERLAP (e.g. ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}), got "${value}"`);
  const size = Number(m[1]), overlap = Number(m[2]);
  if (size < 1 || size > 100_000) throw new BuildError(`--chunk: the size must be between 1 and 100000 characters, got ${size}`);
  if (overlap >= size) throw new BuildError(`--chunk: the overlap (${overlap}) must be smaller than the size (${size})`);
  return { ...DEFAULT_CHUNKING, chunkSize: size, overlap };
}

/** `--arxiv`, `--max`, `--arxiv-sort`, checked (the endpoint is checked by arxivDocuments). */
function arxivRequest(values: BuildFlags): ArxivRequest {
  const query = values.arxiv!.trim();
  if (!query) throw new BuildError('--arxiv needs a query: words, or arXiv fields such as "ti:retrieval AND cat:cs.IR"');
  const max = values.max === undefined ? 200 : Number(values.max);
  if (!Number.isInteger(max) || max < 1 || max > ARXIV_MAX_RESULTS) throw new BuildError(`--max must be a whole number from 1 to ${ARXIV_MAX_RESULTS} (arXiv gives at most ${ARXIV_MAX_RESULTS} results per request), got "${values.max}"`);
  const sort = values['arxiv-sort'];
  if (sort !== undefined && !(SORTS as readonly string[]).includes(sort)) throw new BuildError(`--arxiv-sort must be ${SORTS.join(', ')}, got "${sort}"`);
  return { query, max, ...(sort ? { sortBy: sort as ArxivRequest['sortBy'] } : {}) };
}

/** `--urls`, `--search`, `--search-endpoint`, `--max`, checked (the file is read later). */
function webFlags(values: BuildFlags): WebFlags {
  if (values.urls !== undefined && !values.urls.trim()) throw new BuildError('--urls needs a file: a text file with one URL a line');
  if (values.search === undefined) {
    if (values['search-endpoint'] !== undefined) throw new BuildError('--search-endpoint goes with --search');
    if (values.max !== undefined) throw new BuildError('--max goes with --arxiv or --search');
    return { urlsFile: values.urls ?? null, search: null };
  }
  const query = values.search.trim();
  if (!query) throw new BuildError('--search needs a query: the words to search the web for');
  const endpoint = values['search-endpoint'];
  if (endpoint === undefined) throw new BuildError('--search needs --search-endpoint URL: the address of a SearXNG instance with its json format enabled (docs/build.md "From web pages")');
  const problem = searchEndpointProblem(endpoint);
  if (problem) throw new BuildError(`--search-endpoint ${problem}, got "${redactUrlForDisplay(endpoint)}"`);
  const max = values.max === undefined ? DEFAULT_SEARCH_MAX : Number(values.max);
  if (!Number.isInteger(max) || max < 1 || max > WEB_LIMITS.maxPages) throw new BuildError(`--max must be a whole number from 1 to ${WEB_LIMITS.maxPages} with --search (a build reads at most ${WEB_LIMITS.maxPages} pages), got "${values.max}"`);
  return { urlsFile: values.urls ?? null, search: { endpoint, query, max } };
}

/** The flags checked; `usage` follows the message of a missing `--data` or `--out`. The chunking is null when the data's own applies. */
export function checkBuildFlags(values: BuildFlags, usage: string): { arxiv: ArxivRequest | null; web: WebFlags | null; chunking: ChunkOptions | false | null } {
  if (values.data !== undefined && values.arxiv !== undefined) throw new BuildError('give --data or --arxiv, not both');
  const isWeb = values.urls !== undefined || values.search !== undefined;
  if (isWeb && (values.data !== undefined || values.arxiv !== undefined)) throw new BuildError(`give --urls / --search or ${values.data !== undefined ? '--data' : '--arxiv'}, not both`);
  const arxiv = values.arxiv !== undefined ? arxivRequest(values) : null;
  for (const flag of ['arxiv-sort', 'arxiv-endpoint'] as const) if (!arxiv && values[flag] !== undefined) throw new BuildError(`--${flag} goes with --arxiv`);
  const web = arxiv ? null : webFlags(values);
  if (!values.data && !arxiv && !isWeb) throw new BuildError(`--data (or --arxiv, --urls or --search) is required\n\n${usage}`);
  if (!values.out) throw new BuildError(`--out is required (the folder that holds index_config.json and one folder per index)\n\n${usage}`);
  if (values.chunk !== undefined && values['no-chunk']) throw new BuildError('give --chunk SIZE/OVERLAP or --no-chunk, not both');
  const chunking = values.chunk !== undefined ? parseChunkArg(values.chunk) : values['no-chunk'] ? false : null;
  if (!isDtype(values.dtype)) throw new BuildError(`--dtype must be one of ${DTYPES.join(', ')}, got "${values.dtype}"`);
  if ((values.int8 || values.hnsw) && !values.embedder) throw new BuildError(`${values.int8 ? '--int8' : '--hnsw'} needs --embedder (it packs the vectors)`);
  if (values.id !== undefined && !ID.test(values.id)) throw new BuildError(`--id must be letters, digits, ".", "_" or "-" (at most 100, not starting with a dot), got "${values.id}"`);
  // Push checks come before any work: a missing token must not cost the build.
  if (values.push !== undefined) {
    if (!REPO.test(values.push)) throw new BuildError(`--push must be a Hub dataset repo id owner/name, got "${values.push}"`);
    if (values['token-env'] === undefined) throw new BuildError('--push needs --token-env VAR: the environment variable that holds your hf_ write token');
  } else if (values['token-env'] !== undefined) {
    throw new BuildError('--token-env goes with --push');
  }
  return { arxiv, web: isWeb ? web : null, chunking };
}
