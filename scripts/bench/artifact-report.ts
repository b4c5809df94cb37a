/**
 * The report of `npm run bench:artifact` (scripts/bench-artifact.ts): the progress log and clock, the rows it
 * measures, the number formats and the Markdown tables printed without --json.
 */
import { percentile } from '../../src/lib/stats/summary.ts';

export const log = (m: string) => process.stderr.write(`[bench-artifact] ${m}\n`);
export const now = () => performance.now();
export const ms = (x: number) => Math.round(x);
export const mb = (b: number) => (b / 1e6).toFixed(2);
export const median = (xs: readonly number[]) => percentile(xs, 50);

export interface OpenRow {
  artifact: string; transport: string; cache: string;
  bytes: number; requests: number; openMs: number; liveMs: number; allModesMs: number; index: string;
}

export interface BrowserRow { corpus: string; visit: string; wallMs: number; shownMs: number; source: string }

export interface BrowserHubRow { artifact: string; open: string; wallMs: number; shownMs: number; bytes: number; requests: number }

function table(head: string[], body: (string | number)[][]): string {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function tables(r: Record<string, unknown>): string {
  const browser = r.browser as BrowserRow[] | undefined;
  const browserTable = browser ? ['', 'Built app in headless Chromium (navigation → BM25 knowledge base ready; "worker" = the open time the Search tab shows):', '',
    table(['corpus', 'visit', 'to ready ms', 'worker ms', 'source'], browser.map((x) => [x.corpus, x.visit, ms(x.wallMs), ms(x.shownMs), x.source]))] : [];
  const hubRows = r.browserHub as BrowserHubRow[] | undefined;
  if (hubRows) browserTable.push('', 'Built app in headless Chromium, the 16.5k × 384 artifact from the loopback Hub (action → its knowledge base ready, vectors read at open; not attached: no 384-d embedder offline):', '',
    table(['vectors', 'open', 'to ready ms', 'worker ms', 'Hub served MB', 'Hub requests'], hubRows.map((x) => [x.artifact, x.open, ms(x.wallMs), ms(x.shownMs), mb(x.bytes), x.requests])));
  if (!r.open) return `${[`Machine: ${JSON.stringify(r.machine)}; load average ${(r.loadavgAtStart as number[]).join(' ')} at start, ${(r.loadavgAtEnd as number[]).join(' ')} at end.`, ...browserTable].join('\n')}\n`;
  const rows = r.open as OpenRow[];
  const ratio = r.int8Ratio as { vectorFiles: number; wholeArtifact: number; vectorBytes: Record<string, number>; totalBytes: Record<string, number> };
  const build = r.build as { bm25ArtifactMs: number; fromBuildCacheMs: number; files: number; bytes: number };
  const parts = [
    `Machine: ${JSON.stringify(r.machine)}; load average ${(r.loadavgAtStart as number[]).join(' ')} at start, ${(r.loadavgAtEnd as number[]).join(' ')} at end. ${String(r.note)}.`,
    '',
    `Open → all seven modes live (16.5k × 384, median of the timed opens; "live" = KB + dense attached + reranker; HNSW graph built once for shipping in ${ms(r.hnswBuildMs as number)} ms)`,
    '',
    table(['artifact', 'transport', 'cache', 'downloaded MB', 'requests', 'open KB ms', 'live ms', '+ first query ×7 ms', 'vector index'],
      rows.map((x) => [x.artifact, x.transport, x.cache, mb(x.bytes), x.requests, ms(x.openMs), ms(x.liveMs), ms(x.allModesMs), x.index])),
    '',
    table(['int8 / float32', 'ratio', 'bar'], [
      ['vector files', `${ratio.vectorFiles.toFixed(3)} (${mb(ratio.vectorBytes['int8']!)} / ${mb(ratio.vectorBytes['float32']!)} MB)`, '≤ 0.27'],
      ['whole artifact', `${ratio.wholeArtifact.toFixed(3)} (${mb(ratio.totalBytes['int8']!)} / ${mb(ratio.totalBytes['float32']!)} MB)`, '—'],
    ]),
    '',
    table(['build', 'value'], [
      ['SOTU BM25 artifact (index + CDF + parquet + meta), no cache', `${ms(build.bm25ArtifactMs)} ms, ${build.files} files, ${mb(build.bytes)} MB`],
      ['the same from the build cache (node_modules/.cache/rag-lab)', `${ms(build.fromBuildCacheMs)} ms`],
      ...Object.entries((r.embed ?? {}) as Record<string, { passages: number; seconds: number; passagesPerS: number }>).map(([dtype, e]) =>
        [`fixture embedder (tiny, closed-form) ${dtype}`, `${e.passagesPerS} passages/s (${e.passages} in ${e.seconds} s); real models are much slower`]),
    ]),
  ];
  parts.push(...browserTable);
  if (r.bm25) parts.push('', 'BM25 postings vs rebuild on open (scripts/bench-artifact-bm25.ts):', '', String(r.bm25));
  return `${parts.join('\n')}\n`;
}
