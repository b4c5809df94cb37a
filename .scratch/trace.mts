import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serveStatic } from '../tests/helpers/static-server.ts';
const site = await serveStatic(resolve(import.meta.dirname, '../dist'), '/spaces/rag-lab/');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const warm = await browser.newContext({ serviceWorkers: 'block' }); const wp = await warm.newPage(); await wp.goto(site.url); await wp.locator('[data-testid=kb-info]').waitFor(); await warm.close();
const ctx = await browser.newContext({ serviceWorkers: 'block' });
const page = await ctx.newPage();
await browser.startTracing(page, { path: '/tmp/trace.json', categories: ['devtools.timeline', 'v8', 'v8.execute', 'disabled-by-default-devtools.timeline', 'toplevel', '__metadata', 'blink', 'loading'] });
await page.goto(site.url + (process.argv[2] ?? ''));
await page.locator('[data-testid=kb-info]').waitFor();
await page.waitForTimeout(1000);
await browser.stopTracing();
await browser.close(); await site.close();
const ev = JSON.parse(readFileSync('/tmp/trace.json', 'utf8')).traceEvents as any[];
const names = new Map<string, string>();
for (const e of ev) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
const top: Record<string, number> = {}; const kinds: Record<string, Record<string, number>> = {};
for (const e of ev) {
  if (e.ph !== 'X' || !e.dur) continue;
  const t = names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`;
  const key = `${t} (${e.pid}:${e.tid})`;
  if (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') top[key] = (top[key] ?? 0) + e.dur / 1000;
  if (['v8.compile', 'v8.compileModule', 'V8.CompileCode', 'v8.run', 'EvaluateScript', 'v8.evaluateModule', 'FunctionCall', 'MajorGC', 'MinorGC', 'V8.GC_MARK_COMPACTOR', 'ParseHTML', 'Layout', 'UpdateLayoutTree', 'Paint', 'v8.parseOnBackground', 'V8.ScavengeTask', 'ScriptEvaluation'].includes(e.name)) {
    (kinds[key] ??= {})[e.name] = ((kinds[key] ??= {})[e.name] ?? 0) + e.dur / 1000;
  }
}
for (const [k, v] of Object.entries(top).sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(v.toFixed(0).padStart(6), 'ms', k, JSON.stringify(Object.fromEntries(Object.entries(kinds[k] ?? {}).map(([a, b]) => [a, Math.round(b)]))));
