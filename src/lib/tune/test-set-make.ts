/**
 * Making a test set of a knowledge base, one function for the Tune panel and `rag-lab testset`: written by an LLM
 * (llm-test-set.ts), pseudo-queries (pseudo-queries.ts, labelled) or imported from a CSV / JSONL file
 * (test-set-file.ts); each with its label, kind and provenance (never a key). And a test set as files: BEIR's
 * queries.jsonl and qrels (`rag-lab tune --testset DIR`, `--kb KB --data DIR`, the panel's Export) with testset.json
 * beside them: its kind, provenance, notes and the hash of the documents it was made from (a changed corpus makes it stale).
 */
import * as v from 'valibot';
import type { BeirQuery, Qrels } from '../data/beir.ts';
import { readBeirJudgements, type BeirFileReader } from '../eval/retrieval/retrieval-data.ts';
import { sha256Hex } from '../checksum.ts';
import { TEST_SET_KINDS, type TestSetKind } from '../store/test-set-store.ts';
import type { ChatProvider } from '../llm/types.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import { writeLlmTestSet, type LlmTestSetProgress, type TestSetReplyCache } from './llm-test-set.ts';
import { PSEUDO_LABEL, pseudoQueries } from './pseudo-queries.ts';
import { parseTestSetFile } from './test-set-file.ts';

export { TEST_SET_KINDS, type TestSetKind };

export type TestSetRecipe =
  | { kind: 'llm'; n: number; seed: number; provider: ChatProvider; providerId: string; model: string; cache?: TestSetReplyCache; signal?: AbortSignal; onProgress?: (p: LlmTestSetProgress) => void }
  | { kind: 'pseudo'; n: number; seed: number }
  | { kind: 'imported'; name: string; text: string };

export interface MadeTestSet {
  kind: TestSetKind;
  label: string;
  provenance: Record<string, string | number>;
  queries: BeirQuery[];
  qrels: Qrels;
  notes: string[];
}

export class TestSetError extends Error {
  constructor(message: string) { super(message); this.name = 'TestSetError'; }
}

export async function makeTestSet(kb: KnowledgeBase, r: TestSetRecipe): Promise<MadeTestSet> {
  if (r.kind === 'pseudo') {
    const p = pseudoQueries(kb.docs, r.n, r.seed);
    return { kind: 'pseudo', label: `${p.queries.length} ${PSEUDO_LABEL}`, provenance: { seed: r.seed, asked: r.n }, ...p };
  }
  if (r.kind === 'imported') {
    const format = /\.csv$/i.test(r.name) ? 'csv' : /\.jsonl?$/i.test(r.name) ? 'jsonl' : null;
    if (!format) throw new TestSetError(`${r.name}: a test set file is .csv (a header row: question and doc_id, chunk_id or answer) or .jsonl`);
    const t = parseTestSetFile(r.text, format, kb);
    return { kind: 'imported', label: r.name, provenance: { file: r.name, rows: t.queries.length }, ...t };
  }
  const set = await writeLlmTestSet({
    kb, n: r.n, seed: r.seed, provider: r.provider, providerId: r.providerId, model: r.model,
    ...(r.cache ? { cache: r.cache } : {}), ...(r.signal ? { signal: r.signal } : {}), ...(r.onProgress ? { onProgress: r.onProgress } : {}),
  });
  if (set.queries.length < 2) throw new TestSetError(`the model wrote ${set.queries.length} usable question${set.queries.length === 1 ? '' : 's'} of ${set.counts.asked}: ${set.notes.join('; ') || 'none'}`);
  const { provider, model, promptVersion, seed, asked } = set.provenance;
  return {
    kind: 'llm', label: `${set.queries.length} questions by ${model}`, provenance: { provider, model, promptVersion, seed, ...set.counts, asked },
    queries: set.queries, qrels: set.qrels, notes: set.notes,
  };
}

/** SHA-256 of the documents' ids and texts: what a test set was made from (chunking aside). */
export const documentsHash = (docs: readonly SourceDocument[]): Promise<string> =>
  sha256Hex(docs.map((d) => `${d.id}\u0000${d.text}`).join('\u0001'));

/** queries.jsonl and qrels/<split>.tsv as BEIR writes them (relevance as given). */
export function testSetBeirFiles(queries: readonly BeirQuery[], qrels: Qrels): { queries: string; qrels: string } {
  return {
    queries: queries.map((q) => JSON.stringify({ _id: q.id, text: q.text })).join('\n') + '\n',
    qrels: ['query-id\tcorpus-id\tscore', ...[...qrels].flatMap(([q, docs]) => [...docs].map(([d, rel]) => `${q}\t${d}\t${rel}`))].join('\n') + '\n',
  };
}

export const TEST_SET_META_FILE = 'testset.json';
const MetaSchema = v.object({
  kind: v.picklist(TEST_SET_KINDS), label: v.pipe(v.string(), v.maxLength(300)), documentsHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  provenance: v.record(v.string(), v.union([v.string(), v.number()])), notes: v.array(v.pipe(v.string(), v.maxLength(2000))),
});
export type TestSetMeta = v.InferOutput<typeof MetaSchema>;

export function parseTestSetMeta(text: string): TestSetMeta {
  let json: unknown;
  try { json = JSON.parse(text); } catch { throw new TestSetError(`${TEST_SET_META_FILE} is not JSON`); }
  const r = v.safeParse(MetaSchema, json);
  if (!r.success) throw new TestSetError(`${TEST_SET_META_FILE}: ${v.getDotPath(r.issues[0]) ?? ''} ${r.issues[0].message}`.trim());
  return r.output;
}

/**
 * A test set folder as `rag-lab testset` writes it: queries.jsonl and qrels/<split>.tsv, and testset.json when there
 * (pseudo-queries say so; documents other than these make it stale, said in a note).
 */
export async function testSetFolder(r: BeirFileReader, docs: readonly SourceDocument[], split: string): Promise<{ queries: BeirQuery[]; qrels: Qrels; pseudo: boolean; notes: string[] }> {
  const judged = readBeirJudgements(r, split);
  let meta: TestSetMeta | null = null;
  try { meta = parseTestSetMeta(r.read(TEST_SET_META_FILE)); } catch (e) { if (e instanceof TestSetError) throw e; }
  const notes = [
    ...(meta ? [`${meta.label} (${meta.kind}${meta.provenance['model'] ? `, ${meta.provenance['model']}` : ''})`] : []),
    ...(meta && meta.documentsHash !== await documentsHash(docs) ? ['stale: the documents are not those the test set was made from'] : []),
  ];
  return { ...judged, pseudo: meta?.kind === 'pseudo', notes };
}
