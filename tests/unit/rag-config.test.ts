import { describe, expect, it } from 'vitest';
import {
  cloneConfig, DEFAULT_RAG_CONFIG, fromUrlParams, parseRagConfig, toUrlParams, type RagConfig,
} from '../../src/lib/rag/config.ts';
import { pipelineSettingsJson, pipelineSettingsText } from '../../src/lib/eval/core/pipeline-settings.ts';
import { searchOptionsFor } from '../../src/lib/rag/retrieve.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';
import { DEFAULT_SEARCH } from '../../src/lib/retrieval/search.ts';

function ok(input: unknown): RagConfig {
  const r = parseRagConfig(input);
  if (!r.ok) throw new Error(r.message);
  return r.config;
}
function errors(input: unknown): string[] {
  const r = parseRagConfig(input);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
}

describe('RAG config', () => {
  it('fills documented defaults, reusing the search defaults', () => {
    const c = ok({});
    expect(c).toEqual(DEFAULT_RAG_CONFIG);
    expect(c.retrieval).toEqual({
      mode: DEFAULT_SEARCH.mode, topK: DEFAULT_SEARCH.topK, candidateK: DEFAULT_SEARCH.candidateK,
      bm25K: DEFAULT_SEARCH.bm25K, denseK: DEFAULT_SEARCH.denseK, fusionTopK: DEFAULT_SEARCH.fusionTopK,
      calibration: DEFAULT_SEARCH.calibration, alpha: DEFAULT_SEARCH.alpha, rejectThreshold: DEFAULT_REJECT_THRESHOLDS.sparse, dedup: true,
      entropyBasis: DEFAULT_SEARCH.entropyBasis, k1: null, b: null,
    });
    expect(c.transform).toEqual({ kind: 'none', n: 3 });
    expect(c.window).toBe(1);
    expect(c.rerank).toEqual({ enabled: false, topN: 3 });
    expect(c.agentic).toBe(false);
    expect(c.grading).toEqual({ perDocument: false, model: null });
    expect(ok(undefined)).toEqual(DEFAULT_RAG_CONFIG);
    expect(Object.isFrozen(DEFAULT_RAG_CONFIG.retrieval)).toBe(true);
  });

  it('keeps given values and fills the rest', () => {
    const c = ok({ transform: { kind: 'multi_query' }, retrieval: { topK: 8 }, llm: { provider: 'openai', model: ' gpt-4o-mini ', baseUrl: 'https://api.example.com/v1' } });
    expect(c.transform).toEqual({ kind: 'multi_query', n: 3 });
    expect(c.retrieval.topK).toBe(8);
    expect(c.retrieval.candidateK).toBe(20);
    expect(c.llm).toEqual({ provider: 'openai', model: 'gpt-4o-mini', baseUrl: 'https://api.example.com/v1', temperature: 0, maxTokens: 1024 });
  });

  it('explains each error with its field, the rule and the value', () => {
    expect(errors({ retrieval: { topK: 0, mode: 'fancy' }, transform: { kind: 'hyde', n: 2.5 }, window: -1, llm: { temperature: 'hot' } })).toEqual([
      'retrieval.mode: must be one of sparse, dense, rrf, hybrid_fixed, hybrid_calibrated, hybrid_fixed_rerank, hybrid_calibrated_rerank, got "fancy"',
      'retrieval.topK: must be at least 1, got 0',
      'transform.n: must be a whole number, got 2.5',
      'window: must be at least 0, got -1',
      'llm.temperature: must be a number, got "hot"',
    ]);
    expect(errors({ retrieval: { topk: 3 } })).toEqual(['retrieval.topk: is not a setting (unknown field)']);
    expect(errors('sparse')).toEqual(['config: must be an object, got "sparse"']);
    expect(errors({ rerank: { enabled: true, topN: 9 } })).toEqual([
      'rerank.topN must not exceed retrieval.topK (the reranker reorders the top_k passages and keeps top_n)',
    ]);
    expect(ok({ rerank: { enabled: false, topN: 9 } }).rerank.topN).toBe(9); // only checked when reranking
    const msg = parseRagConfig({ window: 'wide' });
    expect(msg.ok === false && msg.message).toBe('Invalid RAG config: window: must be a number, got "wide"');
  });

  it('refuses secrets: no API key field, no credentials in the base URL', () => {
    expect(errors({ llm: { apiKey: 'sk-secret' } })).toEqual([
      'llm.apiKey: API keys and other secrets never go in a RAG config (they stay in the key store); remove this field',
    ]);
    expect(errors({ api_key: 'x', llm: { Authorization: 'Bearer x' } })).toHaveLength(2);
    const userinfo = errors({ llm: { baseUrl: 'https://user:sk-secret@api.example.com' } });
    expect(userinfo).toEqual(['llm.baseUrl: must not contain a user name or password (keys never go in the config)']);
    expect(userinfo.join()).not.toContain('sk-secret');
    expect(errors({ llm: { baseUrl: 'https://api.example.com/v1?api_key=sk-secret' } })[0]).toMatch(/^llm\.baseUrl: must not carry a key/);
    expect(errors({ llm: { baseUrl: 'ftp://x' } })).toEqual(['llm.baseUrl: must be an http(s) URL']);
    expect(errors({ llm: { baseUrl: 'not a url' } })).toEqual(['llm.baseUrl: must be an http(s) URL']);
    expect(ok({ llm: { baseUrl: null } }).llm.baseUrl).toBeNull();
  });

  it('a serialized config never contains an API key', () => {
    const c = ok({ llm: { provider: 'anthropic', model: 'claude-x' }, agentic: true });
    const json = JSON.stringify(c);
    expect(json).not.toMatch(/api.?key|secret|token"/i);
    expect(ok(JSON.parse(json))).toEqual(c); // round-trips
    const withKey = { ...cloneConfig(c), llm: { ...c.llm, apiKey: 'sk-1' } };
    expect(parseRagConfig(withKey).ok).toBe(false);
    expect(toUrlParams(c).toString()).not.toMatch(/key/i);
    // a link carrying a key parameter: ignored, never lands in the config
    const { config } = fromUrlParams('apiKey=sk-1&prov=openai');
    expect(JSON.stringify(config)).not.toContain('sk-1');
    expect(config.llm.provider).toBe('openai');
  });

  it('round-trips through URL parameters, writing only non-defaults', () => {
    expect(toUrlParams(DEFAULT_RAG_CONFIG).toString()).toBe('');
    const c = ok({
      retrieval: { mode: 'rrf', topK: 7, rejectThreshold: 0.35, dedup: false }, transform: { kind: 'hyde_bm25', n: 4 },
      rerank: { enabled: true, topN: 2 }, window: 0, llm: { provider: 'hf', model: 'm/x', temperature: 0.7, baseUrl: 'https://h.example/v1' }, agentic: true,
    });
    const p = toUrlParams(c);
    expect(p.toString()).toBe('mode=rrf&k=7&thr=0.35&dedup=0&tx=hyde_bm25&n=4&rr=1&rrn=2&w=0&prov=hf&base=https%3A%2F%2Fh.example%2Fv1&model=m%2Fx&temp=0.7&agent=1');
    const back = fromUrlParams(p);
    expect(back.warnings).toEqual([]);
    expect(back.config).toEqual(c);
  });

  it("seed A's separate k's: null by default (candidate_k), in links as bk / dk / fk, handed to the search", () => {
    expect(DEFAULT_RAG_CONFIG.retrieval).toMatchObject({ bm25K: null, denseK: null, fusionTopK: null });
    const c = ok({ retrieval: { bm25K: 10, denseK: 40, fusionTopK: 25 } });
    expect(toUrlParams(c).toString()).toBe('bk=10&dk=40&fk=25');
    expect(fromUrlParams('bk=10&dk=40&fk=25').config).toEqual(c);
    expect(searchOptionsFor(c)).toMatchObject({ candidateK: 20, bm25K: 10, denseK: 40, fusionTopK: 25 });
    expect(parseRagConfig({ retrieval: { bm25K: 0 } })).toMatchObject({ ok: false, errors: [expect.stringMatching(/^retrieval\.bm25K: must be at least 1/)] });
    expect(pipelineSettingsText(c)).toMatch(/top 5, bm25_k 10, dense_k 40, fusion_top_k 25 · /);
    expect(pipelineSettingsJson(c)).toMatchObject({ bm25_k: 10, dense_k: 40, fusion_top_k: 25 });
    expect(pipelineSettingsJson(DEFAULT_RAG_CONFIG)).not.toHaveProperty('bm25_k');
  });

  it('per-document grading and the grader model: in the config, in links, refused when malformed', () => {
    const c = ok({ agentic: true, grading: { perDocument: true, model: '  llama-3.1-8b-instant ' } });
    expect(c.grading).toEqual({ perDocument: true, model: 'llama-3.1-8b-instant' });
    const p = toUrlParams(c);
    expect(p.toString()).toBe('agent=1&gdoc=1&gmodel=llama-3.1-8b-instant');
    expect(fromUrlParams(p).config).toEqual(c);
    expect(fromUrlParams('gdoc=maybe').warnings).toEqual([expect.stringMatching(/^Ignored gdoc="maybe" in the link: grading\.perDocument: must be true or false/)]);
    expect(parseRagConfig({ grading: { model: '' } })).toMatchObject({ ok: false, errors: [expect.stringMatching(/^grading\.model: must not be empty/)] });
    expect(parseRagConfig({ grading: { perDocument: true, url: 'x' } })).toMatchObject({ ok: false, errors: ['grading.url: is not a setting (unknown field)'] });
    expect(cloneConfig(c).grading).not.toBe(c.grading);
  });

  it('falls back to defaults for invalid URL values, with a warning each', () => {
    const { config, warnings } = fromUrlParams('k=0&tx=magic&w=2&temp=abc&q=ignored');
    expect(config.retrieval.topK).toBe(5);
    expect(config.transform.kind).toBe('none');
    expect(config.window).toBe(2);
    expect(config.llm.temperature).toBe(0);
    expect(warnings).toEqual([
      'Ignored k="0" in the link: retrieval.topK: must be at least 1, got 0.',
      'Ignored tx="magic" in the link: transform.kind: must be one of none, rewrite, multi_query, hyde, hyde_bm25, got "magic".',
      'Ignored temp="abc" in the link: llm.temperature: must be a number, got NaN.',
    ]);
  });

  it('treats blank URL numbers as absent, never as 0, with a warning each', () => {
    const { config, warnings } = fromUrlParams('thr=&k=%20&w=&ck=7&model=');
    expect(config.retrieval.rejectThreshold).toBe(DEFAULT_RAG_CONFIG.retrieval.rejectThreshold);
    expect(config.retrieval.topK).toBe(5);
    expect(config.window).toBe(1);
    expect(config.retrieval.candidateK).toBe(7);
    expect(config.llm.model).toBe(DEFAULT_RAG_CONFIG.llm.model);
    expect(warnings).toEqual([
      'Ignored the empty k= in the link; using 5.',
      `Ignored the empty thr= in the link; using ${DEFAULT_RAG_CONFIG.retrieval.rejectThreshold}.`,
      'Ignored the empty w= in the link; using 1.',
      `Ignored the empty model= in the link; using ${DEFAULT_RAG_CONFIG.llm.model}.`,
    ]);
    // An empty base URL is a value: the provider's default endpoint.
    expect(fromUrlParams('base=')).toEqual({ config: cloneConfig(DEFAULT_RAG_CONFIG), warnings: [] });
  });

  it('keeps the first of a repeated URL parameter, with a warning', () => {
    const { config, warnings } = fromUrlParams('k=3&k=9&mode=rrf&mode=rrf');
    expect(config.retrieval.topK).toBe(3);
    expect(config.retrieval.mode).toBe('rrf');
    expect(warnings).toEqual(['The link gives mode 2 times; using the first ("rrf").', 'The link gives k 2 times; using the first ("3").']);
  });
});
