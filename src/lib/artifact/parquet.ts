/**
 * The artifact's parquet tables: written with hyparquet-writer (snappy, string and int32 columns), read back with
 * hyparquet column by column. A missing column is an ArtifactError naming the file, the column and what is there.
 */
import { parquetMetadata, parquetRead, parquetSchema, type FileMetaData } from 'hyparquet';
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { ArtifactError } from './types.ts';

export type ColumnType = 'STRING' | 'INT32';

/** One table as bytes; every column the same length. */
export function writeTable(columns: Array<{ name: string; type: ColumnType; data: ArrayLike<unknown>; nullable?: boolean }>): Uint8Array {
  const columnData: ColumnSource[] = columns.map((c) => ({
    name: c.name,
    type: c.type,
    data: (c.type === 'INT32' ? Int32Array.from(c.data as ArrayLike<number>) : Array.from(c.data)) as ColumnSource['data'],
    nullable: c.nullable ?? false,
  }));
  return new Uint8Array(parquetWriteBuffer({ columnData, kvMetadata: [{ key: 'rag-lab-artifact', value: '1' }] }));
}

export interface Table {
  rows: number;
  /** The columns asked for that exist (every `required` one), in row order. */
  cols: Map<string, unknown[]>;
  /** Every column the file has. */
  names: string[];
}

function metadataOf(bytes: Uint8Array, file: string): { buffer: ArrayBuffer; metadata: FileMetaData } {
  const buffer = (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer) as ArrayBuffer;
  try {
    return { buffer, metadata: parquetMetadata(buffer) };
  } catch (e) {
    throw new ArtifactError(file, `is not a readable parquet file (${(e as Error).message}): re-download it`);
  }
}

/** Column names of a parquet file. */
export function tableColumns(bytes: Uint8Array, file: string): string[] {
  return parquetSchema(metadataOf(bytes, file).metadata).children.map((c) => c.element.name);
}

/**
 * Reads the `required` columns (each missing one is an error) and those of `optional` that exist. Values come as
 * hyparquet decodes them, with INT64 (bigint) turned into numbers.
 */
export async function readTable(bytes: Uint8Array, file: string, required: readonly string[], optional: readonly string[] = []): Promise<Table> {
  const { buffer, metadata } = metadataOf(bytes, file);
  const names = parquetSchema(metadata).children.map((c) => c.element.name);
  const have = new Set(names);
  const missing = required.filter((c) => !have.has(c));
  if (missing.length > 0) {
    throw new ArtifactError(file, `missing column${missing.length > 1 ? 's' : ''} ${missing.map((c) => `"${c}"`).join(', ')} (it has ${names.map((c) => `"${c}"`).join(', ') || 'none'}): rebuild the index with a current RAG Lab`);
  }
  const wanted = [...required, ...optional.filter((c) => have.has(c))];
  const rows = Number(metadata.num_rows);
  const cols = new Map<string, unknown[]>(wanted.map((c) => [c, new Array<unknown>(rows)]));
  if (wanted.length > 0 && rows > 0) {
    try {
      await parquetRead({
        file: buffer,
        metadata,
        columns: wanted,
        onChunk: ({ columnName, columnData, rowStart }) => {
          const out = cols.get(columnName);
          if (!out) return;
          for (let i = 0; i < columnData.length; i++) {
            const x = columnData[i];
            if (rowStart + i < rows) out[rowStart + i] = typeof x === 'bigint' ? Number(x) : x;
          }
        },
      });
    } catch (e) {
      throw new ArtifactError(file, `could not be read (${(e as Error).message}): re-download it`);
    }
  }
  return { rows, cols, names };
}

/** A string column's values; a non-string cell is an error naming its row. */
export function stringColumn(t: Table, name: string, file: string, opts: { nullable?: boolean } = {}): (string | null)[] {
  const col = t.cols.get(name)!;
  for (let i = 0; i < col.length; i++) {
    const x = col[i];
    if (typeof x === 'string') continue;
    if ((x === null || x === undefined) && opts.nullable) { col[i] = null; continue; }
    if (typeof x === 'number') { col[i] = String(x); continue; }
    throw new ArtifactError(file, `column "${name}", row ${i}: expected text, found ${x === null || x === undefined ? 'nothing' : typeof x}`);
  }
  return col as (string | null)[];
}

/** A non-negative integer column as Uint32Array; anything else is an error naming its row. */
export function indexColumn(t: Table, name: string, file: string): Uint32Array {
  const col = t.cols.get(name)!;
  const out = new Uint32Array(col.length);
  for (let i = 0; i < col.length; i++) {
    const x = col[i];
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > 0xffffffff) {
      throw new ArtifactError(file, `column "${name}", row ${i}: expected a non-negative integer, found ${JSON.stringify(x ?? null)}`);
    }
    out[i] = x;
  }
  return out;
}
