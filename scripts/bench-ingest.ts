/**
 * `npm run bench:ingest`: what file ingestion costs (issue 12's bar: a 100-page text PDF extracted, chunked and
 * BM25-indexed in the worker ≤ 5 s). In Node, with the code the build worker runs (`extractDocuments`, then
 * `KnowledgeBase.build` with the default chunking and BM25):
 *  1. a 100-page PDF made here (tests/helpers/make-pdf.ts: Helvetica, ~3,000 characters a page of seeded pseudo-
 *     English) extracted, chunked and indexed: ms per stage (extract, chunk, index, calibrate), pages/s. The first
 *     run includes loading pdf.js (reported apart: a worker pays it on its first PDF); then --reps warm runs,
 *     median reported.
 *  2. pages/s of the two real PDFs in ../shared/data/pdfs (pdfTeX manuals, 36 and 17 pages).
 *  3. 5,000 tiny text files: files/s.
 * Node on this machine, not Chromium: the browser's worker adds little to pure JavaScript work, but measure it there
 * too (the Build e2e / the UI's bench). Options: --reps N (default 3), --json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { extractDocuments } from '../src/lib/ingest/extract.ts';
import { DEFAULT_BM25 } from '../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { textPdf } from '../tests/helpers/make-pdf.ts';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } } });
const reps = Math.max(1, Number(values.reps) || 3);
const PDFS = resolve(import.meta.dirname, '../../shared/data/pdfs');

/** Seeded pseudo-English: words drawn from a fixed vocabulary with a Zipf-like skew (mulberry32). */
function prose(seed: number, chars: number): string {
  let a = seed >>> 0;
  const rand = () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const vocab = 'the of and a to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can out about into who what up some time only could new these two may first then do any like my now over such our man me even most made after also did many before must through years where much your way down should because long each just people those how too little state good very make world still own see men work here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(' ');
  const words: string[] = [];
  let n = 0, sentence = 0;
  while (n < chars) {
    let w = vocab[Math.floor(vocab.length * rand() ** 2)]!;
    if (sentence === 0) w = w[0]!.toUpperCase() + w.slice(1);
    sentence++;
    if (sentence > 8 + rand() * 12) { w += '.'; sentence = 0; }
    words.push(w);
    n += w.length + 1;
  }
  return words.join(' ');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const log = (m: string) => process.stderr.write(`${m}\n`);

interface StageTimes { extract: number; chunk: number; index: number; calibrate: number; total: number; pages: number; chunks: number }

/** Extract + build, each stage timed from the build's progress events (a stage ends when the next one starts). */
async function pipeline(path: string, bytes: Uint8Array): Promise<StageTimes> {
  const t0 = performance.now();
  const got = await extractDocuments([{ path, bytes }]);
  const t1 = performance.now();
  const starts = new Map<string, number>();
  const kb = KnowledgeBase.build(got.docs, { chunking: DEFAULT_CHUNKING, bm25: DEFAULT_BM25 }, (stage) => { if (!starts.has(stage)) starts.set(stage, performance.now()); });
  const t2 = performance.now();
  const order = [...starts.entries()].sort((a, b) => a[1] - b[1]);
  const ms: Record<string, number> = {};
  order.forEach(([stage, at], i) => { ms[stage] = (order[i + 1]?.[1] ?? t2) - at; });
  const other = t2 - t1 - Object.values(ms).reduce((a, b) => a + b, 0);
  return {
    extract: t1 - t0, chunk: (ms['chunk'] ?? 0) + Math.max(0, other), index: ms['index'] ?? 0, calibrate: ms['calibrate'] ?? 0,
    total: t2 - t0, pages: got.pages, chunks: kb.size,
  };
}

const pageTexts = Array.from({ length: 100 }, (_, i) => prose(i + 1, 3000));
const pdf = textPdf(pageTexts, { title: 'Bench PDF' });
log(`100-page PDF: ${(pdf.byteLength / 1e6).toFixed(2)} MB, ${pageTexts.reduce((a, t) => a + t.length, 0).toLocaleString('en-US')} characters`);

const tLoad = performance.now();
await extractDocuments([{ path: 'warmup.pdf', bytes: textPdf(['pdf.js loads here.']) }]);
const loadMs = performance.now() - tLoad;
const runs: StageTimes[] = [];
for (let r = 0; r < reps; r++) { runs.push(await pipeline('bench.pdf', pdf)); log(`run ${r + 1}: ${runs.at(-1)!.total.toFixed(0)} ms`); }
const pick = (k: keyof StageTimes) => median(runs.map((r) => r[k]));
const synthetic = { loadPdfjsMs: loadMs, extractMs: pick('extract'), chunkMs: pick('chunk'), indexMs: pick('index'), calibrateMs: pick('calibrate'), totalMs: pick('total'), pages: runs[0]!.pages, chunks: runs[0]!.chunks, pagesPerSecond: 100 / (pick('extract') / 1000) };

const real: { file: string; pages: number; ms: number; pagesPerSecond: number }[] = [];
for (const name of ['libtasn1.pdf', 'shared-mime-info-spec.pdf']) {
  const path = join(PDFS, name);
  if (!existsSync(path)) { log(`${path}: not found, skipped`); continue; }
  const bytes = new Uint8Array(readFileSync(path));
  const times: number[] = [];
  let pages = 0;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    pages = (await extractDocuments([{ path: name, bytes }])).pages;
    times.push(performance.now() - t);
  }
  real.push({ file: name, pages, ms: median(times), pagesPerSecond: pages / (median(times) / 1000) });
}

const enc = new TextEncoder();
const tiny = Array.from({ length: 5000 }, (_, i) => ({ path: `notes/${i}.txt`, bytes: enc.encode(`Note ${i}: ${prose(i, 200)}`) }));
const tinyTimes: number[] = [];
for (let r = 0; r < reps; r++) { const t = performance.now(); await extractDocuments(tiny); tinyTimes.push(performance.now() - t); }
const files = { files: 5000, ms: median(tinyTimes), filesPerSecond: 5000 / (median(tinyTimes) / 1000) };

const result = { node: process.version, reps, synthetic, real, files };
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  const f = (x: number) => x.toFixed(0);
  console.log(`## 100-page text PDF (Node ${process.version}, median of ${reps})\n`);
  console.log('| stage | ms |\n| --- | ---: |');
  console.log(`| load pdf.js (first PDF only) | ${f(loadMs)} |`);
  for (const [k, v] of [['extract', synthetic.extractMs], ['chunk', synthetic.chunkMs], ['BM25 index', synthetic.indexMs], ['calibrate (CDF)', synthetic.calibrateMs], ['total (extract → calibrate)', synthetic.totalMs]] as const) console.log(`| ${k} | ${f(v)} |`);
  console.log(`\n${synthetic.pages} pages → ${synthetic.chunks} chunks; extraction ${synthetic.pagesPerSecond.toFixed(1)} pages/s; bar ≤ 5,000 ms in the worker: ${synthetic.totalMs <= 5000 ? 'met' : 'NOT met'} in Node\n`);
  console.log('## Real PDFs (extraction)\n\n| file | pages | ms | pages/s |\n| --- | ---: | ---: | ---: |');
  for (const r of real) console.log(`| ${r.file} | ${r.pages} | ${f(r.ms)} | ${r.pagesPerSecond.toFixed(1)} |`);
  console.log(`\n## 5,000 tiny text files\n\n${f(files.ms)} ms: ${f(files.filesPerSecond)} files/s`);
}
