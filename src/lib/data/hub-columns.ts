/**
 * A Hub dataset's parquet columns in words (types, values as text or metadata) and the guess of which column is the
 * id, title, text and metadata; used by hub-dataset.ts.
 */
import { parquetSchema, type FileMetaData, type SchemaTree } from 'hyparquet';
import type { ColumnMapping, HubDatasetColumn } from './hub-dataset-types.ts';

/** A metadata value that is not a string or number is JSON, cut at this many characters. */
const META_JSON_CHARS = 200;
/** A metadata string is cut at this many characters. */
const META_STRING_CHARS = 500;

/** A parquet column's type in words: "string", "int64", "list<string>", "struct", … */
export function typeInWords(node: SchemaTree): string {
  const e = node.element;
  const lt = e.logical_type?.type;
  if (node.children.length > 0) {
    if (lt === 'LIST' || e.converted_type === 'LIST') {
      const inner = node.children[0]!;
      return `list<${typeInWords(inner.children.length === 1 ? inner.children[0]! : inner)}>`;
    }
    if (lt === 'MAP' || e.converted_type === 'MAP' || e.converted_type === 'MAP_KEY_VALUE') return 'map';
    return 'struct';
  }
  if (e.repetition_type === 'REPEATED') return `list<${typeInWords({ ...node, element: { ...e, repetition_type: 'REQUIRED' } })}>`;
  if (lt === 'STRING' || e.converted_type === 'UTF8' || lt === 'ENUM' || e.converted_type === 'ENUM') return 'string';
  if (lt === 'JSON' || e.converted_type === 'JSON') return 'json';
  if (lt === 'DATE' || e.converted_type === 'DATE') return 'date';
  if (lt === 'TIMESTAMP' || e.converted_type?.startsWith('TIMESTAMP')) return 'timestamp';
  if (lt === 'DECIMAL' || e.converted_type === 'DECIMAL') return 'decimal';
  switch (e.type) {
    case 'BOOLEAN': return 'boolean';
    case 'INT32': return 'int32';
    case 'INT64': return 'int64';
    case 'INT96': return 'timestamp';
    case 'FLOAT': return 'float';
    case 'DOUBLE': return 'double';
    default: return 'binary';
  }
}

export const NUMERIC = new Set(['int32', 'int64', 'float', 'double', 'decimal']);
export const SCALAR = new Set([...NUMERIC, 'string', 'boolean', 'date', 'timestamp']);

export function columnsOf(metadata: FileMetaData): HubDatasetColumn[] {
  return parquetSchema(metadata).children.map((c) => ({ name: c.element.name, type: typeInWords(c) }));
}

/** A parquet value as text: strings as they are, lists of strings joined by blank lines, the rest as JSON. */
export function asText(x: unknown): string {
  if (x === null || x === undefined) return '';
  if (typeof x === 'string') return x;
  if (typeof x === 'bigint' || typeof x === 'number' || typeof x === 'boolean') return String(x);
  if (Array.isArray(x) && x.every((y) => typeof y === 'string')) return x.join('\n\n');
  return json(x);
}

function json(x: unknown): string {
  try {
    return JSON.stringify(x, (_k, val: unknown) => (typeof val === 'bigint' ? Number(val) : val instanceof Uint8Array ? `<${val.byteLength} bytes>` : val)) ?? '';
  } catch {
    return String(x);
  }
}

/** A metadata value: a string or number as it is (strings cut), anything else JSON, cut; null/undefined dropped. */
export function metaValue(x: unknown): string | number | undefined {
  if (x === null || x === undefined) return undefined;
  if (typeof x === 'number') return Number.isFinite(x) ? x : undefined;
  if (typeof x === 'bigint') return Number(x);
  if (typeof x === 'string') return x.length > META_STRING_CHARS ? `${x.slice(0, META_STRING_CHARS)}…` : x;
  if (typeof x === 'boolean') return String(x);
  if (x instanceof Date) return x.toISOString();
  const s = json(x);
  return s.length > META_JSON_CHARS ? `${s.slice(0, META_JSON_CHARS)}…` : s;
}

const ID_NAMES = ['_id', 'id', 'doc_id', 'docid', 'document_id', 'passage_id', 'pid', 'corpus_id', 'corpus-id', 'uuid', 'guid', 'key'];
const TITLE_NAMES = ['title', 'name', 'heading', 'headline', 'subject', 'doc_title'];
const TEXT_NAMES = ['text', 'content', 'contents', 'body', 'passage', 'abstract', 'document', 'context', 'article', 'paragraph', 'chunk', 'page_content', 'sentence', 'summary', 'description'];
/** At most this many metadata columns are guessed. */
const GUESS_METADATA = 5;
/** A string column whose sample values average more than this is text, not metadata. */
const META_MAX_MEAN = 120;

const byName = (cols: readonly HubDatasetColumn[], names: readonly string[], ok: (c: HubDatasetColumn) => boolean) => {
  for (const n of names) {
    const c = cols.find((x) => x.name.toLowerCase() === n && ok(x));
    if (c) return c.name;
  }
  return null;
};

/**
 * Which column is which, from the names and, for the text, the values: id ← `_id`/`id`/`doc_id`/…, title ←
 * `title`/`name`/…, text ← `text`/`content`/`body`/… else the string column with the longest values in `sample`,
 * metadata ← up to five other scalar columns with short values.
 */
export function guessColumns(cols: readonly HubDatasetColumn[], sample: ReadonlyArray<Record<string, unknown>>): ColumnMapping {
  const isString = (c: HubDatasetColumn) => c.type === 'string' || c.type === 'json';
  const textLike = (c: HubDatasetColumn) => isString(c) || c.type === 'list<string>';
  const mean = (name: string) => sample.length === 0 ? 0 : sample.reduce((s, r) => s + asText(r[name]).length, 0) / sample.length;
  const id = byName(cols, ID_NAMES, (c) => isString(c) || NUMERIC.has(c.type));
  const title = byName(cols, TITLE_NAMES, isString);
  let text = byName(cols, TEXT_NAMES, (c) => textLike(c) && c.name !== id && c.name !== title);
  if (!text) {
    let best = -1;
    for (const c of cols) {
      if (!textLike(c) || c.name === id || c.name === title) continue;
      const m = mean(c.name);
      if (m > best) { best = m; text = c.name; }
    }
  }
  const used = new Set([id, title, text]);
  const metadata = cols.filter((c) => !used.has(c.name) && SCALAR.has(c.type) && (!isString(c) || mean(c.name) <= META_MAX_MEAN))
    .slice(0, GUESS_METADATA).map((c) => c.name);
  return { id, title, text: text ?? '', metadata };
}
