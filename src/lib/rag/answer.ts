/**
 * The RAG orchestrator: transform → retrieve → rerank → window → prompt → generate → cite, each stage a named
 * function elsewhere in this folder, each traced here. With `agentic` on, the agent's state machine replaces the
 * stages up to generate. When retrieval finds nothing, or only low-confidence passages, the model is not asked for
 * an answer: the result says why.
 */
import type { ChatProvider, StreamEnd, TokenUsage } from '../llm/types.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { SearchModels } from '../retrieval/search.ts';
import { runAgent, type AgentRun } from './agentic.ts';
import { mapCitations, type Citation } from './citations.ts';
import type { RagConfig } from './config.ts';
import { generateAnswer, isAbort, type Generation } from './generate.ts';
import { STREAM_ENDED } from './stream-end.ts';
import { answerRequest, buildAnswerMessages } from './prompt.ts';
import {
  lowConfidenceAnswer, NO_SOURCES_ANSWER, rerankHits, retrieveForTransform, type RetrievedHit,
} from './retrieve.ts';
import { Tracer, type RagEvent, type TraceStep } from './trace.ts';
import { transformQuery, type TransformCache } from './transforms.ts';
import { windowContexts, type RagContext } from './windows.ts';

export interface AnswerDeps {
  provider: ChatProvider;
  models: SearchModels;
  cache?: TransformCache;
  onEvent?: (e: RagEvent) => void;
  signal?: AbortSignal;
}

/**
 * answered     the model answered (maybe partially: `partial`)
 * empty        nothing retrieved (or an empty question): no answer asked for
 * rejected     only low-confidence passages: no answer asked for
 * no_relevant  (agentic) the grader judged every passage irrelevant: no answer asked for
 * unavailable  the configured mode or reranker needs a model that is not loaded
 * aborted      stopped by the signal (the user); `answer` holds what had streamed
 * error        a provider or pipeline error (`reason`), or a stream the server cut, ended with an error event or let
 *              stall (`streamEnd`; `answer` holds what had streamed, `partial` true)
 */
export type RagStatus = 'answered' | 'empty' | 'rejected' | 'no_relevant' | 'unavailable' | 'aborted' | 'error';

export interface RagAnswer {
  status: RagStatus;
  answer: string;
  /** The answer was cut off (stop, server cut, error event, stall, or the token limit). */
  partial: boolean;
  /** How the answer's stream ended (absent when no answer was generated). */
  streamEnd?: StreamEnd;
  /** Stream events that could not be read and were skipped (absent when none). */
  malformedEvents?: number;
  citations: Citation[];
  invalidCitations: number[];
  /** The sources the model saw (or was about to see when its call failed), numbered as in its prompt. */
  contexts: RagContext[];
  trace: TraceStep[];
  /** Why there is no (full) answer, when there is not. */
  reason?: string;
  finishReason: string | null;
  /** Tokens of every LLM call (null when none reported usage). */
  usage: TokenUsage | null;
  /** Wall time of the whole run (ms). */
  ms: number;
  /** Agentic runs: extra rounds taken and the last reflection. */
  agent?: { extraRounds: number; reflection: AgentRun['reflection'] };
  /** The answer reached `MAX_ANSWER_CHARS` and was cut there (this many characters kept; the model was stopped). */
  cutAt?: number;
}

/** What the user is told about an answer cut at `n` characters. */
export function answerCutReason(n: number): string {
  return `The answer was cut at ${n.toLocaleString('en-US')} characters: longer answers are not kept, and the model was stopped there.`;
}

export const EMPTY_QUESTION_ANSWER = 'Type a question to get an answer.';

/** Answers `question` from `kb` as `config` says, streaming the answer's deltas through `deps.onEvent`. */
export async function answerQuestion(kb: KnowledgeBase, question: string, config: RagConfig, deps: AnswerDeps): Promise<RagAnswer> {
  const t0 = performance.now();
  const tracer = new Tracer(deps.onEvent);
  const result = (r: Partial<RagAnswer> & Pick<RagAnswer, 'status' | 'answer'>): RagAnswer => ({
    partial: false, citations: [], invalidCitations: [], contexts: [], finishReason: null,
    ...r,
    trace: tracer.steps, usage: tracer.totalUsage(), ms: performance.now() - t0,
  });
  const q = question.trim();
  if (q === '') return result({ status: 'empty', answer: EMPTY_QUESTION_ANSWER, reason: EMPTY_QUESTION_ANSWER });
  // The sources the model was about to see: a generation that fails still shows what was retrieved for it.
  let sources: RagContext[] = [];
  const onSources = (c: RagContext[]) => { sources = c; };
  try {
    const out = config.agentic ? await agentPath(kb, q, config, deps, tracer, onSources) : await pipelinePath(kb, q, config, deps, tracer, onSources);
    if ('refusal' in out) return result(out.refusal);
    const { generation, contexts } = out;
    const cite = await tracer.run('cite', out.round, { answerChars: generation.text.length, sources: contexts.length }, () => {
      const c = mapCitations(generation.text, contexts);
      return { value: c, report: { outputs: { citations: c.citations, invalidCitations: c.invalidCitations } } };
    });
    const stopped = generation.aborted || out.stopped === true;
    const end = generation.end;
    const broken = end !== 'complete' && end !== 'signal';
    return result({
      status: broken ? 'error' : stopped ? 'aborted' : 'answered',
      answer: generation.text,
      partial: generation.partial,
      streamEnd: end,
      ...(generation.malformedEvents > 0 ? { malformedEvents: generation.malformedEvents } : {}),
      citations: cite.citations,
      invalidCitations: cite.invalidCitations,
      contexts,
      finishReason: generation.finishReason,
      ...(broken
        ? { reason: generation.endMessage ?? STREAM_ENDED[end] }
        : generation.aborted
        ? { reason: 'Stopped.' }
        : stopped
          ? { reason: 'Stopped during the extra round: this is the first answer.' }
          : generation.cutAt !== undefined
            ? { reason: answerCutReason(generation.cutAt) }
            : generation.finishReason === 'length' ? { reason: 'The answer reached the token limit.' } : {}),
      ...(generation.cutAt !== undefined ? { cutAt: generation.cutAt } : {}),
      ...(out.agent ? { agent: out.agent } : {}),
    });
  } catch (err) {
    if (isAbort(err, deps.signal)) return result({ status: 'aborted', answer: '', partial: true, streamEnd: 'signal', reason: 'Stopped.', finishReason: 'aborted', contexts: sources });
    return result({ status: 'error', answer: '', reason: err instanceof Error ? err.message : String(err), contexts: sources });
  }
}

type PathResult =
  | { refusal: Partial<RagAnswer> & Pick<RagAnswer, 'status' | 'answer'> }
  | { generation: Generation; contexts: RagContext[]; round: number; agent?: RagAnswer['agent']; stopped?: boolean };

const summary = (h: RetrievedHit) => ({ id: h.id, score: h.score });

/** transform → retrieve → rerank → window → prompt → generate (cite follows in the caller). */
async function pipelinePath(kb: KnowledgeBase, question: string, config: RagConfig, deps: AnswerDeps, tracer: Tracer, onSources: (c: RagContext[]) => void): Promise<PathResult> {
  const { provider, models, signal } = deps;
  const t = await tracer.run('transform', 0, { kind: config.transform.kind, question }, async () => {
    const out = await transformQuery(question, config, provider, { ...(deps.cache ? { cache: deps.cache } : {}), ...(signal ? { signal } : {}) });
    return {
      value: out,
      report: {
        outputs: { queries: out.queries, passage: out.passage, cached: out.cached, raw: out.raw },
        usage: out.usage, llmCalls: out.llmCalls, ...(out.note ? { note: out.note } : {}),
      },
    };
  });
  signal?.throwIfAborted();

  const r = await tracer.run('retrieve', 0, { queries: t.queries, denseQuery: t.passage, mode: config.retrieval.mode }, async () => {
    const res = await retrieveForTransform(kb, t, config, models);
    return {
      value: res,
      report: {
        outputs: {
          status: res.status, mode: res.mode, ...(res.reason ? { reason: res.reason } : {}),
          fused: res.fused, runs: res.runs, hits: res.hits.map(summary),
        },
      },
    };
  });
  if (r.status === 'unavailable') return { refusal: { status: 'unavailable', answer: r.reason ?? 'Retrieval is unavailable.', reason: r.reason ?? '' } };
  if (r.status === 'empty') return { refusal: { status: 'empty', answer: NO_SOURCES_ANSWER, ...(r.reason ? { reason: r.reason } : {}) } };
  if (r.status === 'rejected') return { refusal: { status: 'rejected', answer: lowConfidenceAnswer(r.reason ?? ''), reason: r.reason ?? '' } };

  let hits = r.hits;
  if (config.rerank.enabled) {
    const rr = await tracer.run('rerank', 0, { question, topN: config.rerank.topN, hits: hits.map(summary) }, async () => {
      const out = await rerankHits(kb, question, hits, config, r.mode, models);
      return {
        value: out,
        report: {
          outputs: out.status === 'ok' ? { hits: out.hits.map(summary), reranked: out.reranked } : { status: out.status, reason: out.reason },
          ...(out.status === 'ok' && out.note ? { note: out.note } : {}),
        },
      };
    });
    if (rr.status === 'unavailable') return { refusal: { status: 'unavailable', answer: rr.reason, reason: rr.reason } };
    hits = rr.hits;
  }
  signal?.throwIfAborted();

  const contexts = await tracer.run('window', 0, { w: config.window, chunks: hits.map((h) => h.id) }, () => {
    const c = windowContexts(kb, hits, config.window);
    return { value: c, report: { outputs: { sources: c.map((s) => ({ n: s.n, chunk_id: s.chunk_id, start: s.start, end: s.end })) } } };
  });
  const req = await tracer.run('prompt', 0, { question, sources: contexts.length }, () => {
    const rq = answerRequest(buildAnswerMessages(question, contexts), config);
    return { value: rq, report: { outputs: { messages: rq.messages } } };
  });
  onSources(contexts);

  tracer.emit({ type: 'generation-start', round: 0 });
  const generation = await tracer.run('generate', 0, { model: req.model, temperature: req.temperature, maxTokens: req.maxTokens }, async () => {
    const g = await generateAnswer(provider, req, { ...(signal ? { signal } : {}), onDelta: (delta) => tracer.emit({ type: 'delta', delta, round: 0 }) });
    return { value: g, report: { outputs: { text: g.text, finishReason: g.finishReason, partial: g.partial, end: g.end }, usage: g.usage, llmCalls: 1 } };
  });
  return { generation, contexts, round: 0 };
}

/** The agent's state machine; its last generation is cited by the caller. */
async function agentPath(kb: KnowledgeBase, question: string, config: RagConfig, deps: AnswerDeps, tracer: Tracer, onSources: (c: RagContext[]) => void): Promise<PathResult> {
  const run = await runAgent(kb, question, config, {
    provider: deps.provider, models: deps.models, onSources,
    ...(deps.cache ? { cache: deps.cache } : {}), ...(deps.signal ? { signal: deps.signal } : {}),
  }, tracer);
  const agent = { extraRounds: run.extraRounds, reflection: run.reflection };
  const o = run.outcome;
  if (run.generation) {
    return { generation: run.generation, contexts: run.contexts, round: run.extraRounds, agent, stopped: o.status === 'aborted' };
  }
  if (o.status === 'aborted') return { refusal: { status: 'aborted', answer: '', partial: true, reason: 'Stopped.', finishReason: 'aborted', agent } };
  if (o.status === 'answered') return { refusal: { status: 'error', answer: '', reason: 'The agent finished without an answer.', agent } };
  return { refusal: { status: o.status, answer: o.message, ...(o.reason ? { reason: o.reason } : {}), agent } };
}
