/** The items (chunks) of an artifact's knowledge base from its chunk table, checked against the documents. */
import type { SourceDocument } from '../retrieval/document.ts';
import type { KbItems } from '../retrieval/knowledge-base.ts';
import { ArtifactError } from './types.ts';

/** A chunk table after column names are resolved: per chunk its id, document id and text, spans when known. */
export interface ChunkColumns {
  ids: string[];
  docIds: string[];
  texts: string[];
  chunkIndex: Uint32Array | null;
  start: Uint32Array | null;
  end: Uint32Array | null;
}

/**
 * Items of the knowledge base from a chunk table. `strict` (format v1): every chunk names a document of docs.parquet
 * and its text is exactly the document's characters start–end (or the documents carry no text, and the chunk texts
 * are kept). Not strict (seed A): spans and chunk numbers are found or made up, chunk texts kept when they are not
 * slices of their document.
 */
export function itemsOf(docs: readonly SourceDocument[], c: ChunkColumns, file: string, chunked: boolean, strict: boolean): KbItems {
  const n = c.ids.length;
  const docIndex = new Map(docs.map((d, i) => [d.id, i]));
  const itemDoc = new Uint32Array(n), itemChunk = new Uint32Array(n), itemStart = new Uint32Array(n), itemEnd = new Uint32Array(n);
  const perDoc = new Map<number, number>();
  const lastEnd = new Map<number, number>();
  let slices = true, derivedIds = true;
  for (let i = 0; i < n; i++) {
    const d = docIndex.get(c.docIds[i]!);
    if (d === undefined) throw new ArtifactError(file, `row ${i}: doc_id "${c.docIds[i]}" is not in the documents`);
    itemDoc[i] = d;
    const k = c.chunkIndex ? c.chunkIndex[i]! : perDoc.get(d) ?? 0;
    perDoc.set(d, k + 1);
    itemChunk[i] = k;
    const doc = docs[d]!, text = c.texts[i]!;
    let s: number, e: number;
    if (c.start && c.end) {
      s = c.start[i]!; e = c.end[i]!;
      if (e < s) throw new ArtifactError(file, `row ${i}: char_end ${e} is before char_start ${s}`);
    } else {
      const at = doc.text.indexOf(text, lastEnd.get(d) ?? 0);
      const found = at >= 0 ? at : doc.text.indexOf(text);
      s = found >= 0 ? found : 0; e = found >= 0 ? found + text.length : text.length;
      if (found >= 0) lastEnd.set(d, s + 1);
    }
    itemStart[i] = s; itemEnd[i] = e;
    if (slices && doc.text.slice(s, e) !== text) slices = false;
    const derived = chunked ? `${doc.id}#${k}` : doc.id;
    if (c.ids[i] !== derived) derivedIds = false;
  }
  const items: KbItems = { itemDoc, itemChunk, itemStart, itemEnd };
  if (!slices) {
    if (strict && docs.some((d) => d.text !== '')) {
      const i = c.texts.findIndex((t, j) => docs[itemDoc[j]!]!.text.slice(itemStart[j], itemEnd[j]) !== t);
      throw new ArtifactError(file, `row ${i}: the chunk text is not characters ${itemStart[i]}–${itemEnd[i]} of document "${c.docIds[i]}": rebuild the index`);
    }
    items.texts = c.texts;
  }
  if (!derivedIds) {
    if (new Set(c.ids).size !== n) throw new ArtifactError(file, 'chunk ids repeat');
    items.ids = c.ids;
  }
  return items;
}

