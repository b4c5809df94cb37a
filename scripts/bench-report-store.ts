/**
 * `npm run bench:report-store -- [--rows 3000] [--reports 20] [--iterations 100]`: what saved reports cost (issue 11's bar: open a
 * 3,000-row report ≤ 1 s). Node with fake-indexeddb (the IndexedDbReportStore code as the browser runs it; the
 * fake's structured clone is slower than Chromium's). Rows are RAGBench's test rows (question, response, documents
 * as contexts; read by path from ../shared/data/ragbench/test or RAG_LAB_RAGBENCH, cycled to --rows), with four
 * random scores and gold labels. Prints a Markdown table.
 */
import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDB } from 'idb';
import { buildReport } from '../src/lib/reports/build.ts';
import { reportCsv, reportMarkdown } from '../src/lib/reports/export.ts';
import { ReportFinder, rowFinder } from '../src/lib/reports/find.ts';
import { serializeReport, type ReportRow } from '../src/lib/reports/format.ts';
import { IndexedDbReportStore, REPORT_STORES } from '../src/lib/reports/report-store.ts';
import { seededRandom } from '../src/lib/random.ts';

const arg = (name: string, dflt: number) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const ROWS = arg('rows', 3000);
const REPORTS = arg('reports', 20);
/** Summary resamples of the test report (the app uses 1000; building is not what this measures). */
const ITER = arg('iterations', 100);

const rand = seededRandom(11);
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../shared/data/ragbench/test');
const source = readdirSync(DATA).filter((f) => f.endsWith('.jsonl')).flatMap((f) => readFileSync(join(DATA, f), 'utf8').split('\n').filter(Boolean).map((l) => ({ group: f.replace('.jsonl', ''), ...(JSON.parse(l) as { question: string; response: string; documents: string[] }) })));
const row = (i: number): ReportRow => {
  const s = source[i % source.length]!;
  return {
    key: `${s.group}:q${i}`, group: s.group, question: s.question, answer: s.response, contexts: s.documents.slice(0, 200),
    scores: { relevance: rand(), utilization: rand(), adherence: rand(), completeness: rand() },
    gold: { relevance: rand(), utilization: rand(), completeness: rand(), adherence: rand() < 0.7 },
  };
};

const time = async <T>(f: () => Promise<T> | T): Promise<[T, number]> => { const t = performance.now(); const x = await f(); return [x, performance.now() - t]; };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const rows = Array.from({ length: ROWS }, (_, i) => row(i));
  const [report, buildMs] = await time(() => buildReport({
    kind: 'ragbench-validate', evaluator: 'lexical', config: { mode: 'validate' }, configHash: 'abcdef012345', seed: 1, n: null, rows,
    data: { dataset: 'rungalileo/ragbench', revision: null, subsets: [...new Set(rows.map((r) => r.group))], source: 'local', kb: null },
    environment: { app: 'bench', runtime: 'node', agent: process.version, models: [], llm: null, judge: null }, iterations: ITER,
  }));
  const bytes = serializeReport(report).length;
  const db = openDB('bench-reports', 1, { upgrade(d) { for (const s of Object.values(REPORT_STORES)) d.createObjectStore(s, { keyPath: 'key' }); } });
  const store = new IndexedDbReportStore({ db: () => db });
  const putMs: number[] = [];
  for (let i = 0; i < REPORTS; i++) putMs.push((await time(() => store.put({ ...report, id: `bench-report-${i}` }, 'run')))[1]);
  const listMs: number[] = [];
  for (let i = 0; i < 5; i++) listMs.push((await time(() => store.list()))[1]);
  const getMs: number[] = [];
  for (let i = 0; i < 5; i++) getMs.push((await time(() => store.get(`bench-report-${i}`)))[1]);
  const textsMs: number[] = [];
  for (let i = 0; i < 5; i++) textsMs.push((await time(() => store.findTexts(`bench-report-${i}`)))[1]);
  const find = rowFinder(report.rows);
  const [, firstFind] = await time(() => find('ambient mod'));
  const [, nextFind] = await time(() => find('brightnes'));
  const finder = new ReportFinder();
  const [, listIndex] = await time(() => { for (let i = 0; i < 5; i++) finder.set(`r${i}`, { title: `run ${i}`, notes: '' }, report.rows); });
  const [, listFind] = await time(() => finder.find('ambient'));
  const [, csvMs] = await time(() => reportCsv(report));
  const [, mdMs] = await time(() => reportMarkdown(report));
  const f = (x: number) => `${x.toFixed(0)} ms`;
  console.log(`Reports: ${ROWS} rows (${(bytes / 1e6).toFixed(1)} MB of JSON), ${REPORTS} saved; Node ${process.version}, fake-indexeddb\n`);
  console.log('| step | time |\n| --- | --- |');
  console.log(`| buildReport (summary, ${ITER} bootstrap resamples) | ${f(buildMs)} |`);
  console.log(`| put (serialize + SHA-256 + one transaction), median | ${f(median(putMs))} |`);
  console.log(`| list of ${REPORTS} (entries only), median | ${f(median(listMs))} |`);
  console.log(`| open: get (read + checksum + parse + schema check), median | ${f(median(getMs))} |`);
  console.log(`| find texts of one report (questions and answers), median | ${f(median(textsMs))} |`);
  console.log(`| rowFinder first query (builds the index) | ${f(firstFind)} |`);
  console.log(`| rowFinder next query | ${f(nextFind)} |`);
  console.log(`| ReportFinder: index 5 reports' rows / one query | ${f(listIndex)} / ${f(listFind)} |`);
  console.log(`| CSV export / Markdown export | ${f(csvMs)} / ${f(mdMs)} |`);
}

await main();
