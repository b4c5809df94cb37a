/**
 * `npm run bench:artifact -- --browser` (scripts/bench-artifact.ts): the built app (dist/) in headless Chromium,
 * opening the embedded corpus's artifact vs indexing it in the tab, and the 16.5k × 384 artifact from the loopback Hub.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveHubRepos } from '../../tests/helpers/hub-repo-server.ts';
import { serveStatic } from '../../tests/helpers/static-server.ts';
import { artifactRepoFiles } from '../sotu-artifact.ts';
import { sotuDescriptor } from '../../src/lib/data/sotu.ts';
import { denseFixture, DIM } from './artifact-fixture.ts';
import { log, mb, median, ms, now, type BrowserHubRow, type BrowserRow } from './artifact-report.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The built app in Chromium: navigation → the Search tab's kb-info (BM25 ready), with the shipped artifact and with
 * the in-tab build (index_config.json 404), each in a fresh profile (first visit) and then reloaded.
 */
export async function browserOpen(reps: number): Promise<BrowserRow[]> {
  const { existsSync } = await import('node:fs');
  const { launchBrowser } = await import('../../tests/helpers/browser.ts');
  const dist = join(REPO_ROOT, 'dist');
  if (!existsSync(join(dist, 'corpora/index_config.json'))) throw new Error('--browser needs the built app with the shipped artifact: run `npm run build` first');
  const site = await serveStatic(dist, '/app/');
  const rows: BrowserRow[] = [];
  try {
    for (const shipped of [true, false]) {
      const samples: Record<string, { wall: number; shown: number; source: string }[]> = { 'first visit': [], reload: [] };
      for (let r = 0; r < reps; r++) {
        const b = await launchBrowser();
        try {
          if (!shipped) await b.context.route('**/corpora/index_config.json', (x) => x.fulfill({ status: 404, body: 'not found' }));
          const page = await b.context.newPage();
          for (const visit of ['first visit', 'reload'] as const) {
            const t0 = now();
            if (visit === 'reload') await page.reload(); else await page.goto(site.url);
            const info = page.locator('[data-testid=kb-info]');
            await info.waitFor({ timeout: 180_000 });
            const wall = now() - t0;
            const text = await info.innerText();
            samples[visit]!.push({ wall, shown: Number(/in ([\d,]+) ms/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN), source: (await info.getAttribute('data-source')) ?? '?' });
          }
        } finally {
          await b.close();
        }
      }
      for (const [visit, xs] of Object.entries(samples)) {
        const row = { corpus: shipped ? 'shipped corpora/ artifact' : 'corpora/sotu.json, indexed in the tab', visit, wallMs: median(xs.map((x) => x.wall)), shownMs: median(xs.map((x) => x.shown)), source: xs[0]!.source };
        rows.push(row);
        log(`Chromium, ${row.corpus}, ${visit}: ${ms(row.wallMs)} ms to ready (worker says ${ms(row.shownMs)} ms, source ${row.source})`);
      }
    }
  } finally {
    await site.close();
  }
  return rows;
}

/**
 * The built app in Chromium opening the 16.5k × 384 artifact (int8, then float32; no HNSW; then the same chunks
 * without vectors, for the vectors' share) from the loopback Hub,
 * each rep in a fresh profile: the embedded corpus is indexed in the tab first (index_config.json answered 404, so
 * the shipped SOTU artifact does not fill the content-addressed file cache with the same parquet files), then
 *  - cold: the picker's Hub form lists the repo, the index option is clicked → its kb-info (knowledge base ready);
 *  - warm reload: page.reload() with kb= in the URL → ready (every file from the IndexedDB cache);
 *  - warm picker: the embedded corpus selected again, then the artifact from the picker's list → ready.
 * The worker's open reads the vectors (int8 codes or embeddings.npy, and the dense CDF) at open: download, SHA-256,
 * parse. Attaching them needs a 384-d query embedder, which does not exist offline: not included.
 */
export async function browserHubOpen(reps: number): Promise<BrowserHubRow[]> {
  const { existsSync } = await import('node:fs');
  const { launchBrowser } = await import('../../tests/helpers/browser.ts');
  const dist = join(REPO_ROOT, 'dist');
  if (!existsSync(join(dist, 'index.html'))) throw new Error('--browser needs the built app: run `npm run build` first');
  log('building the 16.5k × 384 int8 and float32 artifacts for the browser…');
  const { input, vectors, cdf, embedderMeta } = await denseFixture();
  const hub = await serveHubRepos();
  const site = await serveStatic(dist, '/app/');
  const rows: BrowserHubRow[] = [];
  try {
    for (const name of ['int8', 'float32', 'none (BM25 only)'] as const) {
      const int8 = name === 'int8';
      const title = `SOTU 16.5k × 384 ${name}`;
      const repo = `bench/sotu-${name.split(' ')[0]}`;
      const dense = name === 'none (BM25 only)' ? undefined : { vectors, dim: DIM, embedder: embedderMeta, cdf, int8, float32: !int8, hnsw: null };
      hub.addRepo(repo, await artifactRepoFiles({ ...input, title, dense }));
      const samples: Record<string, { wall: number; shown: number; bytes: number; requests: number }[]> = { 'cold (fresh profile, picker)': [], 'warm (reload, kb= link)': [], 'warm (picker again, same profile)': [] };
      for (let r = 0; r < reps; r++) {
        const b = await launchBrowser();
        try {
          await b.context.route('**/corpora/index_config.json', (x) => x.fulfill({ status: 404, body: 'not found' }));
          const page = await b.context.newPage();
          await page.addInitScript((url) => {
            const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
            localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, hubUrl: url, autoLoadModels: false }));
          }, `${hub.url}/`);
          const readyAs = async (t: string) => {
            await page.waitForFunction((t) => !document.querySelector('[data-testid=kb-pending]') && !!document.querySelector('[data-testid=kb-switch-error], [data-testid=load-error]')
              || (document.querySelector('[data-testid=kb-info]')?.textContent ?? '').trim().startsWith(`${t}:`), t, { timeout: 300_000 });
            const err = page.locator('[data-testid=kb-switch-error], [data-testid=load-error]');
            if (await err.count()) throw new Error(`${title}: ${await err.first().innerText()}`);
            return Number(/in ([\d,]+) ms/.exec(await page.locator('[data-testid=kb-info]').innerText())?.[1]?.replace(/,/g, '') ?? NaN);
          };
          const timed = async (open: string, act: () => Promise<void>) => {
            const mark = hub.requests.length;
            const t0 = now();
            await act();
            const shown = await readyAs(title);
            const wall = now() - t0;
            const reqs = hub.requests.slice(mark).filter((q) => q.method !== 'OPTIONS');
            samples[open]!.push({ wall, shown, bytes: reqs.reduce((a, q) => a + q.bytes, 0), requests: reqs.length });
          };
          await page.goto(site.url);
          await readyAs(sotuDescriptor.title);
          await page.locator('[data-testid=kb-picker] details.kb-hub summary').click();
          await page.locator('[data-testid=kb-hub-repo]').fill(repo);
          await page.locator('[data-testid=kb-hub-revision]').fill('main');
          await page.locator('[data-testid=kb-hub-open]').click();
          const option = page.locator('[data-testid=kb-index-option]').first();
          await option.waitFor({ timeout: 60_000 });
          await timed('cold (fresh profile, picker)', () => option.click());
          await timed('warm (reload, kb= link)', async () => { await page.reload(); });
          await page.locator('[data-testid=kb-select]').selectOption({ label: sotuDescriptor.title });
          await readyAs(sotuDescriptor.title);
          await timed('warm (picker again, same profile)', async () => { await page.locator('[data-testid=kb-select]').selectOption({ label: title }); });
        } finally {
          await b.close();
        }
      }
      for (const [open, xs] of Object.entries(samples)) {
        const row = { artifact: name, open, wallMs: median(xs.map((x) => x.wall)), shownMs: median(xs.map((x) => x.shown)), bytes: median(xs.map((x) => x.bytes)), requests: median(xs.map((x) => x.requests)) };
        rows.push(row);
        log(`Chromium, Hub ${name}, ${open}: ${ms(row.wallMs)} ms to ready (worker says ${ms(row.shownMs)} ms), ${mb(row.bytes)} MB in ${row.requests} requests`);
      }
    }
  } finally {
    await site.close();
    await hub.close();
  }
  return rows;
}
