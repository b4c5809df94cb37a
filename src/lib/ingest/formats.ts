/** Which of the ingester's formats a file is, from its name (case-insensitive), and its path as documents name it. */
import { textFormatOf } from '../data/text-folder.ts';

export type FileFormat = 'pdf' | 'txt' | 'md' | 'html';

/** 'pdf', 'txt', 'md' (.md, .markdown), 'html' (.html, .htm), or null for a file that is not one of ours. */
export function fileFormatOf(path: string): FileFormat | null {
  const text = textFormatOf(path);
  if (text) return text;
  const ext = /\.([^./\\]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext === 'pdf' ? 'pdf' : ext === 'html' || ext === 'htm' ? 'html' : null;
}

export const UNKNOWN_FORMAT = 'not a PDF, TXT, MD or HTML file';

/** A dropped or read file's path as ids and `meta.file` carry it: `/` separators, no leading `./` or `/`. */
export const normalisePath = (path: string) => path.replaceAll('\\', '/').replace(/^(?:\.\/|\/)+/, '');
