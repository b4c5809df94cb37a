/**
 * Picked and dropped files (src/ui/build/build-files.ts) with stand-ins for the browser's entries API: dropped folders are
 * read recursively with their paths, `readEntries` is called until it gives an empty batch, items without an entry
 * fall back to `getAsFile`, and an unreadable entry is reported while the others are kept.
 */
import { describe, expect, test } from 'vitest';
import { pickedFromDrop, pickedFromList } from '../../src/ui/build/build-files.ts';

const f = (name: string, text = name) => new File([text], name);

function fileEntry(fullPath: string, fail = false): FileSystemFileEntry {
  const name = fullPath.split('/').at(-1)!;
  return {
    isFile: true, isDirectory: false, name, fullPath,
    file: (ok: (x: File) => void, bad?: (e: DOMException) => void) => (fail ? bad?.(new DOMException('gone', 'NotFoundError')) : ok(f(name))),
  } as unknown as FileSystemFileEntry;
}

/** A folder whose reader hands out its children two at a time (browsers give batches of up to 100). */
function dirEntry(fullPath: string, children: FileSystemEntry[]): FileSystemDirectoryEntry & { reads: number } {
  const dir = {
    isFile: false, isDirectory: true, name: fullPath.split('/').at(-1)!, fullPath, reads: 0,
    createReader: () => {
      let at = 0;
      return { readEntries: (ok: (x: FileSystemEntry[]) => void) => { dir.reads++; const batch = children.slice(at, at + 2); at += batch.length; ok(batch); } };
    },
  };
  return dir as unknown as FileSystemDirectoryEntry & { reads: number };
}

function transfer(items: { entry: FileSystemEntry | null; file?: File }[], files: File[] = []): DataTransfer {
  return {
    items: items.map((x) => ({ kind: 'file', webkitGetAsEntry: () => x.entry, getAsFile: () => x.file ?? null })),
    files,
  } as unknown as DataTransfer;
}

describe('picked files', () => {
  test('an input keeps the folder path of a folder pick, else the file name', () => {
    const inFolder = f('b.txt');
    Object.defineProperty(inFolder, 'webkitRelativePath', { value: 'docs/sub/b.txt' });
    expect(pickedFromList([f('a.md'), inFolder]).map((p) => p.path)).toEqual(['a.md', 'docs/sub/b.txt']);
    expect(pickedFromList(null)).toEqual([]);
  });

  test('a dropped folder is read recursively, in every batch, with its paths', async () => {
    const sub = dirEntry('/docs/sub', [fileEntry('/docs/sub/c.txt')]);
    const docs = dirEntry('/docs', [fileEntry('/docs/a.md'), sub, fileEntry('/docs/b.html'), fileEntry('/docs/d.pdf'), fileEntry('/docs/e.txt')]);
    const { files, problems } = await pickedFromDrop(transfer([{ entry: fileEntry('/top.txt') }, { entry: docs }]));
    expect(files.map((x) => x.path)).toEqual(['top.txt', 'docs/a.md', 'docs/sub/c.txt', 'docs/b.html', 'docs/d.pdf', 'docs/e.txt']);
    expect(await files[2]!.file.text()).toBe('c.txt');
    expect(problems).toEqual([]);
    expect(docs.reads).toBe(4); // 5 entries in batches of 2, then the empty batch that ends it
  });

  test('an item without an entry is taken as a file; an unreadable entry is reported, the rest kept', async () => {
    const { files, problems } = await pickedFromDrop(transfer([{ entry: null, file: f('loose.md') }, { entry: fileEntry('/gone.txt', true) }, { entry: fileEntry('/ok.txt') }]));
    expect(files.map((x) => x.path)).toEqual(['loose.md', 'ok.txt']);
    expect(problems).toEqual(['gone.txt: could not be read (gone).']);
  });

  test('a drop with no items falls back to its file list', async () => {
    expect((await pickedFromDrop(transfer([], [f('x.txt')]))).files.map((x) => x.path)).toEqual(['x.txt']);
  });
});
