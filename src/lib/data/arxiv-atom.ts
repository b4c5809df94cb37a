/**
 * The arXiv API's Atom feed (https://info.arxiv.org/help/api/user-manual.html) read with fast-xml-parser (no
 * DOMParser: this runs in a worker and in Node). Namespace prefixes are dropped, so `opensearch:totalResults` and
 * `arxiv:primary_category` are found whatever prefix a feed (or a proxy rewriting it) uses. arXiv's error feeds (one
 * entry titled "Error", the message in its summary, id under /api/errors) come back as `error`.
 */
import { XMLParser } from 'fast-xml-parser';

/** One paper of a feed. */
export interface ArxivEntry {
  /** The versionless arXiv id: `2101.00001`, `hep-ex/0307015`. */
  id: string;
  /** The version the feed gave (2 for `2101.00001v2`), or null when the id had none. */
  version: number | null;
  /** Whitespace collapsed. */
  title: string;
  /** The abstract, whitespace collapsed. */
  summary: string;
  /** ISO date-time of the first version, or null. */
  published: string | null;
  authors: string[];
  primaryCategory: string | null;
  categories: string[];
  /** The abstract page (https). */
  absUrl: string;
  /** The PDF (https), or null when the feed gave no PDF link. */
  pdfUrl: string | null;
}

export interface ArxivFeed {
  /** `opensearch:totalResults`, or null when the feed has none. */
  total: number | null;
  startIndex: number | null;
  entries: ArxivEntry[];
  /** Entries that could not be read (no id, title or abstract), with why. */
  bad: { id: string; reason: string }[];
  /** arXiv's error message when this is an error feed. */
  error: string | null;
}

/** The text is not an Atom feed (an HTML error page, JSON, a cut-off answer). */
export class NotAFeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAFeedError';
  }
}

const ARRAYS = new Set(['entry', 'author', 'link', 'category']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  htmlEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

type Node = Record<string, unknown>;
const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Collapses runs of whitespace (line breaks in titles and abstracts) to one space. */
export const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The text of an element that may carry attributes (`<title type="html">…</title>` → `{#text, @_type}`). */
function text(x: unknown): string {
  if (typeof x === 'string') return x;
  if (typeof x === 'number') return String(x);
  if (isNode(x) && typeof x['#text'] === 'string') return x['#text'];
  return '';
}

const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : x === undefined ? [] : [x]);
const attr = (x: unknown, name: string): string => (isNode(x) && typeof x[`@_${name}`] === 'string' ? (x[`@_${name}`] as string) : '');

function count(x: unknown): number | null {
  const s = text(x).trim();
  if (!/^\d+$/.test(s)) return null;
  return Number(s);
}

const ID_IN_URL = /arxiv\.org\/abs\/(.+)$/i;
/** New-style ids (`2101.00001`, since 2007) and old-style ones (`hep-ex/0307015`, `math.GT/0309136`), optional version. */
const ARXIV_ID = /^(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Za-z-]+)?\/\d{7})(?:v(\d+))?$/;

/** `http://arxiv.org/abs/2101.00001v2` (or a bare `2101.00001v2`) → `{id: '2101.00001', version: 2}`; null if no arXiv id. */
export function arxivIdOf(raw: string): { id: string; version: number | null } | null {
  const s = raw.trim();
  const m = ARXIV_ID.exec(ID_IN_URL.exec(s)?.[1] ?? s);
  return m ? { id: m[1]!, version: m[2] !== undefined ? Number(m[2]) : null } : null;
}

/** An arXiv URL on https (the feed gives http links). */
const https = (url: string) => url.replace(/^http:\/\/(export\.)?arxiv\.org\//i, 'https://arxiv.org/');

function entryOf(e: Node): ArxivEntry | { bad: string; id: string } {
  const rawId = text(e.id);
  const ids = arxivIdOf(rawId);
  if (!ids) return { bad: rawId ? `not an arXiv id: "${rawId.slice(0, 80)}"` : 'the entry has no id', id: rawId || '(no id)' };
  const title = collapse(text(e.title));
  const summary = collapse(text(e.summary));
  if (!title) return { bad: 'the entry has no title', id: ids.id };
  if (!summary) return { bad: 'the entry has no abstract', id: ids.id };
  const links = list(e.link);
  const pdf = links.find((l) => attr(l, 'title') === 'pdf' || attr(l, 'type') === 'application/pdf');
  const published = text(e.published).trim();
  return {
    id: ids.id,
    version: ids.version,
    title,
    summary,
    published: published || null,
    authors: list(e.author).map((a) => collapse(text(isNode(a) ? a.name : a))).filter(Boolean),
    primaryCategory: attr(e.primary_category, 'term') || null,
    categories: list(e.category).map((c) => attr(c, 'term')).filter(Boolean),
    absUrl: `https://arxiv.org/abs/${ids.id}${ids.version !== null ? `v${ids.version}` : ''}`,
    pdfUrl: pdf && attr(pdf, 'href') ? https(attr(pdf, 'href')) : null,
  };
}

const isErrorEntry = (e: Node) => text(e.title).trim() === 'Error' && (/\/api\/errors/.test(text(e.id)) || !arxivIdOf(text(e.id)));

/** Parses one page of the arXiv API. Throws NotAFeedError when `xml` is not an Atom feed. */
export function parseArxivFeed(xml: string): ArxivFeed {
  const head = xml.trimStart().slice(0, 512).toLowerCase();
  // No feed of arXiv's declares a DTD; refusing one keeps entity expansion out of the parser.
  if (head.startsWith('<!doctype') || head.includes('<!doctype') || head.startsWith('<html')) throw new NotAFeedError('an HTML page, not an Atom feed');
  let doc: unknown;
  try {
    doc = parser.parse(xml);
  } catch (e) {
    throw new NotAFeedError(`not readable XML (${(e as Error).message.split('\n')[0]})`);
  }
  const feed = isNode(doc) ? doc.feed : undefined;
  if (!isNode(feed)) throw new NotAFeedError(xml.trim() === '' ? 'an empty answer' : 'XML without an Atom <feed>');
  const entries: ArxivEntry[] = [];
  const bad: ArxivFeed['bad'] = [];
  let error: string | null = null;
  for (const e of list(feed.entry)) {
    if (!isNode(e)) continue;
    if (isErrorEntry(e)) {
      error = collapse(text(e.summary)) || 'arXiv reported an error without a message';
      continue;
    }
    const got = entryOf(e);
    if ('bad' in got) bad.push({ id: got.id, reason: got.bad });
    else entries.push(got);
  }
  return { total: count(feed.totalResults), startIndex: count(feed.startIndex), entries, bad, error };
}
