/**
 * A knowledge base from a RAGBench subset: every row's documents pooled, deduplicated by text, and chunked. RAGBench
 * gives each row the documents its retriever found; pooled, they form a corpus in which the pipeline must find a
 * question's own documents among everybody else's.
 *
 * Deduplication key: the text trimmed, with runs of white space collapsed to one space (the same passage is stored
 * with different spacing in a few rows). The first occurrence's text is kept. Document ids are `d0`, `d1`, … in
 * order of first occurrence; documents have no title. For every pooled document the rows it came from are kept, so
 * each chunk knows its RAGBench row(s), and each row its documents (its gold documents).
 */
import type { KbOptions, BuildProgress } from '../retrieval/knowledge-base.ts';
import { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import { ragbenchRowKey, type RagbenchRow } from './ragbench.ts';
import { ragbenchVectorKey } from '../cache-keys.ts';
import { sha256Hex } from '../checksum.ts';

/** The deduplication key of a document text. */
export function documentKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

export interface PooledDocuments {
  docs: SourceDocument[];
  /** Per pooled document: the keys of the rows it came from (row order). */
  docRows: string[][];
  /** Per row key: its documents' indexes into `docs`, in the row's order (a duplicate within a row appears once). */
  rowDocs: Map<string, number[]>;
  /** Pooled document index by dedup key (`documentKey`). */
  byKey: Map<string, number>;
  /** Documents before deduplication (empty ones excluded). */
  documentCount: number;
}

/** Pools the rows' documents, deduplicated by text (see `documentKey`); empty documents are skipped. */
export function poolDocuments(rows: readonly RagbenchRow[]): PooledDocuments {
  const docs: SourceDocument[] = [];
  const docRows: string[][] = [];
  const rowDocs = new Map<string, number[]>();
  const byKey = new Map<string, number>();
  let documentCount = 0;
  for (const row of rows) {
    const rk = ragbenchRowKey(row);
    const mine: number[] = rowDocs.get(rk) ?? [];
    for (const text of row.documents) {
      const key = documentKey(text);
      if (key === '') continue;
      documentCount++;
      let d = byKey.get(key);
      if (d === undefined) {
        d = docs.length;
        byKey.set(key, d);
        docs.push({ id: `d${d}`, title: '', text });
        docRows.push([]);
      }
      if (!docRows[d]!.includes(rk)) docRows[d]!.push(rk);
      if (!mine.includes(d)) mine.push(d);
    }
    rowDocs.set(rk, mine);
  }
  return { docs, docRows, rowDocs, byKey, documentCount };
}

export interface RagbenchKb extends PooledDocuments {
  subset: string;
  kb: KnowledgeBase;
}

/** The subset's pooled documents as a chunked knowledge base (KnowledgeBase defaults unless `options` say otherwise). */
export function buildRagbenchKb(rows: readonly RagbenchRow[], subset: string, options: Partial<KbOptions> = {}, onProgress?: BuildProgress): RagbenchKb {
  const pooled = poolDocuments(rows);
  return { subset, ...pooled, kb: KnowledgeBase.build(pooled.docs, options, onProgress) };
}

/** What vectors embedded for the subset's knowledge base are cached under: its subset, documents' hash and chunking. */
export async function ragbenchKbVectorKey(rkb: RagbenchKb): Promise<string> {
  const docsHash = (await sha256Hex(rkb.docs.map((d) => d.text).join('\u0000'))).slice(0, 16);
  return ragbenchVectorKey(rkb.subset, docsHash, rkb.kb.options.chunking);
}

/** The pooled document index of a chunk id (`d12#3` → 12; `d12` for whole-document items), or -1. */
export function docIndexOfChunkId(id: string): number {
  const m = /^d(\d+)(?:#\d+)?$/.exec(id);
  return m ? Number(m[1]) : -1;
}

/** The RAGBench rows (keys) the chunk `item` of the knowledge base came from. */
export function chunkRows(rkb: RagbenchKb, item: number): readonly string[] {
  return rkb.docRows[rkb.kb.docIndexOf(item)] ?? [];
}

/**
 * A row's documents that hold at least one of its gold relevant sentences (`all_relevant_sentence_keys`, keys
 * `{doc}{letters}`), as pooled document indexes.
 */
export function relevantDocs(pooled: Pick<PooledDocuments, 'byKey'>, row: RagbenchRow): number[] {
  const out: number[] = [];
  for (const key of row.all_relevant_sentence_keys) {
    const m = /^(\d+)/.exec(key);
    const text = m ? row.documents[Number(m[1])] : undefined;
    if (text === undefined) continue;
    const d = pooled.byKey.get(documentKey(text));
    if (d !== undefined && !out.includes(d)) out.push(d);
  }
  return out;
}
