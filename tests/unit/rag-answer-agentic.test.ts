// answerQuestion's query transforms, rerank and agentic loop (the plain pipeline: rag-answer.test.ts).
import { describe, expect, it } from 'vitest';
import { MAX_EXTRA_ROUNDS } from '../../src/lib/rag/agentic.ts';
import { AGENT_REWRITE_SYSTEM_PROMPT, GRADE_ONE_SYSTEM_PROMPT, GRADE_SYSTEM_PROMPT, REFLECT_SYSTEM_PROMPT } from '../../src/lib/rag/agent-requests.ts';
import { DEFAULT_RAG_CONFIG, type RagConfig } from '../../src/lib/rag/config.ts';
import { ANSWER_SYSTEM_PROMPT } from '../../src/lib/rag/prompt.ts';
import { NO_RELEVANT_ANSWER, NO_SOURCES_ANSWER } from '../../src/lib/rag/retrieve.ts';
import { HYDE_SYSTEM_PROMPT, MemoryTransformCache, MULTI_QUERY_SYSTEM_PROMPT, REWRITE_SYSTEM_PROMPT } from '../../src/lib/rag/transforms.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { NO_EMBEDDER, NO_RERANKER } from '../../src/lib/retrieval/modes.ts';
import type { QueryEncoder, SearchModels } from '../../src/lib/retrieval/search.ts';
import { answerUser, ask, config, DOCS, makeKb, OBS, ScriptedProvider, stepNames, systemOf, usageOf, userOf } from '../helpers/rag-answer-setup.ts';

describe('answerQuestion: query transforms', () => {
  it('multi-query: sends the variant prompt and fuses the question and variants by RRF (k = 60)', async () => {
    const provider = ScriptedProvider.queue('Here are 2 queries:\n\n1. obsidian\n2. pumice\n', 'ok');
    const { res } = await ask(makeKb(), 'basalt', config((c) => { c.transform = { kind: 'multi_query', n: 2 }; c.retrieval.topK = 3; }), provider);
    expect(provider.requests[0]).toEqual({
      kind: 'chat',
      req: {
        model: DEFAULT_RAG_CONFIG.llm.model, temperature: 0, maxTokens: 400,
        messages: [
          { role: 'system', content: MULTI_QUERY_SYSTEM_PROMPT.replaceAll('{n}', '2') },
          { role: 'user', content: 'Question: basalt' },
        ],
      },
    });
    expect(systemOf(provider.requests[0]!)).toContain('exactly 2 queries');
    expect(res.trace[0]!.outputs.queries).toEqual(['basalt', 'obsidian', 'pumice']);
    // basalt → [a, c]; obsidian → [b, a]; pumice → [b, c]
    // RRF: b = 1/61 + 1/61 = 0.0327869; a = 1/61 + 1/62 = 0.0325225; c = 1/62 + 1/62 = 0.0322581
    expect(res.contexts.map((c) => c.chunk_id)).toEqual(['b#0', 'a#0', 'c#0']);
    expect(res.contexts[0]!.score).toBeCloseTo(2 / 61, 12);
    expect(res.contexts[1]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(res.contexts[2]!.score).toBeCloseTo(2 / 62, 12);
  });

  it('multi-query output is cached by (transform, n, provider, model, question)', async () => {
    const cache = new MemoryTransformCache();
    const c = config((x) => { x.transform = { kind: 'multi_query', n: 2 }; });
    const p1 = ScriptedProvider.queue('1. obsidian\n2. pumice', 'a');
    await ask(makeKb(), 'basalt', c, p1, { cache });
    const p2 = ScriptedProvider.queue('b');
    const { res } = await ask(makeKb(), 'basalt', c, p2, { cache });
    expect(p2.requests.map((r) => r.kind)).toEqual(['stream']);
    expect(res.trace[0]).toMatchObject({ step: 'transform', llmCalls: 0, usage: null, outputs: { cached: true, queries: ['basalt', 'obsidian', 'pumice'] } });
    // another n is another key
    const p3 = ScriptedProvider.queue('1. obsidian', 'c');
    await ask(makeKb(), 'basalt', config((x) => { x.transform = { kind: 'multi_query', n: 1 }; }), p3, { cache });
    expect(p3.requests.map((r) => r.kind)).toEqual(['chat', 'stream']);
  });

  it('rewrite: searches the rewritten query, answers the original question', async () => {
    const provider = ScriptedProvider.queue('Rewritten query: "radio dish hydrogen"', 'fine');
    const { res } = await ask(makeKb(), 'What did they map in the sky?', config((c) => { c.transform.kind = 'rewrite'; c.retrieval.topK = 1; }), provider);
    expect(provider.requests[0]!.req.messages).toEqual([
      { role: 'system', content: REWRITE_SYSTEM_PROMPT },
      { role: 'user', content: 'Question: What did they map in the sky?' },
    ]);
    expect(res.trace[1]!.inputs.queries).toEqual(['radio dish hydrogen']);
    expect(res.contexts.map((c) => c.chunk_id)).toEqual(['obs#1']);
    expect(userOf(provider.requests[1]!)).toContain('<question>\nWhat did they map in the sky?\n</question>');
  });

  describe('HyDE', () => {
    const VOCAB = ['telescope', 'radio', 'dish', 'hydrogen', 'basalt', 'obsidian', 'pumice', 'lava', 'glass'];
    /** Deterministic bag-of-words embedding over VOCAB plus a constant dimension (never a zero vector). */
    const embed = (text: string) => {
      const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
      return Float32Array.from([...VOCAB.map((w) => words.filter((x) => x === w).length), 1]);
    };
    function withDense(): { kb: KnowledgeBase; models: SearchModels; seen: string[] } {
      const kb = makeKb();
      const rows: number[] = [];
      for (let i = 0; i < kb.size; i++) rows.push(...embed(kb.indexedText(i)));
      kb.dense = new ExactDenseIndex(Float32Array.from(rows), VOCAB.length + 1);
      const seen: string[] = [];
      const encoder: QueryEncoder = { embedQuery: async (q) => { seen.push(q); return embed(q); } };
      return { kb, models: { encoder }, seen };
    }
    const PASSAGE = 'A radio dish listened to hydrogen in the night sky.';

    it('hyde: the passage, not the question, is embedded for dense search', async () => {
      const { kb, models, seen } = withDense();
      const provider = ScriptedProvider.queue(`Passage: ${PASSAGE}`, 'x');
      const q = 'What did the astronomers listen to?';
      const { res } = await ask(kb, q, config((c) => { c.transform.kind = 'hyde'; c.retrieval.topK = 1; }), provider, { models });
      expect(provider.requests[0]!.req.messages).toEqual([
        { role: 'system', content: HYDE_SYSTEM_PROMPT },
        { role: 'user', content: `Question: ${q}` },
      ]);
      expect(seen).toEqual([PASSAGE]);
      expect(res.trace[1]!.outputs.mode).toBe('dense');
      expect(res.trace[1]!.inputs.denseQuery).toBe(PASSAGE);
      expect(res.contexts.map((c) => c.chunk_id)).toEqual(['obs#1']);
      expect(userOf(provider.requests[1]!)).toContain(`<question>\n${q}\n</question>`);
      expect(userOf(provider.requests[1]!)).not.toContain(PASSAGE);
    });

    it('hyde_bm25: the passage drives dense, the question drives BM25, fused by RRF', async () => {
      const { kb, models, seen } = withDense();
      const provider = ScriptedProvider.queue(PASSAGE, 'x');
      const { res } = await ask(kb, 'basalt', config((c) => { c.transform.kind = 'hyde_bm25'; c.retrieval.topK = 3; c.retrieval.dedup = false; }), provider, { models });
      expect(seen).toEqual([PASSAGE]);
      expect(res.trace[1]!.outputs.mode).toBe('rrf');
      // BM25 of "basalt": [a#0, c#0]; dense of the passage: obs#1 first (radio, dish, hydrogen), then ties by id.
      // a#0 = 1/61 + 1/(60 + rank_dense(a#0)) tops; obs#1 = 1/61 (dense only) is among the top three.
      const ids = res.contexts.map((c) => c.chunk_id);
      expect(ids[0]).toBe('a#0');
      expect(ids).toContain('obs#1');
      expect(ids).toContain('c#0');
    });

    it('hyde without an embedding model is unavailable and asks for no answer', async () => {
      const provider = ScriptedProvider.queue(PASSAGE);
      const { res } = await ask(makeKb(), 'basalt', config((c) => { c.transform.kind = 'hyde'; }), provider);
      expect(res.status).toBe('unavailable');
      expect(res.answer).toBe(NO_EMBEDDER);
      expect(provider.requests.map((r) => r.kind)).toEqual(['chat']);
    });
  });
});

describe('answerQuestion: rerank', () => {
  it('reranks the top_k with the cross-encoder and keeps top_n', async () => {
    const calls: { query: string; passages: readonly string[] }[] = [];
    // scores passages by how often "pumice" occurs
    const reranker = { rerank: async (query: string, passages: readonly string[]) => { calls.push({ query, passages }); return passages.map((p) => (p.match(/pumice/gi) ?? []).length); } };
    const provider = ScriptedProvider.queue('x');
    const { res } = await ask(makeKb(), 'basalt obsidian', config((c) => { c.retrieval.topK = 3; c.rerank = { enabled: true, topN: 2 }; }), provider, { models: { reranker } });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query).toBe('basalt obsidian');
    expect(res.contexts.map((c) => [c.chunk_id, c.score])).toEqual([['b#0', 2], ['c#0', 1]]);
    expect(stepNames(res)).toEqual(['transform', 'retrieve', 'rerank', 'window', 'prompt', 'generate', 'cite']);
  });

  it('rerank without a cross-encoder is unavailable', async () => {
    const provider = ScriptedProvider.queue();
    const { res } = await ask(makeKb(), 'basalt', config((c) => { c.rerank = { enabled: true, topN: 2 }; }), provider);
    expect(res).toMatchObject({ status: 'unavailable', answer: NO_RERANKER });
    expect(provider.requests).toEqual([]);
  });
});

describe('answerQuestion: agentic', () => {
  const agentic = (patch: (c: RagConfig) => void = () => {}) => config((c) => { c.agentic = true; c.window = 0; c.retrieval.topK = 3; patch(c); });

  it('rewrite → retrieve → grade → generate → reflect, with the exact grade and reflect requests', async () => {
    const provider = ScriptedProvider.queue(
      '1. obsidian\n2. pumice',
      '```json\n{"grades": [{"source": 1, "relevant": true}, {"source": 2, "relevant": "no"}, {"source": 3, "relevant": "yes"}]}\n```',
      { text: '', deltas: ['Obsidian is glass [1]', '; pumice floats [2].'] },
      'OK',
    );
    const { res, events } = await ask(makeKb(), 'basalt', agentic(), provider);
    expect(provider.requests.map((r) => [r.kind, systemOf(r)])).toEqual([
      ['chat', AGENT_REWRITE_SYSTEM_PROMPT],
      ['chat', GRADE_SYSTEM_PROMPT],
      ['stream', ANSWER_SYSTEM_PROMPT],
      ['chat', REFLECT_SYSTEM_PROMPT],
    ]);
    expect(userOf(provider.requests[0]!)).toBe('Question: basalt');
    // retrieve fuses basalt / obsidian / pumice: b, a, c (see the multi-query test); grade sees them numbered
    expect(provider.requests[1]!.req).toEqual({
      model: DEFAULT_RAG_CONFIG.llm.model, temperature: 0, maxTokens: 120, json: true,
      messages: [
        { role: 'system', content: GRADE_SYSTEM_PROMPT },
        {
          role: 'user',
          content: '<question>\nbasalt\n</question>\n\n<sources>\n' +
            `<source id="1" title="Rock B">\n${DOCS[2]!.text}\n</source>\n\n` +
            `<source id="2" title="Rock A">\n${DOCS[1]!.text}\n</source>\n\n` +
            `<source id="3" title="Rock C">\n${DOCS[3]!.text}\n</source>\n</sources>`,
        },
      ],
    });
    // the answer sees only the relevant ones, renumbered
    expect(userOf(provider.requests[2]!)).toBe(answerUser(
      `<source id="1" title="Rock B">\n${DOCS[2]!.text}\n</source>\n\n<source id="2" title="Rock C">\n${DOCS[3]!.text}\n</source>`,
      'basalt',
    ));
    expect(provider.requests[3]!.req.messages[1]).toEqual({
      role: 'user',
      content: '<question>\nbasalt\n</question>\n\n<answer>\nObsidian is glass [1]; pumice floats [2].\n</answer>',
    });
    expect(res.status).toBe('answered');
    expect(res.answer).toBe('Obsidian is glass [1]; pumice floats [2].');
    expect(res.citations).toEqual([{ n: 1, doc_id: 'b', chunk_id: 'b#0' }, { n: 2, doc_id: 'c', chunk_id: 'c#0' }]);
    expect(stepNames(res)).toEqual(['rewrite', 'retrieve', 'grade', 'generate', 'reflect', 'cite']);
    expect(res.agent).toEqual({ extraRounds: 0, reflection: { verdict: { kind: 'ok' }, followed: true } });
    // every LLM step carries its timing and its call's tokens
    res.trace.filter((s) => s.llmCalls > 0).forEach((s, i) => {
      expect(s.usage).toEqual(usageOf(i));
      expect(s.ms).toBeGreaterThanOrEqual(0);
    });
    expect(events.filter((e) => e.type === 'generation-start')).toHaveLength(1);
  });

  it('stops after one extra round even when the reflection always asks for more', async () => {
    const provider = new ScriptedProvider((req) => {
      const system = req.messages[0]!.content;
      if (system === AGENT_REWRITE_SYSTEM_PROMPT) return '1. basalt';
      if (system === GRADE_SYSTEM_PROMPT) return '{"relevant": [1]}';
      if (system === ANSWER_SYSTEM_PROMPT) return 'Partial answer [1].';
      if (system === REFLECT_SYSTEM_PROMPT) return 'search for "radio dish".';
      throw new Error('unexpected request');
    });
    const { res, events } = await ask(makeKb(), 'basalt', agentic((c) => { c.retrieval.topK = 1; }), provider);
    expect(MAX_EXTRA_ROUNDS).toBe(1);
    expect(provider.requests.map((r) => systemOf(r))).toEqual([
      AGENT_REWRITE_SYSTEM_PROMPT, GRADE_SYSTEM_PROMPT, ANSWER_SYSTEM_PROMPT, REFLECT_SYSTEM_PROMPT,
      GRADE_SYSTEM_PROMPT, ANSWER_SYSTEM_PROMPT, REFLECT_SYSTEM_PROMPT,
    ]);
    expect(stepNames(res)).toEqual([
      'rewrite', 'retrieve', 'grade', 'generate', 'reflect',
      'retrieve@1', 'grade@1', 'generate@1', 'reflect@1', 'cite@1',
    ]);
    expect(res.trace.filter((s) => s.step === 'retrieve').map((s) => s.inputs.queries)).toEqual([['basalt'], ['radio dish']]);
    expect(res.trace.at(-2)!.note).toBe('Not followed: at most 1 extra round.');
    expect(res.agent).toEqual({ extraRounds: 1, reflection: { verdict: { kind: 'search', query: 'radio dish' }, followed: false } });
    // round 1 answers from the kept passage of round 0 plus the new one
    expect(res.contexts.map((c) => c.chunk_id)).toEqual(['a#0', 'obs#1']);
    expect(userOf(provider.requests[5]!)).toContain(`<source id="2" title="Ridge Observatory">\n${OBS.slice(3, 6).join(' ')}\n</source>`);
    expect(events.filter((e) => e.type === 'generation-start').map((e) => (e as { round: number }).round)).toEqual([0, 1]);
    expect(res.status).toBe('answered');
  });

  it('grades per document with the grader model: one call a source, a "no" dropped, an unreadable reply kept', async () => {
    const provider = new ScriptedProvider((req) => {
      const system = req.messages[0]!.content;
      if (system === AGENT_REWRITE_SYSTEM_PROMPT) return '1. obsidian\n2. pumice';
      if (system === GRADE_ONE_SYSTEM_PROMPT) {
        const user = req.messages[1]!.content;
        // sources as in the batch test: 1 = Rock B, 2 = Rock A, 3 = Rock C
        return user.includes('title="Rock B"') ? '{"relevant": true}' : user.includes('title="Rock A"') ? '{"binary_score": "no"}' : 'I cannot tell.';
      }
      if (system === ANSWER_SYSTEM_PROMPT) return 'Obsidian is glass [1]; pumice floats [2].';
      if (system === REFLECT_SYSTEM_PROMPT) return 'ok';
      throw new Error('unexpected request');
    });
    const { res } = await ask(makeKb(), 'basalt', agentic((c) => { c.grading = { perDocument: true, model: 'small-grader' }; }), provider);
    const grades = provider.requests.filter((r) => systemOf(r) === GRADE_ONE_SYSTEM_PROMPT);
    expect(grades).toHaveLength(3);
    expect(provider.requests.some((r) => systemOf(r) === GRADE_SYSTEM_PROMPT)).toBe(false);
    // each call: the grader model, one source with its own number, JSON mode
    expect(grades.map((r) => r.req.model)).toEqual(['small-grader', 'small-grader', 'small-grader']);
    expect(grades.map((r) => /<source id="(\d)"/g.exec(userOf(r))?.[1]).sort()).toEqual(['1', '2', '3']);
    expect(grades.every((r) => r.req.json === true && (userOf(r).match(/<source /g) ?? []).length === 1)).toBe(true);
    // the answering model still answers
    expect(provider.requests.find((r) => systemOf(r) === ANSWER_SYSTEM_PROMPT)!.req.model).toBe(DEFAULT_RAG_CONFIG.llm.model);
    expect(res.contexts.map((c) => c.chunk_id)).toEqual(['b#0', 'c#0']);
    const step = res.trace.find((s) => s.step === 'grade')!;
    expect(step.llmCalls).toBe(3);
    expect(step.outputs.grades).toEqual({ 1: true, 2: false });
    expect(step.note).toBe('1 source(s) not judged by the replies; kept.');
    expect(step.inputs).toMatchObject({ perDocument: true, model: 'small-grader' });
    // the step's tokens are the sum of its three calls'
    const callIdx = provider.requests.map((r, i) => (systemOf(r) === GRADE_ONE_SYSTEM_PROMPT ? i : -1)).filter((i) => i >= 0);
    expect(step.usage).toEqual({ inputTokens: callIdx.reduce((a, i) => a + 100 + i, 0), outputTokens: callIdx.reduce((a, i) => a + 10 + i, 0) });
    expect(res.status).toBe('answered');
  });

  it('a grader model grades in one call too when per-document grading is off', async () => {
    const provider = ScriptedProvider.queue('1. obsidian', '{"relevant": [1]}', 'Answer [1].', 'ok');
    await ask(makeKb(), 'basalt', agentic((c) => { c.grading.model = 'small-grader'; }), provider);
    expect(provider.requests.map((r) => [systemOf(r), r.req.model])).toEqual([
      [AGENT_REWRITE_SYSTEM_PROMPT, DEFAULT_RAG_CONFIG.llm.model], [GRADE_SYSTEM_PROMPT, 'small-grader'],
      [ANSWER_SYSTEM_PROMPT, DEFAULT_RAG_CONFIG.llm.model], [REFLECT_SYSTEM_PROMPT, DEFAULT_RAG_CONFIG.llm.model],
    ]);
  });

  it('answers nothing when the grader finds no passage relevant', async () => {
    const provider = ScriptedProvider.queue('1. obsidian', 'Source 1: not relevant\nSource 2: irrelevant\nSource 3: no');
    const { res } = await ask(makeKb(), 'basalt', agentic(), provider);
    expect(res).toMatchObject({ status: 'no_relevant', answer: NO_RELEVANT_ANSWER });
    expect(provider.requests.map((r) => r.kind)).toEqual(['chat', 'chat']);
  });

  it('empty retrieval ends the agent before any grade or answer', async () => {
    const provider = ScriptedProvider.queue('1. zebra\n2. quasar');
    const { res } = await ask(makeKb(), 'zebra quasar', agentic(), provider);
    expect(res).toMatchObject({ status: 'empty', answer: NO_SOURCES_ANSWER });
    expect(provider.requests).toHaveLength(1);
    expect(stepNames(res)).toEqual(['rewrite', 'retrieve']);
  });

  it('an abort during the extra round keeps the first answer', async () => {
    const ctrl = new AbortController();
    const provider = new ScriptedProvider((req) => {
      const system = req.messages[0]!.content;
      if (system === AGENT_REWRITE_SYSTEM_PROMPT) return '1. basalt';
      if (system === GRADE_SYSTEM_PROMPT) {
        if (req.signal?.aborted) throw new DOMException('aborted', 'AbortError');
        return '{"relevant": [1]}';
      }
      if (system === ANSWER_SYSTEM_PROMPT) return 'First [1].';
      ctrl.abort();
      return 'search for radio dish';
    });
    const { res } = await ask(makeKb(), 'basalt', agentic((c) => { c.retrieval.topK = 1; }), provider, { signal: ctrl.signal });
    expect(res).toMatchObject({ status: 'aborted', answer: 'First [1].', partial: false });
    expect(res.citations).toEqual([{ n: 1, doc_id: 'a', chunk_id: 'a#0' }]);
  });
});
