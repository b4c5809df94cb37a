/**
 * The arXiv request as the user gives it (Build tab form, `rag-lab build-index --arxiv`): checked, turned into the
 * API's `search_query` and page URLs, and the check of the proxy setting. No parser here, so the page's bundle can
 * use it (the Atom reading is `arxiv-atom.ts`, in the build worker).
 */
import * as v from 'valibot';
import { plainEndpointProblem } from './endpoint-url.ts';

export const ARXIV_API = 'https://export.arxiv.org/api/query';
/** Most results one build asks for (arXiv: at most 2,000 per request; refine larger queries). */
export const ARXIV_MAX_RESULTS = 2000;
/** Results per request the adapter asks for (arXiv allows up to 2,000; smaller pages fail less). */
export const ARXIV_PAGE_SIZE = 100;

export interface ArxivRequest {
  /** arXiv search_query syntax or plain words ("ti:retrieval AND cat:cs.IR"). */
  query: string;
  /** Results wanted (1–2,000). */
  max: number;
  sortBy?: 'relevance' | 'lastUpdatedDate' | 'submittedDate';
  /** Default descending. */
  sortOrder?: 'ascending' | 'descending';
}

/** A failure with a message for the user (arXiv's own message for an error feed). */
export class ArxivError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message);
    this.name = 'ArxivError';
  }
}

const RequestSchema = v.object({
  query: v.pipe(v.string(), v.trim(), v.minLength(1, 'the query is empty: type words or arXiv fields (ti:, abs:, cat:, au:)'), v.maxLength(1000, 'the query is longer than 1,000 characters')),
  max: v.pipe(v.number('the number of results must be a number'), v.integer('the number of results must be a whole number'), v.minValue(1, 'ask for at least 1 result'), v.maxValue(ARXIV_MAX_RESULTS, `arXiv gives at most ${ARXIV_MAX_RESULTS.toLocaleString('en-US')} results per request: ask for fewer, or refine the query`)),
  sortBy: v.optional(v.picklist(['relevance', 'lastUpdatedDate', 'submittedDate'], 'sort by relevance, lastUpdatedDate or submittedDate')),
  sortOrder: v.optional(v.picklist(['ascending', 'descending'], 'the sort order is ascending or descending')),
});

/** The request checked (query trimmed), or an ArxivError naming what to fix. */
export function validateArxivRequest(req: unknown): ArxivRequest {
  const r = v.safeParse(RequestSchema, req);
  if (!r.success) throw new ArxivError(`arXiv query: ${r.issues[0]!.message}`);
  return r.output;
}

const FIELD = /\b(ti|abs|au|cat|all|co|jr|rn|id):/;
const BOOLEAN = /(^|[\s)])(AND|OR|ANDNOT)([\s(]|$)/;

/**
 * The `search_query` for the user's text: text already in arXiv's syntax (a field prefix `ti:` `abs:` `au:` `cat:`
 * `all:`…, AND / OR / ANDNOT, parentheses) goes as it is; plain words become `all:word` joined with AND, a "quoted
 * phrase" staying one term.
 */
export function arxivSearchQuery(text: string): string {
  const t = text.trim();
  if (FIELD.test(t) || BOOLEAN.test(t) || /[()]/.test(t)) return t;
  const terms = t.match(/"[^"]+"|[^\s"]+/g) ?? [];
  return terms.map((w) => `all:${w}`).join(' AND ');
}

/** The URL of one page: the endpoint (arXiv or the proxy that replaces it) with the API's parameters. */
export function arxivPageUrl(endpoint: string, req: ArxivRequest, start: number, size: number): string {
  const u = new URL(endpoint);
  u.searchParams.set('search_query', arxivSearchQuery(req.query));
  u.searchParams.set('start', String(start));
  u.searchParams.set('max_results', String(size));
  u.searchParams.set('sortBy', req.sortBy ?? 'relevance');
  u.searchParams.set('sortOrder', req.sortOrder ?? 'descending');
  return u.toString();
}

export const ARXIV_HOSTS = /(^|\.)arxiv\.org$/i;

/**
 * Why `url` cannot be the arXiv proxy of Settings, or null when it can: an http(s) URL with no user name or password
 * (nothing secret travels to the proxy), no query or fragment (the API's parameters are appended), and not arXiv
 * itself (it sends no CORS headers, which is why a proxy is needed).
 */
export function arxivProxyProblem(url: string): string | null {
  const problem = plainEndpointProblem(url, { example: 'https://my-proxy.example/arxiv', to: 'the proxy', params: 'the arXiv parameters (?search_query=…) are appended to it' });
  if (problem) return problem;
  if (ARXIV_HOSTS.test(new URL(url).hostname)) return 'is arXiv itself, which sends no CORS headers to browsers: give a proxy that forwards to it';
  return null;
}

