/**
 * Evaluates retrieval modes on a BEIR dataset: one run per mode over the judged queries, IR metrics per query,
 * means, and per-query latency (non-model stages only). Used by the CLI and, later, the Benchmark tab.
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { RetrievalMode } from '../retrieval/modes.ts';
import { search, type SearchModels, type SearchOptions } from '../retrieval/search.ts';
import { irScores, meanScores, type IrScores } from './ir-metrics.ts';
import { mean, percentile } from './stats.ts';
import { trecRunLines } from './trec-run.ts';

export interface ModeResult extends IrScores {
  mean_ms: number;
  p95_ms: number;
}

export interface BeirEvalResult {
  dataset: string;
  queries: number;
  modes: Partial<Record<RetrievalMode, ModeResult>>;
  /** Modes that could not run, with the reason. */
  skipped: Partial<Record<RetrievalMode, string>>;
}

export interface BeirEvalOptions {
  dataset: string;
  modes: readonly RetrievalMode[];
  /** Documents ranked per query (R@100 needs 100). Default 100. */
  depth: number;
  search: Partial<SearchOptions>;
  models: SearchModels;
  /** Collects TREC run lines when given. */
  runLines?: string[];
  /** Each judged query's ranking (document ids, best first) and scores, for per-query reports. */
  onQuery?: (mode: RetrievalMode, query: BeirQuery, ranked: readonly string[], scores: IrScores) => void;
  onProgress?: (mode: RetrievalMode, done: number, total: number) => void;
  signal?: AbortSignal;
}

export async function evaluateBeir(kb: KnowledgeBase, queries: readonly BeirQuery[], qrels: Qrels, opts: BeirEvalOptions): Promise<BeirEvalResult> {
  const judged = queries.filter((q) => qrels.has(q.id));
  const chunked = kb.options.chunking !== false;
  const result: BeirEvalResult = { dataset: opts.dataset, queries: judged.length, modes: {}, skipped: {} };
  for (const mode of opts.modes) {
    const perQuery: IrScores[] = [];
    const latencies: number[] = [];
    let skipped: string | null = null;
    for (let i = 0; i < judged.length; i++) {
      opts.signal?.throwIfAborted();
      const q = judged[i]!;
      const out = await search(kb, q.text, {
        // Chunked: over-fetch chunks so `depth` distinct documents survive dedup.
        candidateK: chunked ? opts.depth * 10 : opts.depth,
        ...opts.search,
        mode,
        topK: opts.depth,
        dedup: true,
        rejectThreshold: 0,
      }, opts.models);
      if (out.status === 'unavailable') { skipped = out.reason; break; }
      const hits = out.hits.map((h) => ({ id: h.docId, score: h.score }));
      const ranked = hits.map((h) => h.id);
      const scores = irScores(ranked, qrels.get(q.id)!);
      perQuery.push(scores);
      opts.onQuery?.(mode, q, ranked, scores);
      if (out.telemetry) latencies.push(out.telemetry.queryMs);
      opts.runLines?.push(...trecRunLines(q.id, hits, `rag-lab-${mode}`));
      opts.onProgress?.(mode, i + 1, judged.length);
    }
    if (skipped !== null) { result.skipped[mode] = skipped; continue; }
    result.modes[mode] = { ...meanScores(perQuery), mean_ms: mean(latencies), p95_ms: percentile(latencies, 95) };
  }
  return result;
}
