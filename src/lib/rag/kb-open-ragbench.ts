/**
 * Opening a RAGBench test subset as the search session's knowledge base (seed A's single-question view): every
 * question's documents pooled and chunked as the pipeline benchmark pools them (data/ragbench-kb.ts), with the
 * subset's questions and gold labels in `KbInfo.goldQuestions`, so that a RAGBench question asked in the Ask tab is
 * answered from its own subset's documents and its gold labels stand beside the pipeline's scores.
 *
 * The rows: the file picked for the subset in the Benchmark tab when the browser remembers one (no network), else
 * the Hub's parquet with the dataset viewer as fallback, at the addresses the request carries (Settings'). Vectors
 * embedded here are cached under the same key as the pipeline benchmark's (`ragbenchVectorKey`), so one embedding of
 * a subset serves both.
 */
import { goldQuestionsOf } from '../data/ragbench-gold.ts';
import { buildRagbenchKb, ragbenchKbVectorKey } from '../data/ragbench-kb.ts';
import { parseRagbenchFile } from '../data/ragbench-files.ts';
import { loadRagbenchSubset } from '../data/ragbench-hub.ts';
import { formatIssue, type RagbenchRow } from '../data/ragbench.ts';
import { kbIdOf } from '../data/kb-registry.ts';
import type { KbDescriptor } from '../data/kb-source.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { RagbenchFileStore } from '../store/ragbench-file-store.ts';
import type { KbInfo, KbOpenRequest, LoadProgress } from './kb-contract.ts';

export interface RagbenchKbDeps {
  /** The Benchmark tab's remembered files (IndexedDB in the worker). */
  files: () => RagbenchFileStore;
  /** The Hub loader (tests pass their own). */
  loadSubset?: typeof loadRagbenchSubset;
}

type Request = Extract<KbOpenRequest, { kind: 'ragbench' }>;

/** A subset name as RAGBench's config names are written (covidqa, hotpotqa…). */
const SUBSET = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Questions the descriptor offers as examples. */
const EXAMPLES = 3;

async function rowsOf(deps: RagbenchKbDeps | undefined, request: Request, onProgress: (p: LoadProgress) => void): Promise<{ rows: RagbenchRow[]; from: string; notes: string[] }> {
  const listed = deps ? await deps.files().list().catch(() => ({ files: [], problems: [] })) : { files: [], problems: [] };
  const picked = listed.files.find((f) => f.subset === request.subset && f.bytes !== null);
  if (picked) {
    const r = await parseRagbenchFile(picked.file, picked.bytes!);
    return { rows: r.rows, from: `the file ${picked.file} picked in the Benchmark tab`, notes: r.skipped.length ? [`${r.skipped.length} malformed row(s) of ${picked.file} were skipped (first: ${formatIssue(r.skipped[0]!)}).`] : [] };
  }
  const load = deps?.loadSubset ?? loadRagbenchSubset;
  const r = await load(request.subset, { hubUrl: request.hubUrl, viewerUrl: request.viewerUrl, onProgress: (done, total) => onProgress({ stage: 'rows', done, total }) });
  const notes = r.skipped.length ? [`${r.skipped.length} malformed row(s) were skipped (first: ${formatIssue(r.skipped[0]!)}).`] : [];
  return { rows: r.rows, from: r.source === 'parquet' ? 'the Hub' : 'the dataset viewer', notes };
}

/** Opens the subset the request names (a name that is not a subset name, or a subset without rows, is an error). */
export async function openRagbenchKb(deps: RagbenchKbDeps | undefined, request: Request, onProgress: (p: LoadProgress) => void):
Promise<{ kb: KnowledgeBase; key: () => Promise<string>; info: KbInfo; artifactDense: null }> {
  const { subset } = request;
  if (!SUBSET.test(subset)) throw new Error(`"${subset.slice(0, 80)}" is not a RAGBench subset name (lower-case letters, digits, _ -).`);
  const t0 = performance.now();
  const { rows, from, notes } = await rowsOf(deps, request, onProgress);
  if (rows.length === 0) throw new Error(`RAGBench ${subset}: no rows were read from ${from}.`);
  const rkb = buildRagbenchKb(rows, subset, {}, (stage, done, total) => onProgress({ stage, done, total }));
  const goldQuestions = goldQuestionsOf(rows, subset);
  const ref = { kind: 'ragbench' as const, subset };
  const descriptor: KbDescriptor = {
    id: kbIdOf(ref), title: `RAGBench ${subset}`, fields: [], source: ref,
    description: `The ${rkb.docs.length.toLocaleString('en-US')} distinct documents of RAGBench's ${subset} test questions (${goldQuestions.length.toLocaleString('en-US')} questions, read from ${from}), pooled: each question's own documents among the others'. Ask one of its questions to see the gold labels beside the answer's scores.`,
    examples: goldQuestions.slice(0, EXAMPLES).map((g) => ({ query: g.question })),
    placeholder: `Search the documents of RAGBench ${subset}`,
  };
  const info: KbInfo = {
    corpusId: descriptor.id, descriptor, facets: [], documents: rkb.docs.length, items: rkb.kb.size, source: 'built', cacheNote: null,
    buildMs: performance.now() - t0, revisionSha: null, dense: null, artifactEmbedder: null, notes, goldQuestions,
  };
  let key: Promise<string> | null = null;
  return { kb: rkb.kb, key: () => (key ??= ragbenchKbVectorKey(rkb)), info, artifactDense: null };
}
