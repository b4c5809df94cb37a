/** What a pipeline config runs: effective mode, models needed, and the settings in words. */
import { describe, expect, it } from 'vitest';
import { effectiveMode, pipelineModelNeeds, pipelineSettingsJson, pipelineSettingsText } from '../../src/lib/eval/core/pipeline-settings.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';

const config = (f: (c: ReturnType<typeof cloneConfig>) => void) => { const c = cloneConfig(DEFAULT_RAG_CONFIG); f(c); return c; };

describe('pipeline settings', () => {
  it('HyDE overrides the retrieval mode and needs the embedder; rerank needs the cross-encoder', () => {
    expect(effectiveMode(config((c) => { c.transform.kind = 'hyde'; }))).toBe('dense');
    expect(effectiveMode(config((c) => { c.transform.kind = 'hyde_bm25'; }))).toBe('rrf');
    expect(pipelineModelNeeds(DEFAULT_RAG_CONFIG)).toEqual({ dense: false, reranker: false });
    expect(pipelineModelNeeds(config((c) => { c.transform.kind = 'hyde'; }))).toEqual({ dense: true, reranker: false });
    expect(pipelineModelNeeds(config((c) => { c.rerank = { enabled: true, topN: 2 }; }))).toEqual({ dense: false, reranker: true });
  });

  it('names every setting that shapes the run', () => {
    expect(pipelineSettingsText(DEFAULT_RAG_CONFIG)).toBe('sparse retrieval, top 5 · no rerank · no query transform · sentence window ±1 · answers by groq/llama-3.3-70b-versatile');
    const c = config((x) => { x.retrieval.mode = 'rrf'; x.transform.kind = 'multi_query'; x.rerank = { enabled: true, topN: 3 }; x.window = 0; x.llm.provider = 'openai'; x.llm.model = 'm'; });
    expect(pipelineSettingsText(c)).toBe('rrf retrieval, top 5 · rerank → 3 · transform multi_query (3) · no sentence window · answers by openai/m');
    expect(pipelineSettingsJson(c)).toMatchObject({ retrieval_mode: 'rrf', rerank: 3, transform: 'multi_query', window: 0, provider: 'openai', model: 'm' });
  });
});
