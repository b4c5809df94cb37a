/**
 * CPU time over wall time of the timed phases, to see how many cores a configuration really kept busy (a thread
 * count that "worked" shows a ratio near it). Node: process.cpuUsage() (all of ONNX Runtime's threads). Chromium:
 * utime + stime from /proc of every process descended from this one (the browser Playwright started; the worker and
 * ONNX Runtime's pthread workers are threads of its renderer). Linux /proc only; elsewhere the ratios are null.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Phase } from './models-measure.ts';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function procTable(): Map<number, { ppid: number; cpuMs: number }> {
  const table = new Map<number, { ppid: number; cpuMs: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields after "pid (comm)": state ppid … utime (14th of the line) stime (15th).
      table.set(Number(name), { ppid: Number(f[1]), cpuMs: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      // the process ended while we looked
    }
  }
  return table;
}

/** CPU milliseconds of the processes descended from this one (not this one). */
export function descendantsCpuMs(): number | null {
  let table;
  try {
    table = procTable();
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  for (const [pid, p] of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  let total = 0;
  const stack = [...(children.get(process.pid) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    total += table.get(pid)?.cpuMs ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface CpuSpan { cpuMs: number; wallMs: number; cpuPerWall: number }
export interface CpuSpans { embed: CpuSpan | null; rerank: CpuSpan | null }

/** Records CPU and wall time at each phase mark; `spans()` gives CPU and wall time of each timed phase. */
export function cpuSampler(cpuMs: () => number | null): { mark(p: Phase): void; spans(): CpuSpans } {
  const at = new Map<Phase, { cpu: number | null; wall: number }>();
  const span = (a: Phase, b: Phase): CpuSpan | null => {
    const x = at.get(a), y = at.get(b);
    if (!x || !y || x.cpu === null || y.cpu === null || y.wall <= x.wall) return null;
    const cpu = y.cpu - x.cpu, wall = y.wall - x.wall;
    return { cpuMs: Math.round(cpu), wallMs: Math.round(wall), cpuPerWall: Math.round((cpu / wall) * 100) / 100 };
  };
  return {
    mark: (p) => { at.set(p, { cpu: cpuMs(), wall: performance.now() }); },
    spans: () => ({ embed: span('embed-start', 'embed-end'), rerank: span('rerank-start', 'rerank-end') }),
  };
}
