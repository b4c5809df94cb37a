/**
 * `npx tsx scripts/bench-arxiv.ts`: what reading arXiv costs besides arXiv's own pace (one request every 3 s, which
 * dominates: 2,000 papers = 20 pages ≥ 57 s of waiting). In Node, with the code the build worker and the CLI run:
 *  1. parseArxivFeed of one 2,000-entry page (arXiv's largest request): ms and entries/s;
 *  2. arxivDocuments over the loopback feed (tests/helpers/arxiv-server.ts), 2,000 papers in pages of 100, the
 *     interval set to 0 (a clock that does not wait): ms for the adapter's own work (HTTP on loopback, parsing);
 *  3. KnowledgeBase.build of those documents (default chunking 800/120, BM25): ms.
 * Median of --reps runs (default 3). Prints figures, asserts nothing. Measured on the busy 2-core machine: parsing
 * about 0.6–0.9k entries/s (≈ 0.15 s a page of 100, well inside the 3 s between requests).
 */
import { parseArgs } from 'node:util';
import { parseArxivFeed } from '../src/lib/data/arxiv-atom.ts';
import { arxivDocuments } from '../src/lib/data/arxiv.ts';
import { DEFAULT_BM25 } from '../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { entryXml, feedXml, makePapers, startArxivServer } from '../tests/helpers/arxiv-server.ts';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' } } });
const reps = Math.max(1, Number(values.reps) || 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) { const t0 = performance.now(); await fn(); ms.push(performance.now() - t0); }
  return median(ms);
}

const papers = makePapers(2000);
// Abstracts of a realistic length (~1,100 characters, arXiv's typical size).
for (const p of papers) p.summary = `${p.summary} ${'Retrieval augmented generation grounds answers in documents found by a retriever. '.repeat(14)}`;
const xml = feedXml(papers.map(entryXml), papers.length, 0, papers.length);
const parseMs = await time(() => parseArxivFeed(xml));
console.log(`parseArxivFeed: 2,000 entries (${(xml.length / 1e6).toFixed(1)} MB) in ${parseMs.toFixed(0)} ms = ${Math.round(2000 / (parseMs / 1000)).toLocaleString('en-US')} entries/s`);

const srv = await startArxivServer(papers);
const noWait = { now: () => 0, sleep: async () => {} };
let docs: Awaited<ReturnType<typeof arxivDocuments>>['docs'] = [];
const readMs = await time(async () => { docs = (await arxivDocuments({ query: 'x', max: 2000 }, { endpoint: srv.endpoint, minIntervalMs: 0, clock: noWait })).docs; });
await srv.close();
console.log(`arxivDocuments: ${docs.length} papers, 20 pages of 100 over loopback, no waits: ${readMs.toFixed(0)} ms (arXiv's rule adds >= ${19 * 3} s)`);
const buildMs = await time(() => KnowledgeBase.build(docs, { chunking: DEFAULT_CHUNKING, bm25: DEFAULT_BM25 }));
console.log(`KnowledgeBase.build (800/120, BM25): ${buildMs.toFixed(0)} ms`);
