/**
 * arxivDocuments against the loopback arXiv imitation: query building, paging by opensearch totals, the 3-second
 * rule (a fake clock records the scheduled times, so no test waits), retries (503/429, Retry-After), empty pages,
 * error feeds, HTML from a proxy, duplicates, cancelling, and that no credential or token reaches arXiv.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BuildProgress } from '../../src/lib/data/source-documents.ts';
import {
  ArxivError, arxivDocuments, arxivPageUrl, arxivProxyProblem, arxivSearchQuery, realClock, validateArxivRequest,
  type ArxivClock, type ArxivOptions,
} from '../../src/lib/data/arxiv.ts';
import { makePapers, startArxivServer, type ArxivServer } from '../helpers/arxiv-server.ts';

let srv: ArxivServer;
beforeAll(async () => { srv = await startArxivServer(makePapers(250)); });
afterAll(() => srv.close());
afterEach(() => { srv.requests.length = 0; srv.faults.length = 0; srv.papers.splice(0, srv.papers.length, ...makePapers(250)); });

/** A clock that only moves when slept on; `requestsAt` is its time at each fetch. */
function fakeTime() {
  let t = 1_000_000;
  const sleeps: number[] = [];
  const requestsAt: number[] = [];
  const clock: ArxivClock = {
    now: () => t,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      t += ms;
    },
  };
  const fetcher: typeof fetch = (input, init) => { requestsAt.push(t); return fetch(input, init); };
  return { clock, sleeps, requestsAt, fetch: fetcher };
}

function options(extra: Partial<ArxivOptions> = {}) {
  const time = fakeTime();
  const progress: BuildProgress[] = [];
  const notices: string[] = [];
  const opts: ArxivOptions = { endpoint: srv.endpoint, clock: time.clock, fetch: time.fetch, onProgress: (p) => progress.push(p), onNotice: (m) => notices.push(m), ...extra };
  return { opts, progress, notices, ...time };
}

const gaps = (at: number[]) => at.slice(1).map((x, i) => x - at[i]!);
const starts = () => srv.requests.map((r) => `${r.params.get('start')}+${r.params.get('max_results')}`);

describe('arXiv query and URL', () => {
  it('plain words become all: terms joined with AND; arXiv syntax passes as is', () => {
    expect(arxivSearchQuery('dense retrieval')).toBe('all:dense AND all:retrieval');
    expect(arxivSearchQuery('  "large language" models ')).toBe('all:"large language" AND all:models');
    expect(arxivSearchQuery('ti:retrieval AND cat:cs.IR')).toBe('ti:retrieval AND cat:cs.IR');
    expect(arxivSearchQuery('au:hinton')).toBe('au:hinton');
    expect(arxivSearchQuery('bert ANDNOT roberta')).toBe('bert ANDNOT roberta');
    expect(arxivSearchQuery('(a OR b)')).toBe('(a OR b)');
  });

  it('the page URL: the endpoint (or proxy) with search_query, start, max_results, sortBy, sortOrder only', () => {
    const u = new URL(arxivPageUrl('http://127.0.0.1:9/p/arxiv', { query: 'graph rag', max: 10, sortBy: 'submittedDate' }, 100, 50));
    expect(u.origin + u.pathname).toBe('http://127.0.0.1:9/p/arxiv');
    expect([...u.searchParams]).toEqual([['search_query', 'all:graph AND all:rag'], ['start', '100'], ['max_results', '50'], ['sortBy', 'submittedDate'], ['sortOrder', 'descending']]);
  });

  it('requests are checked: empty query, max outside 1–2,000, unknown sort', () => {
    expect(() => validateArxivRequest({ query: '  ', max: 10 })).toThrow(/query is empty/);
    expect(() => validateArxivRequest({ query: 'x', max: 2001 })).toThrow(/at most 2,000/);
    expect(() => validateArxivRequest({ query: 'x', max: 0 })).toThrow(/at least 1/);
    expect(() => validateArxivRequest({ query: 'x', max: 2.5 })).toThrow(/whole number/);
    expect(() => validateArxivRequest({ query: 'x', max: 5, sortBy: 'stars' })).toThrow(/sort by/);
    expect(validateArxivRequest({ query: ' x ', max: 5 })).toEqual({ query: 'x', max: 5 });
  });

  it('the proxy setting: http(s), no credentials, no query or fragment, not arXiv itself', () => {
    expect(arxivProxyProblem('https://proxy.example/arxiv')).toBeNull();
    expect(arxivProxyProblem('http://127.0.0.1:8080/')).toBeNull();
    expect(arxivProxyProblem('ftp://x/')).toMatch(/http/);
    expect(arxivProxyProblem('not a url')).toMatch(/http/);
    expect(arxivProxyProblem('https://u:p@proxy.example/')).toMatch(/user name or password/);
    expect(arxivProxyProblem('https://proxy.example/?key=abc')).toMatch(/query or fragment/);
    expect(arxivProxyProblem('https://export.arxiv.org/api/query')).toMatch(/arXiv itself/);
  });
});

describe('arxivDocuments', () => {
  it('pages of 100 until max; documents with versionless ids, title, abstract and metadata; 3 s between requests', async () => {
    const t = options();
    const got = await arxivDocuments({ query: 'retrieval', max: 200 }, t.opts);
    expect(starts()).toEqual(['0+100', '100+100']);
    expect(srv.requests[0]!.params.get('search_query')).toBe('all:retrieval');
    expect(got.docs).toHaveLength(200);
    const d = got.docs[1]!;
    expect(d).toEqual({
      id: '2301.00002', title: 'Study 2 of transformers: a long title',
      text: 'We study transformers in paper number 2. Keyword zq2x marks this abstract & nothing else.',
      meta: { arxiv_id: '2301.00002', version: 2, url: 'https://arxiv.org/abs/2301.00002v2', pdf: 'https://arxiv.org/pdf/2301.00002v2', year: 2020, category: 'cs.CL', authors: 'Author A2, Author B2', published: '2020-02-15' },
    });
    expect(got.docs[4]!.meta!.authors).toBe('Author A5, Author B5, Author C5 et al.');
    expect(got.fields.find((f) => f.name === 'year')).toEqual({ name: 'year', label: 'Year', type: 'number' });
    expect(got.fields.find((f) => f.name === 'arxiv_id')?.facet).toBe(false);
    expect(got.origin).toEqual({ kind: 'arxiv', query: 'retrieval', max: 200 });
    expect(got.examples).toEqual([{ query: 'retrieval' }]);
    expect(got.notes).toEqual(['arXiv has 250 results for the query; read the first 200']);
    // The rule: the second request was scheduled 3,000 ms (the default) after the first answer.
    expect(t.sleeps).toEqual([3000]);
    expect(gaps(t.requestsAt)).toEqual([3000]);
    expect(t.progress.at(-1)).toEqual({ stage: 'download', done: 200, total: 200, item: 'start=200' });
    expect(t.progress.map((p) => p.item)).toContain('start=100');
  });

  it('stops at opensearch:totalResults below max; the last page asks only for what is left', async () => {
    srv.papers.splice(120);
    const t = options({ minIntervalMs: 5000, pageSize: 50 });
    const got = await arxivDocuments({ query: 'ti:x', max: 500, sortBy: 'lastUpdatedDate', sortOrder: 'ascending' }, t.opts);
    expect(got.docs).toHaveLength(120);
    expect(starts()).toEqual(['0+50', '50+50', '100+20']);
    expect(srv.requests[0]!.params.get('sortBy')).toBe('lastUpdatedDate');
    expect(srv.requests[0]!.params.get('sortOrder')).toBe('ascending');
    expect(gaps(t.requestsAt).every((g) => g >= 5000)).toBe(true);
    expect(t.progress.at(-1)).toMatchObject({ done: 120, total: 120 });
    expect(got.examples).toBeUndefined();
  });

  it('an error feed (HTTP 400) fails with arXiv\'s message, after one request', async () => {
    srv.faults.push({ kind: 'error', message: 'unbalanced parentheses in query' });
    const err = await arxivDocuments({ query: 'ti:(x', max: 10 }, options().opts).catch((e) => e);
    expect(err).toBeInstanceOf(ArxivError);
    expect(err.message).toMatch(/^arXiv refused the query: unbalanced parentheses in query \(HTTP 400; search_query=ti:\(x\)/);
    expect(srv.requests).toHaveLength(1);
  });

  it('an empty first page is asked again once, after the interval', async () => {
    srv.faults.push({ kind: 'empty' });
    const t = options();
    const got = await arxivDocuments({ query: 'x', max: 30 }, t.opts);
    expect(got.docs).toHaveLength(30);
    expect(starts()).toEqual(['0+30', '0+30']);
    expect(gaps(t.requestsAt)).toEqual([3000]);
    expect(t.notices).toEqual(['arXiv returned an empty page at start=0; asking again']);
  });

  it('an empty page twice before the total: stop and keep what was read, with a note', async () => {
    // The first page is good; the second is empty twice.
    srv.faults.push({ kind: 'slow', ms: 0 }, { kind: 'empty' }, { kind: 'empty' });
    const got = await arxivDocuments({ query: 'x', max: 200 }, options().opts);
    expect(starts()).toEqual(['0+100', '100+100', '100+100']);
    expect(got.docs).toHaveLength(100);
    expect(got.notes).toContain('arXiv returned an empty page at start=100; kept the 100 results read');
  });

  it('empty twice with nothing read: no papers found (total 0) is a clear error', async () => {
    srv.faults.push({ kind: 'empty' }, { kind: 'empty' });
    await expect(arxivDocuments({ query: 'zzz', max: 10 }, options().opts)).rejects.toThrow(/^arXiv found no papers for "zzz" \(search_query=all:zzz\)/);
  });

  it('503 and 429 are retried: Retry-After respected, else at least the interval', async () => {
    srv.faults.push({ kind: 'status', status: 503, retryAfter: '7' }, { kind: 'status', status: 429 });
    const t = options();
    const got = await arxivDocuments({ query: 'x', max: 10 }, t.opts);
    expect(got.docs).toHaveLength(10);
    expect(srv.requests).toHaveLength(3);
    expect(gaps(t.requestsAt)).toEqual([7000, 3000 * 2]);
    expect(t.notices[0]).toMatch(/^the arXiv proxy \(127\.0\.0\.1:\d+\) answered HTTP 503 at start=0; trying again in 7 s \(try 2 of 4\)$/);
  });

  it('503 on every try: a clear error after 4 tries', async () => {
    for (let i = 0; i < 4; i++) srv.faults.push({ kind: 'status', status: 503 });
    await expect(arxivDocuments({ query: 'x', max: 10 }, options().opts)).rejects.toThrow(/answered HTTP 503 after 4 tries at start=0 \(text\/plain, HTTP 503\)\.$/);
    expect(srv.requests).toHaveLength(4);
  });

  it('HTML instead of Atom (a proxy\'s error page): says the proxy did not return an arXiv feed', async () => {
    srv.faults.push({ kind: 'html' });
    await expect(arxivDocuments({ query: 'x', max: 10 }, options().opts)).rejects.toThrow(/^the arXiv proxy \(127\.0\.0\.1:\d+\) did not return an arXiv feed \(got text\/html, HTTP 200: "Proxy error"\) at start=0\.$/);
    expect(srv.requests).toHaveLength(1);
    // A proxy's 502 page on every try: the status, and what came instead of a feed.
    srv.requests.length = 0;
    for (let i = 0; i < 4; i++) srv.faults.push({ kind: 'html', status: 502 });
    await expect(arxivDocuments({ query: 'x', max: 10 }, options().opts)).rejects.toThrow(/answered HTTP 502 after 4 tries at start=0 \(text\/html, HTTP 502: "Proxy error"\)\.$/);
    expect(srv.requests).toHaveLength(4);
  });

  it('duplicate ids across pages are dropped, with a note', async () => {
    const dup = { ...srv.papers[3]!, id: srv.papers[3]!.id.replace(/v\d+$/, 'v9') };
    srv.papers.splice(100, 0, dup);
    const got = await arxivDocuments({ query: 'x', max: 150 }, options().opts);
    expect(got.docs).toHaveLength(149);
    expect(new Set(got.docs.map((d) => d.id)).size).toBe(149);
    expect(got.docs.find((d) => d.id === '2301.00004')!.meta!.version).toBe(1);
    expect(got.notes).toContain('dropped 1 duplicate entry (the same arXiv id on more than one page)');
  });

  it('entries that cannot be read are skipped with the reason, the others kept', async () => {
    srv.papers[2]!.summary = '   ';
    const got = await arxivDocuments({ query: 'x', max: 5 }, options().opts);
    expect(got.docs.map((d) => d.id)).toEqual(['2301.00001', '2301.00002', '2301.00004', '2301.00005']);
    expect(got.skipped).toEqual([{ path: 'arXiv 2301.00003', reason: 'the entry has no abstract' }]);
  });

  it('the signal aborts: during the wait between pages, and during a request', async () => {
    const ac = new AbortController();
    const t = options({ signal: ac.signal });
    t.opts.clock = { now: () => 0, sleep: (_ms, signal) => { ac.abort(new DOMException('cancelled', 'AbortError')); return Promise.reject(signal!.reason); } };
    await expect(arxivDocuments({ query: 'x', max: 200 }, t.opts)).rejects.toMatchObject({ name: 'AbortError' });
    expect(srv.requests).toHaveLength(1);

    srv.requests.length = 0;
    const ac2 = new AbortController();
    srv.faults.push({ kind: 'slow', ms: 5000 });
    const p = arxivDocuments({ query: 'x', max: 10 }, options({ signal: ac2.signal }).opts);
    await vi.waitFor(() => expect(srv.requests).toHaveLength(1));
    ac2.abort(new DOMException('cancelled', 'AbortError'));
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an endpoint that does not answer: "could not reach", naming the host only', async () => {
    const gone = await startArxivServer([]);
    await gone.close();
    await expect(arxivDocuments({ query: 'x', max: 10 }, options({ endpoint: gone.endpoint }).opts)).rejects.toThrow(/^Could not reach the arXiv proxy \(127\.0\.0\.1:\d+\): no answer, or one without CORS headers/);
  });

  it('nothing secret is sent: no Authorization, cookie or token; only the API parameters', async () => {
    await arxivDocuments({ query: 'x', max: 120 }, options().opts);
    for (const r of srv.requests) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(Object.keys(r.headers).filter((h) => /token|key|auth/i.test(h))).toEqual([]);
      expect([...r.params.keys()]).toEqual(['search_query', 'start', 'max_results', 'sortBy', 'sortOrder']);
      expect(r.url).not.toMatch(/hf_|token|key=/i);
    }
  });

  it('the real clock waits the interval (fake timers) and an abort cancels the wait', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      const p = realClock.sleep(3000).then(() => { done = true; });
      await vi.advanceTimersByTimeAsync(2999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await p;
      expect(done).toBe(true);
      const ac = new AbortController();
      const q = realClock.sleep(3000, ac.signal);
      ac.abort(new Error('stop'));
      await expect(q).rejects.toThrow('stop');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a bad endpoint is refused before any request', async () => {
    await expect(arxivDocuments({ query: 'x', max: 1 }, options({ endpoint: 'ftp://x/' }).opts)).rejects.toThrow(/not an http\(s\) URL/);
  });
});
