/**
 * Retrieval for RAG: one or several queries through `search`, several fused by RRF (k = 60); then the optional
 * cross-encoder rerank.
 */
import { dedupByDocument } from '../retrieval/dedup.ts';
import { reciprocalRankFusion, RRF_K } from '../retrieval/fusion.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { MODES, NO_RERANKER, type RetrievalMode } from '../retrieval/modes.ts';
import { search, type SearchHit, type SearchModels, type SearchOptions, type SearchOutcome } from '../retrieval/search.ts';
import { searchSettingsOf } from '../settings/search.ts';
import type { RagConfig } from './config.ts';
import type { TransformOutput } from './transforms.ts';

export interface RetrievedHit {
  item: number;
  /** Chunk id (`docId#chunkIndex`, or the document id for whole-document items). */
  id: string;
  docId: string;
  /** The score the ranking is by: the search score for one query, the RRF score for several, the logit after rerank. */
  score: number;
  rerank: number | null;
}

export interface QueryRun {
  query: string;
  status: 'ok' | 'rejected' | 'empty' | 'unavailable';
  reason?: string;
  confidence: number | null;
  hits: { id: string; score: number }[];
}

export interface RetrievalResult {
  /** ok: passages to answer from; rejected: only low-confidence ones; empty: none; unavailable: the mode cannot run. */
  status: 'ok' | 'rejected' | 'empty' | 'unavailable';
  reason?: string;
  hits: RetrievedHit[];
  /** Each query's own search. */
  runs: QueryRun[];
  mode: RetrievalMode;
  /** Whether the hits are an RRF fusion of several runs. */
  fused: boolean;
}

export const NO_SOURCES_ANSWER = 'I found no passage in the knowledge base that matches this question, so I cannot answer it.';
export const lowConfidenceAnswer = (reason: string): string =>
  `The passages I found match this question only weakly, so I will not answer from them. ${reason} ` +
  'Try rephrasing the question, or lower the confidence threshold.';
export const NO_RELEVANT_ANSWER = 'None of the passages I found is relevant to this question, so I cannot answer it.';

/** Search options for the configured retrieval (`mode` as given, or as the transform requires). */
export function searchOptionsFor(config: RagConfig, mode: RetrievalMode = config.retrieval.mode): Partial<SearchOptions> {
  const r = config.retrieval;
  // Every search setting the declarations hold (settings/search.ts), so a new one reaches the pipeline's searches too.
  return { ...searchSettingsOf(r), mode, dedup: r.dedup };
}

const toHit = (h: SearchHit): RetrievedHit => ({ item: h.item, id: h.id, docId: h.docId, score: h.score, rerank: h.rerank });

const byScore = (a: RetrievedHit, b: RetrievedHit) => (a.score !== b.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** RRF over ranked lists of hits (score desc, then id asc), deduplicated by document when asked, cut to `topK`. */
export function fuseLists(lists: ReadonlyArray<readonly RetrievedHit[]>, topK: number, dedup: boolean, k = RRF_K): RetrievedHit[] {
  const rrf = reciprocalRankFusion(lists.map((l) => l.map((h) => h.item)), k);
  const byItem = new Map<number, RetrievedHit>();
  for (const l of lists) for (const h of l) if (!byItem.has(h.item)) byItem.set(h.item, h);
  const fused = [...byItem.values()].map((h) => ({ ...h, score: rrf.get(h.item) ?? 0, rerank: null })).sort(byScore);
  return (dedup ? dedupByDocument(fused, (h) => h.docId) : fused).slice(0, topK);
}

/**
 * Searches each query; one query keeps its search ranking, several are fused by RRF over their runs that passed
 * the confidence check. Each list is `candidateK` deep (at least `topK`) so the fusion sees more than the top few.
 * The result is rejected only when every run was rejected.
 */
export async function retrieveQueries(
  kb: KnowledgeBase,
  queries: readonly string[],
  options: Partial<SearchOptions> & Pick<SearchOptions, 'mode' | 'topK'>,
  models: SearchModels,
): Promise<RetrievalResult> {
  const fused = queries.length > 1;
  const depth = fused ? Math.max(options.topK, options.candidateK ?? 0) : options.topK;
  const outcomes: SearchOutcome[] = [];
  for (const q of queries) outcomes.push(await search(kb, q, { ...options, topK: depth }, models));
  const runs: QueryRun[] = outcomes.map((o, i) => ({
    query: queries[i]!,
    status: o.status,
    ...(o.status !== 'ok' ? { reason: o.reason } : {}),
    confidence: o.telemetry?.confidence ?? null,
    hits: o.hits.map((h) => ({ id: h.id, score: h.score })),
  }));
  const base = { runs, mode: options.mode, fused };
  const listsOf = (status: 'ok' | 'rejected') => outcomes.filter((o) => o.status === status).map((o) => o.hits.map(toHit));
  const combine = (lists: RetrievedHit[][]) => (fused ? fuseLists(lists, options.topK, options.dedup ?? true) : lists[0]!);

  const ok = listsOf('ok');
  if (ok.length > 0) return { ...base, status: 'ok', hits: combine(ok) };
  const rejected = listsOf('rejected');
  const firstReason = (status: QueryRun['status']) => runs.find((r) => r.status === status)?.reason ?? '';
  if (rejected.length > 0) return { ...base, status: 'rejected', reason: firstReason('rejected'), hits: combine(rejected) };
  const unavailable = runs.some((r) => r.status === 'unavailable');
  if (unavailable) return { ...base, status: 'unavailable', reason: firstReason('unavailable'), hits: [] };
  return { ...base, status: 'empty', reason: firstReason('empty') || 'Nothing to search.', hits: [] };
}

/** The retrieval a transform asks for: HyDE embeds the passage ('dense'), HyDE+BM25 fuses it with BM25 of the question ('rrf'). */
export async function retrieveForTransform(
  kb: KnowledgeBase,
  t: TransformOutput,
  config: RagConfig,
  models: SearchModels,
): Promise<RetrievalResult> {
  if (t.kind === 'hyde' || t.kind === 'hyde_bm25') {
    const mode: RetrievalMode = t.kind === 'hyde' ? 'dense' : 'rrf';
    const opts = { ...searchOptionsFor(config, mode), mode, topK: config.retrieval.topK, ...(t.passage ? { denseQuery: t.passage } : {}) };
    return retrieveQueries(kb, t.queries.slice(0, 1), opts, models);
  }
  const mode = config.retrieval.mode;
  return retrieveQueries(kb, t.queries, { ...searchOptionsFor(config), mode, topK: config.retrieval.topK }, models);
}

export type RerankResult =
  | { status: 'ok'; hits: RetrievedHit[]; reranked: boolean; note?: string }
  | { status: 'unavailable'; reason: string; hits: [] };

/**
 * The rerank stage: off → the hits as they are; a *_rerank mode already reranked inside search → the top N; else
 * the cross-encoder scores (question, chunk) for every hit and the best N are kept.
 */
export async function rerankHits(
  kb: KnowledgeBase,
  question: string,
  hits: readonly RetrievedHit[],
  config: RagConfig,
  mode: RetrievalMode,
  models: SearchModels,
): Promise<RerankResult> {
  if (!config.rerank.enabled) return { status: 'ok', hits: [...hits], reranked: false };
  const topN = config.rerank.topN;
  if (MODES[mode].needsReranker) {
    return { status: 'ok', hits: hits.slice(0, topN), reranked: false, note: `The ${mode} search already reranked; kept the top ${topN}.` };
  }
  if (!models.reranker) return { status: 'unavailable', reason: NO_RERANKER, hits: [] };
  const logits = await models.reranker.rerank(question, hits.map((h) => kb.itemText(h.item)));
  const out = hits.map((h, i) => ({ ...h, score: logits[i]!, rerank: logits[i]! })).sort(byScore);
  return { status: 'ok', hits: out.slice(0, topN), reranked: true };
}
