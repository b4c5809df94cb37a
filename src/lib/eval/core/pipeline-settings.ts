/**
 * What a pipeline configuration (`RagConfig`) runs, for benchmark runs: the retrieval mode it really searches with,
 * the local models it needs, and its settings in words and as JSON (for the Benchmark tab, reports and the CLI).
 * Small on purpose: the page imports it without the pipeline itself.
 */
import type { RagConfig } from '../../rag/config.ts';
import { MODES, type RetrievalMode } from '../../retrieval/modes.ts';

/** The retrieval mode a config searches with: the HyDE transforms override it ('hyde' → dense, 'hyde_bm25' → rrf). */
export function effectiveMode(config: RagConfig): RetrievalMode {
  if (config.agentic) return config.retrieval.mode;
  return config.transform.kind === 'hyde' ? 'dense' : config.transform.kind === 'hyde_bm25' ? 'rrf' : config.retrieval.mode;
}

/** The local models a pipeline config needs: an embedder for dense or hybrid search, a cross-encoder to rerank. */
export function pipelineModelNeeds(config: RagConfig): { dense: boolean; reranker: boolean } {
  const mode = MODES[effectiveMode(config)];
  return { dense: mode.needsDense, reranker: mode.needsReranker || config.rerank.enabled };
}

/** The settings that shape a pipeline run, in words (shown with its results; never a key: the config has none). */
export function pipelineSettingsText(c: RagConfig): string {
  const mode = effectiveMode(c);
  return [
    `${c.retrieval.mode} retrieval${mode !== c.retrieval.mode ? ` (${mode} for ${c.transform.kind})` : ''}, top ${c.retrieval.topK}${separateKsText(c)}`,
    c.rerank.enabled ? `rerank → ${c.rerank.topN}` : 'no rerank',
    c.agentic ? `agentic${c.grading.perDocument ? ', grading each source' : ''}${c.grading.model ? ` (grader ${c.grading.model})` : ''}` : c.transform.kind === 'none' ? 'no query transform' : `transform ${c.transform.kind}${c.transform.kind === 'multi_query' ? ` (${c.transform.n})` : ''}`,
    c.window > 0 ? `sentence window ±${c.window}` : 'no sentence window',
    `answers by ${c.llm.provider}/${c.llm.model}`,
  ].join(' · ');
}

/** Seed A's separate k's, where set: ", bm25_k 10, dense_k 40". */
function separateKsText(c: RagConfig): string {
  const r = c.retrieval;
  return [['bm25_k', r.bm25K], ['dense_k', r.denseK], ['fusion_top_k', r.fusionTopK]].filter(([, k]) => k !== null).map(([n, k]) => `, ${n} ${k}`).join('');
}

/** The settings as JSON, for reports and the CLI. */
export function pipelineSettingsJson(c: RagConfig) {
  return {
    retrieval_mode: c.retrieval.mode, effective_mode: effectiveMode(c), top_k: c.retrieval.topK, reject_threshold: c.retrieval.rejectThreshold,
    ...(c.retrieval.bm25K !== null ? { bm25_k: c.retrieval.bm25K } : {}), ...(c.retrieval.denseK !== null ? { dense_k: c.retrieval.denseK } : {}),
    ...(c.retrieval.fusionTopK !== null ? { fusion_top_k: c.retrieval.fusionTopK } : {}),
    rerank: c.rerank.enabled ? c.rerank.topN : null, transform: c.transform.kind, window: c.window, agentic: c.agentic,
    ...(c.agentic ? { grading: { per_document: c.grading.perDocument, model: c.grading.model } } : {}),
    provider: c.llm.provider, model: c.llm.model,
  };
}
