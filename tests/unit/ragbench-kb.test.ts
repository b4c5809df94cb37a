import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRagbenchJsonl, ragbenchRowKey, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import {
  buildRagbenchKb, chunkRows, docIndexOfChunkId, documentKey, poolDocuments, relevantDocs,
} from '../../src/lib/data/ragbench-kb.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');

function row(id: string, documents: string[], relevant: string[] = []): RagbenchRow {
  return {
    id, question: `q ${id}`, documents, response: 'r', generation_model_name: 'g', annotating_model_name: 'a', dataset_name: 't',
    documents_sentences: [], response_sentences: [], sentence_support_information: [], unsupported_response_sentence_keys: [],
    adherence_score: true, overall_supported_explanation: null, relevance_explanation: null,
    all_relevant_sentence_keys: relevant, all_utilized_sentence_keys: [],
    trulens_groundedness: null, trulens_context_relevance: null, ragas_faithfulness: null, ragas_context_relevance: null,
    gpt3_adherence: null, gpt3_context_relevance: null, gpt35_utilization: null,
    relevance_score: null, utilization_score: null, completeness_score: null,
  };
}

describe('poolDocuments', () => {
  it('deduplicates by text (white space normalised), keeps the rows of each document and the documents of each row', () => {
    const rows = [
      row('1', ['Alpha text.', 'Beta text.']),
      row('2', ['  Beta   text. ', 'Gamma text.', 'Alpha text.', '   ']),
      row('3', ['Gamma text.', 'Gamma text.'], ['1b', '0a', '9z', 'x']),
    ];
    const p = poolDocuments(rows);
    expect(p.docs.map((d) => [d.id, d.text])).toEqual([['d0', 'Alpha text.'], ['d1', 'Beta text.'], ['d2', 'Gamma text.']]);
    const k = (r: RagbenchRow) => ragbenchRowKey(r);
    expect(p.docRows).toEqual([[k(rows[0]!), k(rows[1]!)], [k(rows[0]!), k(rows[1]!)], [k(rows[1]!), k(rows[2]!)]]);
    expect(p.rowDocs.get(k(rows[0]!))).toEqual([0, 1]);
    expect(p.rowDocs.get(k(rows[1]!))).toEqual([1, 2, 0]);
    expect(p.rowDocs.get(k(rows[2]!))).toEqual([2]);
    expect(p.documentCount).toBe(7); // the blank one is skipped
    // row 3's relevant keys: 1b → its document 1 (Gamma, d2), 0a → document 0 (also Gamma); 9z and x name nothing
    expect(relevantDocs(p, rows[2]!)).toEqual([2]);
    expect(relevantDocs(p, row('4', ['Beta text.', 'Alpha text.'], ['1a', '0c', '0d']))).toEqual([0, 1]);
    expect(documentKey(' a \n\t b ')).toBe('a b');
  });

  it('chunk ids to pooled documents', () => {
    expect(docIndexOfChunkId('d12#3')).toBe(12);
    expect(docIndexOfChunkId('d0')).toBe(0);
    expect(docIndexOfChunkId('x#1')).toBe(-1);
  });
});

describe('buildRagbenchKb on emanual', () => {
  it('pools the subset, and every chunk knows its rows', () => {
    const file = join(DATA, 'emanual.jsonl');
    expect(existsSync(file), `RAGBench not found at ${DATA}`).toBe(true);
    const text = readFileSync(file, 'utf8');
    const rows = parseRagbenchJsonl(text, 'emanual').rows;
    const rkb = buildRagbenchKb(rows, 'emanual', { cdfQueries: 0 });
    // Independently, from the raw lines.
    const raw = text.trim().split('\n').map((l) => JSON.parse(l) as { id: string; generation_model_name: string; documents: string[] });
    const norm = (s: string) => s.trim().split(/\s+/).join(' ');
    const distinct = new Set(raw.flatMap((r) => r.documents.map(norm)).filter((s) => s !== ''));
    expect(rkb.docs.length).toBe(distinct.size);
    expect(rkb.documentCount).toBe(raw.reduce((a, r) => a + r.documents.filter((d) => norm(d) !== '').length, 0));
    expect(rkb.kb.size).toBeGreaterThan(rkb.docs.length);
    const rawNorm = raw.map((r) => ({ key: `${r.id}\u241f${r.generation_model_name}`, docs: new Set(r.documents.map(norm)) }));
    for (let i = 0; i < rkb.kb.size; i++) {
      const docText = norm(rkb.kb.docOf(i).text);
      const owners = rawNorm.filter((r) => r.docs.has(docText)).map((r) => r.key);
      expect([...chunkRows(rkb, i)].sort()).toEqual(owners.sort());
      expect(rkb.kb.docOf(i).text).toContain(rkb.kb.itemText(i));
    }
    for (const r of raw) {
      const own = rkb.rowDocs.get(`${r.id}\u241f${r.generation_model_name}`)!;
      expect(own.map((d) => norm(rkb.docs[d]!.text)).sort()).toEqual([...new Set(r.documents.map(norm))].sort());
    }
  });
});
