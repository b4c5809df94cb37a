// CPU per fresh page of the built site: sum over the Chromium process tree of utime+stime+cutime+cstime (dead children counted by their reaper).
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serveStatic } from '../tests/helpers/static-server.ts';
const HZ = 100;
function tree(rootPid: number) {
  const procs = new Map<number, { ppid: number; cpu: number; type: string }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(rest[1]);
      const cpu = Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      const type = /--type=([\w-]+)/.exec(cmd)?.[1] ?? (cmd.includes('chromium') ? 'browser' : 'other');
      const sub = /--utility-sub-type=([\w.]+)/.exec(cmd)?.[1];
      procs.set(Number(d), { ppid, cpu, type: sub ? `${type}:${sub.split('.').pop()}` : type });
    } catch {}
  }
  const inTree = (pid: number): boolean => { for (let p = pid, i = 0; p > 1 && i < 20; i++) { if (p === rootPid) return true; p = procs.get(p)?.ppid ?? 0; } return false; };
  const by: Record<string, number> = {};
  let total = 0;
  for (const [pid, p] of procs) if (inTree(pid)) { by[p.type] = (by[p.type] ?? 0) + p.cpu / HZ; total += p.cpu / HZ; }
  return { total, by };
}
const site = await serveStatic(resolve(import.meta.dirname, '../dist'), '/spaces/rag-lab/');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
const pid = Number(readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8').trim().split(' ').find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('chromium')));
const N = Number(process.argv[2] ?? 4);
const url = process.argv[3] ?? site.url;
const warm = await browser.newContext(); await (await warm.newPage()).goto(url); await (await warm.pages()[0]).locator('[data-testid=kb-info]').waitFor({ timeout: 120000 }); await warm.close();
const t0 = tree(pid); const w0 = Date.now();
for (let i = 0; i < N; i++) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(url);
  await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120000 });
  await page.waitForTimeout(300);
  await ctx.close();
}
await new Promise((r) => setTimeout(r, 500));
const t1 = tree(pid);
const by: Record<string, string> = {};
for (const k of new Set([...Object.keys(t0.by), ...Object.keys(t1.by)])) by[k] = (((t1.by[k] ?? 0) - (t0.by[k] ?? 0)) / N).toFixed(2);
console.log(`per page: ${((t1.total - t0.total) / N).toFixed(2)} s CPU, wall ${((Date.now() - w0) / N / 1000).toFixed(2)} s`, by);
await browser.close(); await site.close();
