/**
 * One query through the retrieval pipeline, as explicit stages:
 * analyze → sparse → embed → dense → fuse → rerank → dedup → reject.
 * Each stage is timed; model stages (embed, rerank) are counted apart from query latency.
 * `searchSteps` runs it in two steps: a first outcome as soon as the fused ranking exists (final unless the mode
 * reranks), then the reranked outcome; `search` waits for the final one.
 */
import { withSearchBm25 } from './bm25-variant.ts';
import { calibrate, type Calibration, type CdfTable } from './calibrate.ts';
import { dedupByDocument } from './dedup.ts';
import { fusionEntropy } from './entropy.ts';
import { compileFilters } from './filter.ts';
import { linearFusion, reciprocalRankFusion } from './fusion.ts';
import type { KnowledgeBase } from './knowledge-base.ts';
import { MODES, modeAvailability, type Capabilities, type RetrievalMode } from './modes.ts';
import { checkConfidence, idfCoverage, rejectThresholdFor, supportedConfidence } from './rejection.ts';
import type { SearchHit, SearchModels, SearchOptions, SearchOutcome, SearchTelemetry, StageName, StageTiming } from './search-types.ts';
import { DEFAULT_SEARCH } from './search-types.ts';
import type { Scored } from './topk.ts';
import { allFinite } from './vector-check.ts';

export * from './search-types.ts';

export const EMPTY_QUERY = 'Type a question or some keywords to search.';
export const NO_TERMS = 'The query has no searchable words (only stop words, punctuation or symbols). Try more specific words.';
export const NO_MATCH = 'No passage contains any of the query words.';
export const NO_DOCS_IN_FILTER = 'No document matches the filters.';
export const BAD_QUERY_VECTOR = 'The embedding model returned a query vector with NaN or infinite values, so dense scores cannot be computed; reload the model or search with BM25.';

const now = () => performance.now();

export function capabilitiesOf(kb: KnowledgeBase, models: SearchModels): Capabilities {
  return { dense: kb.dense !== null && !!models.encoder, reranker: !!models.reranker };
}

export interface SearchSteps {
  /** What can be shown now: the final outcome, or in rerank modes the fused ranking with `telemetry.pending` set. */
  first: SearchOutcome;
  /** Runs the pending stages (at most once) and gives the final outcome: `first` itself when nothing is pending. */
  final(signal?: AbortSignal): Promise<SearchOutcome>;
}

/** The final outcome of a query (see `searchSteps` for the outcome before rerank). */
export async function search(
  kb: KnowledgeBase,
  query: string,
  options: Partial<SearchOptions> = {},
  models: SearchModels = {},
): Promise<SearchOutcome> {
  return (await searchSteps(kb, query, options, models)).final();
}

/** The PENDING stages of a rerank mode's first outcome. */
export const RERANK_PENDING: readonly StageName[] = Object.freeze(['rerank', 'dedup', 'reject']);

export async function searchSteps(
  kb: KnowledgeBase,
  query: string,
  options: Partial<SearchOptions> = {},
  models: SearchModels = {},
): Promise<SearchSteps> {
  const t0 = now();
  const settled = (outcome: SearchOutcome): SearchSteps => ({ first: outcome, final: async () => outcome });
  const o: SearchOptions = { ...DEFAULT_SEARCH, ...options };
  kb = withSearchBm25(kb, o.k1, o.b);
  const meta = MODES[o.mode];
  if (!meta) return settled({ status: 'unavailable', reason: `Unknown retrieval mode "${String(o.mode)}".`, hits: [], telemetry: null });
  const avail = modeAvailability(o.mode, capabilitiesOf(kb, models));
  if (!avail.available) return settled({ status: 'unavailable', reason: avail.reason, hits: [], telemetry: null });

  const stages: StageTiming[] = [];
  const timed = async <T>(stage: StageName, fn: () => T | Promise<T>, model = false): Promise<T> => {
    const t1 = now();
    const r = await fn();
    stages.push({ stage, ms: now() - t1, ...(model ? { model } : {}) });
    return r;
  };
  const telemetry: SearchTelemetry = {
    mode: o.mode, queryTerms: [], stages, queryMs: 0, modelMs: 0,
    pending: [], timeToFirstMs: 0, timeToRerankedMs: null, rerankPairs: null,
    candidates: { sparse: 0, dense: 0, fused: 0, afterDedup: 0, returned: 0 },
    filteredDocs: null, alpha: null, hSparse: null, hDense: null,
    calibration: { requested: o.calibration, sparse: null, dense: null }, entropy: null, confidence: null,
  };
  const finish = () => {
    telemetry.queryMs = stages.filter((s) => !s.model).reduce((a, s) => a + s.ms, 0);
    telemetry.modelMs = stages.filter((s) => s.model).reduce((a, s) => a + s.ms, 0);
    telemetry.timeToFirstMs = now() - t0;
    return telemetry;
  };

  if (query.trim() === '') return settled({ status: 'empty', reason: EMPTY_QUERY, hits: [], telemetry: null });

  // analyze
  const { terms, accept } = await timed('analyze', () => {
    const mask = compileFilters(kb.docs, o.filters);
    if (mask) telemetry.filteredDocs = mask.reduce((a, b) => a + b, 0);
    return { terms: kb.bm25.queryTerms(query), accept: mask ? (i: number) => mask[kb.docIndexOf(i)] === 1 : undefined };
  });
  telemetry.queryTerms = terms;
  if (telemetry.filteredDocs === 0) return settled({ status: 'empty', reason: NO_DOCS_IN_FILTER, hits: [], telemetry: finish() });
  const useDense = meta.needsDense;
  // Items whose vector was unusable (vector-check.ts) are left out of dense search, on top of the filters.
  const skip = kb.denseSkip;
  const denseAccept = skip ? (i: number) => skip[i] !== 1 && (!accept || accept(i)) : accept;
  if (terms.length === 0 && !useDense) return settled({ status: 'empty', reason: NO_TERMS, hits: [], telemetry: finish() });

  // Retrieval rounds: with dedup, the chunks of a few documents can fill the candidate pool, so the pools double
  // (at most 4 times) until top_k documents remain or the retrievers run out of candidates.
  // Without pool growth (seed B's protocol) each retriever gives exactly its k candidates (bm25_k, dense_k).
  const kSparse = o.bm25K ?? o.candidateK, kDense = o.denseK ?? o.candidateK;
  let grow = 1;
  const poolOf = (k: number) => (o.growPool ? Math.max(k, o.topK) : k) * grow;
  let sparseHits: Scored[] = [];
  let denseHits: Scored[] = [];
  let qvec: Float32Array | null = null;
  let ranked: SearchHit[] = [];
  let kept: SearchHit[] = [];
  for (let round = 0; ; round++) {
    const poolSparse = poolOf(kSparse), poolDense = poolOf(kDense);
    if (meta.needsSparse && terms.length > 0) {
      sparseHits = await timed('sparse', () => kb.bm25.search(terms, poolSparse, kb.itemId, accept));
    }
    if (useDense) {
      qvec ??= await timed('embed', () => models.encoder!.embedQuery(o.denseQuery ?? query), true);
      if (!allFinite(qvec)) return settled({ status: 'unavailable', reason: BAD_QUERY_VECTOR, hits: [], telemetry: null });
      // Every index kind drops non-finite scores; the filter keeps that true for any DenseRetriever.
      denseHits = (await timed('dense', () => kb.dense!.search(qvec!, poolDense, kb.itemId, denseAccept))).filter((h) => Number.isFinite(h.score));
    }
    ranked = await timed('fuse', () => fuse(kb, o, terms, qvec, sparseHits, denseHits, telemetry));
    if (meta.needsReranker) break; // the reranker sees the fused pool; dedup happens after it
    // fusion_top_k: the fused list cut before dedup and top_k, a fixed cap (larger pools cannot widen it).
    const capped = o.fusionTopK !== null && o.mode !== 'sparse' && o.mode !== 'dense' && ranked.length >= o.fusionTopK;
    if (capped) ranked = ranked.slice(0, o.fusionTopK!);
    kept = await timed('dedup', () => (o.dedup ? dedupByDocument(ranked, (h) => h.docId) : ranked));
    const exhausted = sparseHits.length < poolSparse && denseHits.length < poolDense;
    const whole = (!meta.needsSparse || poolSparse >= kb.size) && (!useDense || poolDense >= kb.size);
    if (!o.growPool || kept.length >= o.topK || capped || exhausted || whole || round === 4) break;
    grow *= 2;
  }
  telemetry.candidates.sparse = sparseHits.length;
  telemetry.candidates.dense = denseHits.length;
  telemetry.candidates.fused = ranked.length;
  if (ranked.length === 0) return settled({ status: 'empty', reason: NO_MATCH, hits: [], telemetry: finish() });

  /** top_k of the kept hits, then the confidence check on the top one. */
  const judge = async (deduped: SearchHit[]): Promise<SearchOutcome> => {
    telemetry.candidates.afterDedup = deduped.length;
    const hits = topHits(deduped, o.topK);
    telemetry.candidates.returned = hits.length;
    const check = await timed('reject', () => {
      const { confidence, why } = confidenceOf(o.mode, hits[0]!, lexicalEvidence(kb, terms, sparseHits, accept));
      const threshold = rejectThresholdFor(o.mode, o.rejectThreshold);
      return threshold > 0 ? checkConfidence(confidence, threshold, why) : checkConfidence(confidence, 0);
    });
    telemetry.confidence = check.confidence;
    if (!check.rejected && check.note) telemetry.rejectionNote = check.note;
    return check.rejected ? { status: 'rejected', reason: check.reason, hits, telemetry } : { status: 'ok', hits, telemetry };
  };

  if (!meta.needsReranker) {
    const outcome = await judge(kept);
    finish();
    return settled(outcome);
  }

  // First outcome: the pool the cross-encoder will reorder, in fused order (deduplicated, not judged yet).
  const rerankPool = ranked.slice(0, o.fusionTopK ?? o.candidateK);
  const preview = o.dedup ? dedupByDocument(rerankPool, (h) => h.docId) : rerankPool;
  const firstHits = topHits(preview, o.topK);
  const firstTelemetry: SearchTelemetry = structuredClone({
    ...finish(),
    pending: [...RERANK_PENDING],
    candidates: { ...telemetry.candidates, afterDedup: preview.length, returned: firstHits.length },
  });
  const first: SearchOutcome = { status: 'ok', hits: firstHits, telemetry: firstTelemetry };

  let final: Promise<SearchOutcome> | null = null;
  const rerankThenJudge = async (signal?: AbortSignal): Promise<SearchOutcome> => {
    signal?.throwIfAborted();
    const { scores, cached } = await timed('rerank', () => rerankScores(kb, query, rerankPool, models), true);
    signal?.throwIfAborted();
    telemetry.rerankPairs = { scored: rerankPool.length - cached, cached };
    const reranked = rerankPool
      .map((h, i) => ({ ...h, rerank: scores[i]!, score: scores[i]! }))
      .sort(byScoreThenId);
    const deduped = await timed('dedup', () => (o.dedup ? dedupByDocument(reranked, (h) => h.docId) : reranked));
    const outcome = await judge(deduped);
    const firstMs = firstTelemetry.timeToFirstMs;
    finish();
    telemetry.timeToFirstMs = firstMs;
    telemetry.timeToRerankedMs = now() - t0;
    return outcome;
  };
  return { first, final: (signal) => (final ??= rerankThenJudge(signal)) };
}

/** Deterministic ranking: score descending, then id ascending. */
const byScoreThenId = (a: SearchHit, b: SearchHit) => (a.score !== b.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function topHits(hits: readonly SearchHit[], k: number): SearchHit[] {
  return hits.slice(0, k).map((h, i) => ({ ...h, rank: i + 1 }));
}

/**
 * Cross-encoder logits of the pool's (query, chunk) pairs, in pool order: cached pairs are looked up, only the others
 * go to the model (one call), and their scores are cached.
 */
async function rerankScores(
  kb: KnowledgeBase, query: string, pool: readonly SearchHit[], models: SearchModels,
): Promise<{ scores: number[]; cached: number }> {
  const reranker = models.reranker!;
  const model = reranker.model;
  const cache = model ? models.rerankCache ?? null : null;
  const scores = pool.map((h) => (cache ? cache.get(model!, query, h.id) : undefined));
  const missing = pool.filter((_, i) => scores[i] === undefined);
  if (missing.length > 0) {
    const fresh = await reranker.rerank(query, missing.map((h) => kb.itemText(h.item)));
    if (fresh.length !== missing.length || !fresh.every(Number.isFinite)) {
      throw new Error(`The cross-encoder returned ${fresh.length} scores for ${missing.length} passages, or a score that is not a number.`);
    }
    let j = 0;
    pool.forEach((h, i) => {
      if (scores[i] !== undefined) return;
      scores[i] = fresh[j++]!;
      cache?.set(model!, query, h.id, scores[i]);
    });
  }
  return { scores: scores as number[], cached: pool.length - missing.length };
}

function blankHit(kb: KnowledgeBase, item: number): SearchHit {
  return { rank: 0, item, id: kb.itemId(item), docId: kb.docOf(item).id, score: 0, sparse: null, dense: null, sparseCal: null, denseCal: null, rerank: null };
}

/** Calibrates one side, falling back from cdf to minmax when no table exists (and saying so). */
function calibrateSide(method: Calibration, scores: number[], table: CdfTable | null, side: string, t: SearchTelemetry): { values: number[]; used: Calibration } {
  if (method === 'cdf' && !table) {
    t.calibration.note = `${t.calibration.note ? t.calibration.note + ' ' : ''}No corpus-CDF table for ${side}: min-max used instead.`;
    return { values: calibrate('minmax', scores), used: 'minmax' };
  }
  return { values: calibrate(method, scores, table ?? undefined), used: method };
}

function fuse(
  kb: KnowledgeBase, o: SearchOptions, terms: string[], qvec: Float32Array | null,
  sparseHits: Scored[], denseHits: Scored[], t: SearchTelemetry,
): SearchHit[] {
  delete t.calibration.note; // fuse may run again with a larger pool
  if (o.mode === 'sparse') {
    const raw = sparseHits.map((h) => h.score);
    const cal = calibrateSide(o.calibration, raw, kb.sparseCdf, 'BM25', t);
    t.calibration.sparse = cal.used;
    return sparseHits.map((h, i) => ({ ...blankHit(kb, h.index), score: h.score, sparse: h.score, sparseCal: cal.values[i]! }));
  }
  if (o.mode === 'dense') {
    return denseHits.map((h) => ({ ...blankHit(kb, h.index), score: h.score, dense: h.score }));
  }
  // Hybrid modes: every candidate of either list gets both scores, computed exactly.
  const union = [...new Set([...sparseHits.map((h) => h.index), ...denseHits.map((h) => h.index)])];
  const sparse = terms.length > 0 ? kb.bm25.scoreItems(terms, union) : union.map(() => 0);
  // A left-out item (zeroed vector) scores 0; a non-finite score is counted as 0 too, never carried into a rank.
  const dense = kb.dense!.scoreItems(qvec!, union).map((x, i) => (Number.isFinite(x) && kb.denseSkip?.[union[i]!] !== 1 ? x : 0));
  const hits = union.map((item, i) => ({ ...blankHit(kb, item), sparse: sparse[i]!, dense: dense[i]! }));
  if (o.mode === 'rrf') {
    const rrf = reciprocalRankFusion([sparseHits.map((h) => h.index), denseHits.map((h) => h.index)], o.rrfK);
    hits.forEach((h) => { h.score = rrf.get(h.item) ?? 0; });
  } else if (o.mode === 'hybrid_fixed' || o.mode === 'hybrid_fixed_rerank') {
    const s = calibrate('minmax', sparse), d = calibrate('minmax', dense);
    const fused = linearFusion(s, d, o.alpha);
    t.alpha = o.alpha;
    t.calibration.sparse = t.calibration.dense = 'minmax';
    hits.forEach((h, i) => { h.sparseCal = s[i]!; h.denseCal = d[i]!; h.score = fused[i]!; });
  } else {
    const s = calibrateSide(o.calibration, sparse, kb.sparseCdf, 'BM25', t);
    const d = calibrateSide(o.calibration, dense, kb.denseCdf, 'dense', t);
    // Seed B: H over each retriever's own calibrated top-candidate_k scores, α = H_dense / (H_dense + H_sparse + ε)
    const k = { sparse: o.bm25K ?? o.candidateK, dense: o.denseK ?? o.candidateK };
    const h = fusionEntropy(o.entropyBasis, o.calibration, k, sparseHits.map((x) => x.score), denseHits.map((x) => x.score),
      { sparse: kb.sparseCdf, dense: kb.denseCdf });
    t.hSparse = h.hSparse;
    t.hDense = h.hDense;
    t.alpha = h.alpha;
    t.entropy = { basis: o.entropyBasis, sparse: h.calibration.sparse, dense: h.calibration.dense, k: k.sparse, ...(k.dense !== k.sparse ? { kDense: k.dense } : {}) };
    t.calibration.sparse = s.used;
    t.calibration.dense = d.used;
    const fused = linearFusion(s.values, d.values, t.alpha);
    hits.forEach((h, i) => { h.sparseCal = s.values[i]!; h.denseCal = d.values[i]!; h.score = fused[i]!; });
  }
  return hits.sort(byScoreThenId);
}

/**
 * The share of the query's idf held by the best BM25 match (`idfCoverage`): whether the knowledge base holds the
 * query's words together. BM25's own list when the mode ran it, else one BM25 lookup; null without query terms.
 */
function lexicalEvidence(kb: KnowledgeBase, terms: string[], sparseHits: Scored[], accept?: (i: number) => boolean): number | null {
  if (terms.length === 0) return null;
  const best = sparseHits[0]?.index ?? kb.bm25.search(terms, 1, kb.itemId, accept)[0]?.index;
  if (best === undefined) return 0;
  const { idf, matched } = kb.bm25.termMatches(terms, best);
  return idfCoverage(idf, matched);
}

/**
 * The top hit's confidence in [0, 1]: the lexical evidence (`lexicalEvidence`), and in modes with a model the smaller
 * of that and the model's evidence for the top hit (clipped cosine; sigmoid of the rerank logit). A dense query
 * with no searchable words has only the model's evidence.
 */
function confidenceOf(mode: RetrievalMode, top: SearchHit, lexical: number | null): { confidence: number | null; why?: string } {
  let model: number;
  switch (mode) {
    case 'sparse':
      return lexical !== null ? { confidence: lexical } : { confidence: null, why: 'the query has no terms' };
    case 'dense':
    case 'rrf':
    case 'hybrid_fixed':
    case 'hybrid_calibrated':
      model = top.dense ?? 0;
      break;
    case 'hybrid_fixed_rerank':
    case 'hybrid_calibrated_rerank':
      model = 1 / (1 + Math.exp(-(top.rerank ?? 0)));
      break;
  }
  return { confidence: supportedConfidence(lexical ?? 1, model) };
}
