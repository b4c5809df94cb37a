/**
 * Runs the `rag-lab` CLI for the tests: in this process (`runCli`, as cli/rag-lab.js would run it, minus the process
 * around it), or as a child process (the real bin shim) where the process boundary is what a test is about: plainly
 * with pipes, on a pseudo-terminal (util-linux `script`), or as an unprivileged user (to meet "permission denied"
 * when the tests run as root).
 */
import { execFile, spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { vi } from 'vitest';
import { CliError } from '../../cli/args.ts';
import { runInProcess } from './cli-in-process.ts';

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'cli/rag-lab.js');

export interface CliRun { code: number; stdout: string; stderr: string }

async function runFile(file: string, args: string[], env: Record<string, string>): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** `rag-lab …args` in this process, with `env` over process.env for the run: what it printed and its exit code. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runInProcess(args, env);
}

/** `rag-lab …args` as a child process with pipes, for a test of what only a fresh process shows. */
export function runCliProcess(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runFile(process.execPath, [CLI, ...args], env);
}

/** Starts the CLI with the given stdio (e.g. stdout to a file descriptor, or a pipe the test closes early). */
export function spawnCli(args: string[], stdio: StdioOptions = 'pipe', env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio });
}

/** The exit code of a child once it has ended. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((ok) => child.once('close', (code) => ok(code)));
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
export const HAS_SCRIPT = existsSync('/usr/bin/script');

/**
 * The CLI with stdout and stderr on a pseudo-terminal (both arrive in `stdout`, lines ending in \r\n as a
 * terminal shows them). Needs util-linux `script` (HAS_SCRIPT).
 */
export function runCliInTerminal(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return runFile('/usr/bin/script', ['-q', '-e', '-c', command, '/dev/null'], { SHELL: '/bin/sh', ...env });
}

/** Whether the tests can run the CLI as user `nobody` (65534): as root, with util-linux `setpriv`. */
export const CAN_DROP_PRIVILEGES = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');

const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/**
 * Why user 65534 cannot run the CLI from this checkout, or null when it can: a checkout inside a folder other
 * users cannot enter (a `mktemp -d` folder, a 0700 home) keeps it from `cli/rag-lab.js` and tsx ("Cannot find
 * module"), and a private temp folder from the tests' data. Asked once, as that user (CAN_DROP_PRIVILEGES only).
 */
let nobodyReason: string | null | undefined;
export function nobodyCannotRunCli(): string | null {
  if (nobodyReason !== undefined) return nobodyReason;
  const paths = [CLI, join(ROOT, 'node_modules/tsx/package.json'), join(ROOT, 'cli/main.ts')];
  const probe = `const fs = require('node:fs');
for (const p of JSON.parse(process.argv[1])) { try { fs.accessSync(p, fs.constants.R_OK); } catch (e) { console.log(p + ' (' + e.code + ')'); process.exit(0); } }
try { fs.accessSync(process.argv[2], fs.constants.X_OK); } catch (e) { console.log(process.argv[2] + ' (' + e.code + ')'); }`;
  const r = spawnSync('/usr/bin/setpriv', [...NOBODY, process.execPath, '-e', probe, JSON.stringify(paths), tmpdir()], { encoding: 'utf8' });
  const missing = r.status === 0 ? r.stdout.trim() : `the probe exited ${r.status ?? r.signal}: ${r.stderr.trim()}`;
  nobodyReason = missing ? `user 65534 cannot reach ${missing}: the checkout or the temp folder sits in a folder other users cannot enter` : null;
  return nobodyReason;
}

/** The CLI as user and group 65534 (CAN_DROP_PRIVILEGES), so file modes apply as to any user. */
export function runCliAsNobody(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runFile('/usr/bin/setpriv', [...NOBODY, process.execPath, CLI, ...args], { HOME: '/nonexistent', ...env });
}

/**
 * Runs a command function in this process, capturing console.log (stdout) and process.stderr; returns what was
 * printed and the CliError it threw (null when none). Other errors propagate.
 */
export async function captureCommand(command: (argv: string[]) => Promise<void>, args: string[]): Promise<{ out: string; err: string; error: CliError | null }> {
  const lines: string[] = [];
  const errs: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { lines.push(a.join(' ')); });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => { errs.push(String(c)); return true; });
  try {
    await command(args);
    return { out: lines.join('\n'), err: errs.join(''), error: null };
  } catch (e) {
    if (e instanceof CliError) return { out: lines.join('\n'), err: errs.join(''), error: e };
    throw e;
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}
