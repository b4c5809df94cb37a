/**
 * `npx tsx scripts/bench-report-view.ts`: what opening a report in the read-only view (ReportView.svelte) costs in
 * headless Chromium (the bar: a 3,000-row report opens in ≤ 1 s). Prints one Markdown table; --json prints
 * one JSON object.
 *
 * A page that holds only the view (a harness written to a temp dir under node_modules/.cache, built with vite and the svelte plugin, served
 * on loopback) is given a report's JSON text (made here with buildReport: validate kind, three subsets, seeded
 * random scores, 1000 bootstrap resamples) and times: parse + validate (parseReportText), mount of ReportView up to
 * the first paint (header, summary, the first 200 rows sorted; flushSync + a forced layout + one animation frame),
 * and until the three Plotly charts are drawn (data-rendered). The median of --reps opens (default 5) per size.
 *
 * Options: --rows N[,N…] (default 300,3000,10000), --reps N, --json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';
import { buildReport } from '../src/lib/reports/build.ts';
import { serializeReport, type ReportRow } from '../src/lib/reports/format.ts';
import { launchBrowser } from '../tests/helpers/browser.ts';
import { serveStatic } from '../tests/helpers/static-server.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = args.indexOf(name); return i >= 0 && args[i + 1] ? args[i + 1]! : def; };
const sizes = opt('--rows', '300,3000,10000').split(',').map(Number);
const reps = Math.max(1, Number(opt('--reps', '5')));
const json = args.includes('--json');
const root = resolve(import.meta.dirname, '..');

/** mulberry32: seeded uniform numbers in [0, 1). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function reportText(n: number): string {
  const rand = rng(n);
  const groups = ['covidqa', 'emanual', 'hotpotqa'];
  const rows: ReportRow[] = Array.from({ length: n }, (_, i) => {
    const gold = rand() > 0.2;
    const r3 = () => Math.round(rand() * 1000) / 1000;
    return {
      key: `${groups[i % 3]}:row-${i}`, group: groups[i % 3]!,
      question: `Question ${i}: how does feature ${i % 97} behave when the setting ${i % 13} is on?`,
      answer: `An answer of a few sentences for row ${i}. `.repeat(4),
      contexts: [`Document one of row ${i}. `.repeat(20), `Document two of row ${i}. `.repeat(20)],
      scores: { relevance: r3(), utilization: r3(), completeness: r3(), adherence: gold ? 0.4 + 0.6 * rand() : 0.7 * rand() },
      gold: { relevance: r3(), utilization: r3(), completeness: r3(), adherence: gold },
      reference: { ragas_faithfulness: r3(), trulens_groundedness: r3(), gpt3_adherence: r3() },
    };
  });
  return serializeReport(buildReport({
    kind: 'ragbench-validate', evaluator: 'lexical', config: { mode: 'validate' }, configHash: 'abcdef0123456789',
    data: { dataset: 'rungalileo/ragbench', revision: null, subsets: groups, source: 'local', kb: null }, seed: 0, n: null, rows,
    environment: { app: 'bench', runtime: 'node', agent: 'bench', models: [], llm: null, judge: null },
    baselines: groups.map((g) => ({ group: g, evaluator: 'ragas', metric: 'auroc', value: 0.6 })), title: `${n}-row report`,
  }));
}

const HARNESS_HTML = '<!doctype html><html><head><meta charset="utf-8"><title>report view bench</title></head><body><main id="app"></main><script type="module" src="./main.js"></script></body></html>';
const harnessJs = () => `
import { flushSync, mount, unmount } from 'svelte';
import ReportView from ${JSON.stringify(join(root, 'src/ui/components/ReportView.svelte'))};
import { parseReportText } from ${JSON.stringify(join(root, 'src/lib/reports/format.ts'))};
import ${JSON.stringify(join(root, 'src/ui/app.css'))};
let current = null;
window.openReport = async (text) => {
  if (current) { unmount(current); current = null; }
  await new Promise((r) => requestAnimationFrame(() => r()));
  const t0 = performance.now();
  const p = parseReportText(text);
  if (!p.ok) throw new Error(p.message);
  const t1 = performance.now();
  current = mount(ReportView, { target: document.getElementById('app'), props: { report: p.report } });
  flushSync();
  void document.body.offsetHeight;
  const tm = performance.now();
  await new Promise((r) => requestAnimationFrame(() => r()));
  const t2 = performance.now();
  while (!document.querySelector('[data-testid=charts][data-rendered=true]')) await new Promise((r) => setTimeout(r, 5));
  const t3 = performance.now();
  return { mountMs: tm - t1, parseMs: t1 - t0, viewMs: t2 - t1, openMs: t2 - t0, chartsMs: t3 - t0, domRows: document.querySelectorAll('[data-testid=bench-row]').length };
};
`;

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };

async function main() {
  // Under node_modules/.cache so that the harness's imports (svelte, plotly) resolve from the repository's packages.
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(root, 'node_modules/.cache/rag-lab-report-view-bench-'));
  try {
    writeFileSync(join(dir, 'index.html'), HARNESS_HTML);
    writeFileSync(join(dir, 'main.js'), harnessJs());
    process.stderr.write('building the harness…\n');
    await build({ root: dir, configFile: false, logLevel: 'warn', plugins: [svelte({ configFile: join(root, 'svelte.config.js') })], build: { outDir: join(dir, 'dist'), chunkSizeWarningLimit: 10_000 } });
    const site = await serveStatic(join(dir, 'dist'), '/');
    const browser = await launchBrowser();
    const out: Array<{ rows: number; bytes: number; mountMs: number; parseMs: number; viewMs: number; openMs: number; chartsMs: number; domRows: number }> = [];
    try {
      const page = await browser.context.newPage();
      await page.goto(site.url);
      await page.waitForFunction(() => 'openReport' in window);
      for (const n of sizes) {
        process.stderr.write(`${n} rows: building the report…\n`);
        const text = reportText(n);
        const runs: Array<Omit<(typeof out)[number], 'rows' | 'bytes'>> = [];
        // One warm-up open (Plotly's chunk, JIT), then the timed ones.
        for (let i = 0; i <= reps; i++) {
          const r = await page.evaluate((t) => (window as unknown as { openReport(t: string): Promise<Omit<(typeof out)[number], 'rows' | 'bytes'>> }).openReport(t), text);
          if (i > 0) runs.push(r);
        }
        out.push({
          rows: n, bytes: text.length, mountMs: median(runs.map((r) => r.mountMs)), parseMs: median(runs.map((r) => r.parseMs)), viewMs: median(runs.map((r) => r.viewMs)),
          openMs: median(runs.map((r) => r.openMs)), chartsMs: median(runs.map((r) => r.chartsMs)), domRows: runs[0]!.domRows,
        });
      }
    } finally {
      await browser.close();
      await site.close();
    }
    if (json) { console.log(JSON.stringify({ reps, results: out }, null, 1)); return; }
    console.log(`Report view in headless Chromium (median of ${reps} opens after one warm-up)\n`);
    console.log('| rows | JSON | parse + validate | view (first paint) | open total | + charts drawn | table rows in the DOM |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of out) console.log(`| ${r.rows} | ${(r.bytes / 1e6).toFixed(1)} MB | ${r.parseMs.toFixed(0)} ms | ${r.viewMs.toFixed(0)} ms (mount ${r.mountMs.toFixed(0)}) | ${r.openMs.toFixed(0)} ms | ${r.chartsMs.toFixed(0)} ms | ${r.domRows} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
