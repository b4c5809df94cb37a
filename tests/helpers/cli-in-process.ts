/**
 * `rag-lab <command>` in the test's own process (cli/run.ts, without cli/main.ts's process guards): what it writes
 * to stdout and stderr (process.stdout/stderr.write and console.*) and its exit code, with env overrides for the
 * run. Runs are queued, one at a time, since they share the process's streams, env and exit code.
 */
import { format } from 'node:util';
import { isWasmFsLog, runCli } from '../../cli/run.ts';

export interface InProcessRun { code: number; stdout: string; stderr: string }

type Write = NodeJS.WriteStream['write'];
const CONSOLE = ['log', 'info', 'debug', 'error', 'warn'] as const;

let queue: Promise<unknown> = Promise.resolve();

export function runInProcess(args: string[], env: Record<string, string> = {}): Promise<InProcessRun> {
  const next = queue.then(() => runNow(args, env));
  queue = next.catch(() => undefined);
  return next;
}

/** A write of a stream that appends to `into` (and calls the write's callback, as a stream would). */
function capture(into: string[]): Write {
  return ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = typeof encoding === 'function' ? encoding : cb;
    if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
    return true;
  }) as Write;
}

async function runNow(args: string[], env: Record<string, string>): Promise<InProcessRun> {
  const out: string[] = [];
  const err: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const saved = {
    writes: streams.map((s) => s.write),
    tty: streams.map((s) => Object.getOwnPropertyDescriptor(s, 'isTTY')),
    console: CONSOLE.map((k) => console[k]),
    env: Object.keys(env).map((k) => [k, process.env[k]] as const),
    exitCode: process.exitCode,
    sigint: process.listeners('SIGINT'),
  };
  // As a child process with pipes for stdout and stderr: no terminal, whatever the test runner's streams are.
  for (const s of streams) Object.defineProperty(s, 'isTTY', { value: false, configurable: true, writable: true });
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  const line = (into: string[]) => (...a: unknown[]) => { into.push(`${format(...a)}\n`); };
  console.log = (...a: unknown[]) => line(isWasmFsLog(a) ? err : out)(...a);
  console.info = line(out);
  console.debug = line(out);
  console.error = line(err);
  console.warn = line(err);
  Object.assign(process.env, env);
  process.exitCode = undefined;
  try {
    const code = await runCli(args);
    return { code: code ?? Number(process.exitCode ?? 0), stdout: out.join(''), stderr: err.join('') };
  } finally {
    streams.forEach((s, i) => {
      s.write = saved.writes[i]!;
      const tty = saved.tty[i];
      if (tty) Object.defineProperty(s, 'isTTY', tty);
      else delete (s as { isTTY?: boolean }).isTTY;
    });
    CONSOLE.forEach((k, i) => { console[k] = saved.console[i]!; });
    for (const [k, v] of saved.env) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.exitCode = saved.exitCode;
    for (const l of process.listeners('SIGINT')) if (!saved.sigint.includes(l)) process.off('SIGINT', l);
  }
}
