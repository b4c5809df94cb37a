/**
 * `npm run bench:reports`: how long reports take, on synthetic 3,000-row RAGBench-validate reports
 * (tests/helpers/synthetic-reports.ts; 5 evaluators of different noise over the same questions):
 *   1. parse + validate one report's JSON text (parseReportText: JSON.parse, shape checks, valibot), Node;
 *   2. compareReports of the 5 reports (AUROC + 3 RMSEs; B = 10,000 resamples, R = 10,000 permutations), Node;
 *   3. with --browser: the same comparison in the app's compare worker in headless Chromium (the built app in
 *      dist/, from `npm run build`; the reports posted to the worker as the Compare tab does, timed in the page
 *      from the message to the answer, structured clone included).
 * Figures are medians of --reps runs (default 3). Options: --rows N (default 3000), --reports N (default 5),
 * --iterations N, --permutations N, --browser, --json.
 *
 * Extending: add a `Section` to SECTIONS (a name and a function returning rows of { what, ms, note? }).
 */
import { existsSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareReports } from '../src/lib/reports/compare.ts';
import { parseReportText, serializeReport, type Report } from '../src/lib/reports/format.ts';
import { syntheticReport } from '../tests/helpers/synthetic-reports.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (m: string) => process.stderr.write(`[bench-reports] ${m}\n`);
const now = () => performance.now();

interface Args { rows: number; reports: number; iterations: number; permutations: number; reps: number; browser: boolean; json: boolean }
interface Row { what: string; ms: number; cpuMs?: number; note?: string }
interface Section { name: string; enabled(a: Args): boolean; run(a: Args, reports: Report[]): Promise<Row[]> }

function parse(): Args {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '3000' }, reports: { type: 'string', default: '5' }, iterations: { type: 'string', default: '10000' },
      permutations: { type: 'string', default: '10000' }, reps: { type: 'string', default: '3' }, browser: { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
    },
  });
  const int = (k: keyof typeof values) => {
    const n = Number(values[k]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${k} must be a positive integer`);
    return n;
  };
  return { rows: int('rows'), reports: Math.max(2, int('reports')), iterations: int('iterations'), permutations: int('permutations'), reps: int('reps'), browser: values.browser, json: values.json };
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]!; };
/** Median wall time and median CPU time of this process (user + system): on a busy machine the CPU time is the figure. */
async function timed(reps: number, f: () => unknown | Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const t: number[] = [], c: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = now();
    const c0 = process.cpuUsage();
    await f();
    const dc = process.cpuUsage(c0);
    t.push(now() - t0);
    c.push((dc.user + dc.system) / 1000);
  }
  return { ms: median(t), cpuMs: median(c) };
}

/** A fixed loop (10⁸ integer adds; ≈ 40–60 ms on an idle current x86 core) to read the figures against this machine's speed. */
function reference(): number {
  const t0 = now();
  let x = 0;
  for (let i = 0; i < 1e8; i++) x += i & 7;
  if (x < 0) log('impossible');
  return now() - t0;
}

const SECTIONS: Section[] = [
  {
    name: 'reference',
    enabled: () => true,
    async run(a) {
      return [{ what: 'reference loop (10⁸ integer adds; ≈ 40–60 ms on an idle current x86 core)', ...(await timed(a.reps, reference)) }];
    },
  },
  {
    name: 'open a report (Node)',
    enabled: () => true,
    async run(a, reports) {
      const text = serializeReport(reports[0]!);
      const t = await timed(a.reps, () => { const p = parseReportText(text); if (!p.ok) throw new Error(p.message); });
      return [{ what: `parse + validate one ${a.rows}-row report (${(text.length / 1e6).toFixed(1)} MB of JSON)`, ...t }];
    },
  },
  {
    name: 'compare (Node)',
    enabled: () => true,
    async run(a, reports) {
      const t = await timed(a.reps, () => { const r = compareReports(reports, { iterations: a.iterations, permutations: a.permutations }); if (!r.ok) throw new Error(r.message); });
      return [{ what: `compareReports of ${a.reports} reports × ${a.rows} rows (B = ${a.iterations}, R = ${a.permutations})`, ...t }];
    },
  },
  {
    name: 'compare (Chromium, compare worker)',
    enabled: (a) => a.browser,
    async run(a, reports) {
      const dist = join(REPO_ROOT, 'dist');
      const assets = existsSync(join(dist, 'assets')) ? readdirSync(join(dist, 'assets')) : [];
      const worker = assets.find((f) => /^compare\.worker.*\.js$/.test(f));
      if (!worker) throw new Error('--browser needs the built app with the compare worker: run `npm run build` first');
      const { serveStatic } = await import('../tests/helpers/static-server.ts');
      const { launchBrowser } = await import('../tests/helpers/browser.ts');
      const site = await serveStatic(dist, '/app/');
      const b = await launchBrowser();
      try {
        const page = await b.context.newPage();
        await page.goto(site.url);
        // Comlink's wire format: an APPLY message of `compare` with raw arguments, answered with the raw result.
        // A string, not a function: tsx's transform would add helpers (__name) the page does not have.
        await page.evaluate(`window.__benchInput = ${JSON.stringify({ url: `${site.url}assets/${worker}`, reports, opts: { iterations: a.iterations, permutations: a.permutations }, reps: a.reps })}`);
        const times = await page.evaluate(`(async () => {
          const { url, reports, opts, reps } = window.__benchInput;
          const timesWith = async (helper) => {
          const w = new Worker(url, { type: 'module' });
          const w2 = helper ? new Worker(url, { type: 'module' }) : null;
          if (w2) {
            // The app's compare client: a second compare worker on a channel runs the randomization half.
            const ch = new MessageChannel();
            w2.postMessage({ id: 'serve', type: 'APPLY', path: ['serveAsHelper'], argumentList: [{ type: 'RAW', value: ch.port2 }] }, [ch.port2]);
            w.postMessage({ id: 'attach', type: 'APPLY', path: ['attachHelper'], argumentList: [{ type: 'RAW', value: ch.port1 }] }, [ch.port1]);
          }
          const out = [];
          for (let r = 0; r < reps; r++) {
            const id = 'bench-' + r;
            const t0 = performance.now();
            const res = await new Promise((ok) => {
              const on = (e) => { if (e.data && e.data.id === id) { w.removeEventListener('message', on); ok(e.data.value); } };
              w.addEventListener('message', on);
              w.postMessage({ id, type: 'APPLY', path: ['compare'], argumentList: [{ type: 'RAW', value: reports }, { type: 'RAW', value: opts }] });
            });
            if (!res.ok) throw new Error(res.message);
            out.push(performance.now() - t0);
          }
          w.terminate();
          w2?.terminate();
          return out;
          };
          return [await timesWith(false), await timesWith(true)];
        })()`) as [number[], number[]];
        const version = b.context.browser()?.version() ?? '';
        return [
          { what: `the same comparison in one compare worker (Chromium ${version})`, ms: median(times[0]), note: 'message to answer, structured clone of the reports included' },
          { what: `the same in the app's compare client: two workers, bootstrap and randomization halves at once (Chromium ${version})`, ms: median(times[1]), note: 'message to answer' },
        ];
      } finally {
        await b.close();
        await site.close();
      }
    },
  },
];

const line = (r: Row) => `${r.ms.toFixed(0)} ms${r.cpuMs !== undefined ? ` (CPU ${r.cpuMs.toFixed(0)} ms)` : ''}${r.note ? ` (${r.note})` : ''}`;
const args = parse();
log(`building ${args.reports} synthetic reports of ${args.rows} rows…`);
const reports = Array.from({ length: args.reports }, (_, i) => syntheticReport({ id: `bench-report-${i}`, rows: args.rows, noise: 0.1 + 0.05 * i, seed: i + 1, title: `evaluator ${i}` }));
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}, Node ${process.version}`;
const results: Array<Row & { section: string }> = [];
for (const s of SECTIONS.filter((x) => x.enabled(args))) {
  for (const row of await s.run(args, reports)) {
    results.push({ section: s.name, ...row });
    log(`${s.name}: ${row.what}: ${line(row)}`);
  }
}
if (args.json) console.log(JSON.stringify({ machine, reps: args.reps, results }));
else {
  console.log(`Reports bench (${machine}; median of ${args.reps})`);
  for (const r of results) console.log(`  ${r.what}: ${line(r)}`);
}
