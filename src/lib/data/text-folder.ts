/**
 * Documents from a folder of plain-text and Markdown files (`rag-lab build-index --data <folder>`, later uploads).
 * Pure: it takes the files' relative paths and texts; walking a folder is the caller's (the CLI's) business.
 *
 * Each `.txt` / `.md` / `.markdown` file (case-insensitive) is one document: id = its relative path with `/`
 * separators, title = the first Markdown heading of a Markdown file (ATX `# Title` or setext `Title\n===`, outside
 * fenced code), else the file name without its extension; meta `{ format: 'txt' | 'md' }`. Files with other
 * extensions and files holding only white space are skipped (and listed). Documents are in path order, so the same
 * folder gives the same knowledge base on every machine.
 */
import { DataError } from './beir.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import type { MetaField } from './kb-source.ts';

export interface TextFile {
  /** Path relative to the folder (either separator). */
  path: string;
  text: string;
}

export interface TextFolderDocuments {
  docs: SourceDocument[];
  /** Relative paths of text files skipped because they hold only white space. */
  empty: string[];
  /** Relative paths of files that are not .txt or .md. */
  ignored: string[];
}

/** The metadata schema of text-folder documents. */
export const TEXT_FOLDER_FIELDS: readonly MetaField[] = Object.freeze([{ name: 'format', label: 'Format', type: 'string' }]);

/** 'md', 'txt', or null for a file that is not one of ours. */
export function textFormatOf(path: string): 'md' | 'txt' | null {
  const ext = /\.([^./\\]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext === 'txt' ? 'txt' : ext === 'md' || ext === 'markdown' ? 'md' : null;
}

const ATX = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** The text of the first Markdown heading outside fenced code, or null. */
export function firstMarkdownHeading(text: string): string | null {
  const lines = text.split(/\r?\n/);
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line)?.[1];
    if (f) {
      if (fence === null) fence = f;
      else if (f === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const atx = ATX.exec(line);
    if (atx && atx[1]!.trim()) return atx[1]!.trim();
    // A setext underline makes the paragraph line above it a heading (a lone `---` after a blank line is a rule).
    const next = lines[i + 1];
    if (line.trim() && next !== undefined && SETEXT.test(next) && !ATX.test(line)) return line.trim();
  }
  return null;
}

/** The file name without folders and extension ("notes/Report 2024.md" → "Report 2024"). */
export const fileTitle = (path: string) => (path.split('/').pop() ?? path).replace(/\.[^.]+$/, '');

/** The documents of a folder's files (see the module comment). Throws DataError when none is usable. */
export function textFolderDocuments(files: readonly TextFile[], folder = 'the folder'): TextFolderDocuments {
  const docs: SourceDocument[] = [];
  const empty: string[] = [];
  const ignored: string[] = [];
  const sorted = files.map((f) => ({ path: f.path.replaceAll('\\', '/').replace(/^\.\//, ''), text: f.text }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    const format = textFormatOf(f.path);
    if (!format) { ignored.push(f.path); continue; }
    if (!f.text.trim()) { empty.push(f.path); continue; }
    const title = (format === 'md' ? firstMarkdownHeading(f.text) : null) ?? fileTitle(f.path);
    docs.push({ id: f.path, title, text: f.text, meta: { format } });
  }
  if (docs.length === 0) {
    throw new DataError(folder, null, empty.length > 0
      ? `every .txt / .md file is empty (${empty.length} files)`
      : 'no .txt or .md file found (a text folder holds .txt or .md files, in subfolders too)');
  }
  return { docs, empty, ignored };
}
