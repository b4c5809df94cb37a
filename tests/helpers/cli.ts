/** Runs the `rag-lab` CLI as a child process (the real bin shim) and returns its exit code and output. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'cli/rag-lab.js');

export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
