/**
 * `npm test`: the browser (e2e) project as one vitest run, and beside it the type checks followed by the Node projects
 * (unit, integration) as another. The e2e run is the long one: it runs one file at a time in one shared Chromium
 * (vitest.config.ts, tests/helpers/browser.ts), and its pages wait on workers and local servers much of the time, so
 * the Node projects (one worker on 2 cores) fill the gaps beside it. Each line is prefixed with its run's name; the
 * exit code is non-zero when either failed (a type error stops both). Arguments are passed to both vitest runs
 * (e.g. `npm test -- --reporter=verbose`).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const vitest = resolve(root, 'node_modules/vitest/vitest.mjs');
const extra = process.argv.slice(2);

const vitestRun = (projects: string[]) => [vitest, 'run', ...projects.flatMap((p) => ['--project', p]), ...extra];

function run(name: string, command: string, args: string[]): { child: ReturnType<typeof spawn>; done: Promise<number> } {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
  const prefix = `[${name}] `;
  for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]] as const) {
    createInterface({ input: stream }).on('line', (line) => out.write(prefix + line + '\n'));
  }
  const done = new Promise<number>((resolveCode) => {
    child.on('error', (err) => { process.stderr.write(`${prefix}could not start ${command}: ${err.message}\n`); resolveCode(1); });
    child.on('close', (code, signal) => resolveCode(code ?? (signal ? 1 : 0)));
  });
  return { child, done };
}

const started = Date.now();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const e2e = run('e2e', process.execPath, vitestRun(['e2e']));
const node = run('check', npm, ['run', '-s', 'check']).done.then((code) => {
  if (code === 0) return run('node', process.execPath, vitestRun(['unit', 'unit-isolated', 'integration'])).done;
  e2e.child.kill('SIGTERM'); // a type error fails the suite now, not after the browser tests
  return code;
});
const codes = await Promise.all([e2e.done, node]);
const failed = codes.find((c) => c !== 0) ?? 0;
process.stdout.write(`\nnpm test: e2e ${codes[0] === 0 ? 'passed' : 'FAILED'}, type checks + unit + integration ${codes[1] === 0 ? 'passed' : 'FAILED'} (${Math.round((Date.now() - started) / 1000)} s)\n`);
process.exit(failed);
