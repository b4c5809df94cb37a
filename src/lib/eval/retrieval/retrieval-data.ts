/**
 * The data of a retrieval run, opened: a BEIR folder (read by the caller through its own files: node:fs in the CLI,
 * picked files in the tab), a BEIR dataset on the Hub (read here), or an artifact (opened by the caller from its
 * folder, zip, Hub repo or this browser's store). Here its knowledge base is built with the run's settings and its
 * content keys are derived (cache-keys.ts), so the tab and `rag-lab eval-beir` name the same data the same way.
 */
import type { ArtifactDense } from '../../artifact/types.ts';
import { artifactDataKey, artifactVectorKey, beirDataKey, beirVectorKey, hubBeirDataKey, hubBeirVectorKey, metaKeyOf } from '../../cache-keys.ts';
import { sha256Hex } from '../../checksum.ts';
import { parseCorpus, parseQrels, parseQueries, type BeirQuery, type Qrels } from '../../data/beir.ts';
import { readHubBeir } from '../../data/beir-hub.ts';
import type { SourceDocument } from '../../retrieval/document.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import { buildRunKb, corpusHash, type RetrievalRunSettings } from './retrieval-session.ts';

/** What a run reads. */
export type RetrievalDataRef =
  /** A BEIR folder as read: its corpus, queries and the split's judgements, and the corpus text's `corpusHash`. */
  | { kind: 'beir-folder'; name: string; docs: readonly SourceDocument[]; queries: BeirQuery[]; qrels: Qrels; corpusHash: string }
  /** A BEIR dataset on the Hub; the token goes only to `hubUrl`. */
  | { kind: 'hub-dataset'; dataset: string; revision: string | null; hubUrl: string; token: string | null }
  | ({ kind: 'artifact' } & OpenedRunArtifact);

/** An artifact opened by the caller, with the queries and judgements the run evaluates. */
export interface OpenedRunArtifact {
  /** The knowledge base's id (its vectors embedded here are cached under it). */
  id: string;
  dataset: string;
  kb: KnowledgeBase;
  shipped: ArtifactDense | null;
  queries: BeirQuery[];
  qrels: Qrels;
  /** Its meta.json as text (every file's SHA-256: the artifact's content key), null when it has none (then the id's hash). */
  meta: string | null;
  revision: string | null;
  source: 'hub' | 'local';
  notes: string[];
}

/** A dataset ready to run: its knowledge base, queries, judgements and what identifies it. */
export interface RetrievalData {
  kind: RetrievalDataRef['kind'];
  kb: KnowledgeBase;
  queries: BeirQuery[];
  qrels: Qrels;
  dataset: string;
  /** Content key of the data (the run's identity). */
  dataKey: string;
  /** Content key of the knowledge base's vectors embedded now (they are cached under it). */
  vectorKey: string;
  /** The artifact's knowledge-base id, else null. */
  kbId: string | null;
  revision: string | null;
  source: 'hub' | 'local';
  shipped: ArtifactDense | null;
  notes: string[];
}

/** The data opened, before its knowledge base is built (a caller may check it first). */
export interface RetrievalDataOpened { kind: RetrievalDataRef['kind']; dataset: string; queries: BeirQuery[]; qrels: Qrels; documents: number | null }

export type RetrievalDataProgress =
  | { phase: 'load'; stage: string; done: number; total: number }
  /** The knowledge base built from the documents, in `ms`. */
  | { phase: 'indexed'; documents: number; items: number; ms: number };

/** A Hub dataset that could not be read (the reader's message). */
export class RetrievalDataError extends Error {
  constructor(message: string, options?: { cause: unknown }) { super(message, options); this.name = 'RetrievalDataError'; }
}

export interface OpenDataOptions {
  signal?: AbortSignal;
  onProgress?: (p: RetrievalDataProgress) => void;
  /** Called once the queries and judgements are known, before any knowledge base is built (throw to stop). */
  check?: (opened: RetrievalDataOpened) => void;
}

/** Opens `ref`: the knowledge base built (or the artifact's), and the data's content keys. */
export async function openRetrievalData(ref: RetrievalDataRef, settings: RetrievalRunSettings, opts: OpenDataOptions = {}): Promise<RetrievalData> {
  const stage = (name: string, done: number, total: number) => opts.onProgress?.({ phase: 'load', stage: name, done, total });
  if (ref.kind === 'artifact') {
    opts.check?.({ kind: ref.kind, dataset: ref.dataset, queries: ref.queries, qrels: ref.qrels, documents: null });
    const metaKey = metaKeyOf(await sha256Hex(ref.meta ?? ref.id));
    return {
      kind: ref.kind, kb: ref.kb, queries: ref.queries, qrels: ref.qrels, dataset: ref.dataset, dataKey: artifactDataKey(metaKey),
      vectorKey: artifactVectorKey(ref.id, metaKey), kbId: ref.id, revision: ref.revision, source: ref.source, shipped: ref.shipped, notes: [...ref.notes],
    };
  }
  let docs: readonly SourceDocument[], base: Omit<RetrievalData, 'kb' | 'vectorKey'>, vectorKey: (kb: KnowledgeBase) => string;
  if (ref.kind === 'hub-dataset') {
    const hub = await readHubBeir({ dataset: ref.dataset, revision: ref.revision }, { hubUrl: ref.hubUrl, token: ref.token, ...(opts.signal ? { signal: opts.signal } : {}) }, stage)
      .catch((e: unknown) => { throw opts.signal?.aborted ? e : new RetrievalDataError((e as Error).message, { cause: e }); });
    docs = hub.docs;
    base = { kind: ref.kind, queries: hub.queries, qrels: hub.qrels, dataset: hub.dataset, dataKey: hubBeirDataKey(hub.docsKey), kbId: null, revision: hub.revision, source: 'hub', shipped: null, notes: hub.notes };
    vectorKey = (kb) => hubBeirVectorKey(hub.dataset, hub.docsKey, kb.options.chunking);
  } else {
    docs = ref.docs;
    base = { kind: ref.kind, queries: ref.queries, qrels: ref.qrels, dataset: ref.name, dataKey: beirDataKey(ref.corpusHash), kbId: null, revision: null, source: 'local', shipped: null, notes: [] };
    vectorKey = (kb) => beirVectorKey(ref.corpusHash, kb.options.chunking);
  }
  opts.check?.({ kind: ref.kind, dataset: base.dataset, queries: base.queries, qrels: base.qrels, documents: docs.length });
  stage('index', 0, 1);
  const t0 = performance.now();
  const kb = buildRunKb(docs, settings);
  const ms = performance.now() - t0;
  stage('index', 1, 1);
  opts.onProgress?.({ phase: 'indexed', documents: docs.length, items: kb.size, ms });
  return { ...base, kb, vectorKey: vectorKey(kb) };
}

/** `hub:owner/name[@revision]`: a BEIR dataset on the Hub, or null when `value` is not that. */
export function hubDatasetRef(value: string): { dataset: string; revision: string | null } | null {
  const m = /^hub:([\w.-]+\/[\w.-]+)(?:@([\w.-]{1,96}))?$/.exec(value);
  return m ? { dataset: m[1]!, revision: m[2] ?? null } : null;
}

/** A BEIR folder's files by their path in it (`corpus.jsonl`, `qrels/test.tsv`), and the path its errors name. */
export interface BeirFileReader { path(rel: string): string; read(rel: string): string }

/** queries.jsonl and qrels/<split>.tsv of a BEIR folder (a `DataError` names a bad file). */
export function readBeirJudgements(r: BeirFileReader, split: string): { queries: BeirQuery[]; qrels: Qrels } {
  const queries = parseQueries(r.read('queries.jsonl'), r.path('queries.jsonl'));
  const qrelsFile = `qrels/${split}.tsv`;
  return { queries, qrels: parseQrels(r.read(qrelsFile), r.path(qrelsFile)) };
}

/** A BEIR folder as a run reads it: corpus.jsonl (and its hash), then its judgements. */
export async function readBeirFolderRef(r: BeirFileReader, name: string, split: string): Promise<Extract<RetrievalDataRef, { kind: 'beir-folder' }>> {
  const corpusText = r.read('corpus.jsonl');
  const docs = parseCorpus(corpusText, r.path('corpus.jsonl'));
  return { kind: 'beir-folder', name, docs, ...readBeirJudgements(r, split), corpusHash: await corpusHash(corpusText) };
}
