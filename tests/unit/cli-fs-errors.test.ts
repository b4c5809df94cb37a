/** The CLI's file access: one line per file-system fault, BOMs removed, output paths checked up front. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../cli/args.ts';
import { checkInputDir, checkOutputDir, checkOutputFile, fsErrorLine, readText, stripBom, writeText } from '../../cli/fs-errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'rag-lab-fs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'a.txt');
writeFileSync(file, '\uFEFFhello\n');
mkdirSync(join(dir, 'sub'));

/** The CliError `fn` throws (fails the test when it throws none). */
function cliError(fn: () => void): CliError {
  try { fn(); } catch (e) { if (e instanceof CliError) return e; throw e; }
  throw new Error('no CliError');
}

describe('reading and writing', () => {
  it('removes one leading BOM only', () => {
    expect(stripBom('\uFEFF{"a":1}')).toBe('{"a":1}');
    expect(stripBom('x\uFEFF')).toBe('x\uFEFF');
    expect(readText(file)).toBe('hello\n');
  });

  it('turns ENOENT, EISDIR, ENOTDIR and ENOSPC into one line naming the file, exit code 2', () => {
    const cases: Array<[() => void, string]> = [
      [() => readText(join(dir, 'missing.txt')), `${join(dir, 'missing.txt')}: not found`],
      [() => readText(join(dir, 'sub')), `${join(dir, 'sub')}: is a folder, not a file`],
      [() => readText(join(file, 'x')), `${join(file, 'x')}: a part of the path is a file, not a folder`],
      [() => writeText('/dev/full', 'x'), '/dev/full: no space left on the device'],
    ];
    for (const [fn, line] of cases) {
      const e = cliError(fn);
      expect(e.message).toBe(line);
      expect(e.exitCode).toBe(2);
    }
  });

  it('fsErrorLine is null for errors that are not file-system faults', () => {
    expect(fsErrorLine(new Error('boom'))).toBeNull();
    expect(fsErrorLine(Object.assign(new Error('x'), { code: 'EMFILE', path: '/p' }))).toBe('/p: too many open files (raise the limit with ulimit -n)');
  });
});

describe('checks before long work', () => {
  it('an output file: its folder must exist, it must not be a folder', () => {
    expect(() => checkOutputFile(join(dir, 'new.run'), '--run-out')).not.toThrow();
    expect(() => checkOutputFile(file, '--run-out')).not.toThrow();
    expect(cliError(() => checkOutputFile(join(dir, 'sub'), '--run-out')).message).toBe(`--run-out ${join(dir, 'sub')}: is a folder, not a file`);
    expect(cliError(() => checkOutputFile(join(dir, 'no/x.run'), '--run-out')).message).toBe(`--run-out ${join(dir, 'no/x.run')}: folder ${join(dir, 'no')} not found`);
    expect(cliError(() => checkOutputFile(join(file, 'x.run'), '--run-out')).message).toBe(`--run-out ${join(file, 'x.run')}: ${file} is a file, not a folder`);
  });

  it('an output folder may be created later, below a writable folder', () => {
    expect(() => checkOutputDir(join(dir, 'cache/vectors'), '--cache-dir')).not.toThrow();
    expect(cliError(() => checkOutputDir(join(file, 'vectors'), '--cache-dir')).message).toBe(`--cache-dir ${join(file, 'vectors')}: ${file} is a file, not a folder`);
  });

  it.skipIf(process.getuid?.() === 0)('an unwritable folder is "permission denied" (as a non-root user)', () => {
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    expect(cliError(() => checkOutputFile(join(ro, 'x.run'), '--run-out')).message).toBe(`${ro}: permission denied`);
  });

  it('an input folder must exist and be a folder', () => {
    expect(() => checkInputDir(dir, '--data', 'a BEIR folder')).not.toThrow();
    expect(cliError(() => checkInputDir(join(dir, 'none'), '--data', 'a BEIR folder')).message).toBe(`--data ${join(dir, 'none')}: folder not found (expected a BEIR folder)`);
    expect(cliError(() => checkInputDir(file, '--data', 'a BEIR folder')).message).toBe(`--data ${file}: is a file, not a folder (expected a BEIR folder)`);
  });
});
