/**
 * Files the user picks or drops on the Build tab, with their paths relative to what was picked (a folder keeps its
 * name and subfolders: "docs/guide/intro.md"). Dropped folders are read through the entries API
 * (`webkitGetAsEntry`), recursively; `readEntries` gives a folder's entries in batches until an empty one.
 */

export interface PickedFile {
  path: string;
  file: File;
}

/** From an `<input type=file>` (a folder pick fills `webkitRelativePath`). */
export function pickedFromList(list: FileList | readonly File[] | null): PickedFile[] {
  return [...(list ?? [])].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject));

async function readFolder(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, out: PickedFile[], problems: string[]): Promise<void> {
  const path = entry.fullPath.replace(/^\/+/, '') || entry.name;
  try {
    if (entry.isFile) out.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
    else if (entry.isDirectory) for (const child of await readFolder(entry as FileSystemDirectoryEntry)) await walk(child, out, problems);
  } catch (e) {
    problems.push(`${path}: could not be read (${(e as Error).message || String(e)}).`);
  }
}

/**
 * What a drop holds: files and, recursively, the files of dropped folders. The items must be read before the drop
 * handler returns (the browser empties the DataTransfer afterwards), so the entries are taken synchronously first.
 */
export async function pickedFromDrop(dt: DataTransfer): Promise<{ files: PickedFile[]; problems: string[] }> {
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  for (const item of [...dt.items]) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  if (entries.length === 0 && loose.length === 0) loose.push(...dt.files);
  const files: PickedFile[] = pickedFromList(loose);
  const problems: string[] = [];
  for (const e of entries) await walk(e, files, problems);
  return { files, problems };
}
