/**
 * A `--kb` folder whose meta.json or index_config.json is a FIFO: refused by name at once (reading one would wait
 * forever), one line and exit 2 — the command runs in-process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { folderSource } from '../../cli/folder-source.ts';
import { searchCommand } from '../../cli/search.ts';
import { captureCommand } from '../helpers/cli.ts';

const HAS_MKFIFO = existsSync('/usr/bin/mkfifo');
const root = mkdtempSync(join(tmpdir(), 'rag-lab-fifo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folderWithFifo(name: string, file: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  execFileSync('/usr/bin/mkfifo', [join(dir, file)]);
  return dir;
}

describe.skipIf(!HAS_MKFIFO)('--kb folders with a FIFO in them', () => {
  it.each(['meta.json', 'index_config.json'])('%s as a FIFO: one line naming it, exit 2', async (file) => {
    const dir = folderWithFifo(file.replace('.', '-'), file);
    const r = await captureCommand(searchCommand, ['--kb', dir, 'anything']);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toMatch(new RegExp(`${file.replace('.', '\\.')}.*FIFO \\(named pipe\\), not a regular file: refused`));
    expect(r.error?.message.split('\n')).toHaveLength(1);
  });

  it('the folder source reads regular files only and does not list a FIFO', async () => {
    const dir = folderWithFifo('plain', 'chunks.parquet');
    const source = folderSource(dir);
    await expect(source.read('chunks.parquet')).rejects.toThrow(/chunks\.parquet.*is a FIFO \(named pipe\), not a regular file: refused/);
    expect(await source.list!('')).toEqual([]);
    mkdirSync(join(dir, 'sub'));
    await expect(source.read('sub')).rejects.toThrow(/sub.*is a folder, not a regular file/);
  });
});
