/**
 * arXiv as a knowledge-base source: a query (title / abstract / category terms) → titles and abstracts, with arXiv ids
 * and links as metadata, through the arXiv API's Atom feed (paged, its error feeds and empty pages handled). arXiv
 * sends no CORS headers, so the tab calls it through a proxy URL the user set (Settings) and the CLI calls it
 * directly; both honour one request every 3 seconds (../shared/notes/hub-and-formats.md §4).
 * CONTRACT STUB (issue 12): the helper that owns this file implements it.
 */
import type { OnBuildProgress, SourceDocuments } from '../build/types.ts';

export const ARXIV_API = 'https://export.arxiv.org/api/query';

export interface ArxivRequest {
  /** arXiv search_query syntax or plain words ("ti:retrieval AND cat:cs.IR"). */
  query: string;
  /** Results wanted (1–2,000). */
  max: number;
  sortBy?: 'relevance' | 'lastUpdatedDate' | 'submittedDate';
}

export interface ArxivOptions {
  /** The API endpoint, or the proxy URL that forwards to it. */
  endpoint: string;
  fetch?: typeof fetch;
  /** Least time between two requests, ms (arXiv's rule: 3,000). */
  minIntervalMs?: number;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
}

export async function arxivDocuments(_req: ArxivRequest, _opts: ArxivOptions): Promise<SourceDocuments> {
  throw new Error('arXiv import is not built yet.');
}
