/**
 * The agentic workflow as an explicit state machine:
 *
 *   rewrite → retrieve → grade → generate → reflect ─ok──────────────→ done
 *                ↑                            └─"search for X" (round < MAX_EXTRA_ROUNDS)─┐
 *                └────────────────────────────────────────────────────────────────────────┘
 *
 * rewrite: the LLM writes 2–3 search queries; retrieve: the question and those queries are searched and fused by
 * RRF (an extra round searches X alone); grade: the LLM judges each new passage relevant or not (JSON, parsed
 * tolerantly; all in one call, or one call each with an optional grader model: agent-grade.ts) and the relevant ones are kept; generate: the answer is streamed from every kept passage; reflect:
 * the LLM says "ok" or "search for X". At most MAX_EXTRA_ROUNDS (1) extra round, enforced by the transition below,
 * whatever the model says. Every step is traced.
 */
import type { ChatProvider, ChatRequest } from '../llm/types.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { SearchModels } from '../retrieval/search.ts';
import type { RagConfig } from './config.ts';
import { generateAnswer, isAbort, type Generation } from './generate.ts';
import { answerRequest, buildAnswerMessages } from './prompt.ts';
import {
  lowConfidenceAnswer, NO_RELEVANT_ANSWER, NO_SOURCES_ANSWER, rerankHits, retrieveQueries, searchOptionsFor,
  type RetrievedHit,
} from './retrieve.ts';
import type { Tracer } from './trace.ts';
import { parseQueryList, type TransformCache, type TransformCacheKey } from './transforms.ts';
import { windowContexts, type RagContext } from './windows.ts';
import { gradeSources } from './agent-grade.ts';
import { parseReflection, type Reflection } from './agent-replies.ts';
import { agentRewriteRequest, gradeRequest, reflectRequest } from './agent-requests.ts';

/** Extra retrieve → grade → generate rounds the reflection may ask for. */
export const MAX_EXTRA_ROUNDS = 1;
/** Queries the rewrite step asks for (2–3); the question itself is searched too. */
export const AGENT_MAX_QUERIES = 3;
/** Hard stop on state transitions (the round cap already bounds them; this guards against a broken transition). */
const MAX_TRANSITIONS = 16;

export type AgentState =
  | { name: 'rewrite'; round: 0 }
  | { name: 'retrieve'; round: number; queries: string[] }
  | { name: 'grade'; round: number; candidates: RetrievedHit[] }
  | { name: 'generate'; round: number }
  | { name: 'reflect'; round: number }
  | { name: 'done'; outcome: AgentOutcome };

export type AgentOutcome =
  | { status: 'answered'; note?: string }
  | { status: 'empty' | 'rejected' | 'unavailable' | 'no_relevant'; message: string; reason?: string }
  | { status: 'aborted' };

export interface AgentDeps {
  provider: ChatProvider;
  models: SearchModels;
  cache?: TransformCache;
  signal?: AbortSignal;
  /** Called with the sources of each generation before the model is asked (kept by the caller if the call fails). */
  onSources?: (contexts: RagContext[]) => void;
}

export interface AgentRun {
  outcome: AgentOutcome;
  /** The last answer generated (null when none was). */
  generation: Generation | null;
  /** The sources of that answer, numbered as in its prompt. */
  contexts: RagContext[];
  /** Extra rounds taken (0 or 1). */
  extraRounds: number;
  /** The last reflection, when one ran; `followed` false when the cap stopped a requested search. */
  reflection: { verdict: Reflection; followed: boolean } | null;
}

// ---------------------------------------------------------------------------------------------------------------
// The machine

/** What the agent carries between states. */
export interface AgentMemory {
  question: string;
  /** Passages judged relevant, in the order they were kept. */
  kept: RetrievedHit[];
  /** Items already graded (an extra round grades only new ones). */
  graded: Set<number>;
  generation: Generation | null;
  contexts: RagContext[];
  extraRounds: number;
  reflection: AgentRun['reflection'];
}

const withSignal = (req: ChatRequest, signal?: AbortSignal): ChatRequest => (signal ? { ...req, signal } : req);

/** Runs the workflow for `question`; the caller parses citations of `generation` against `contexts`. */
export async function runAgent(
  kb: KnowledgeBase,
  question: string,
  config: RagConfig,
  deps: AgentDeps,
  tracer: Tracer,
): Promise<AgentRun> {
  const mem: AgentMemory = { question, kept: [], graded: new Set(), generation: null, contexts: [], extraRounds: 0, reflection: null };
  let state: AgentState = { name: 'rewrite', round: 0 };
  for (let transitions = 0; state.name !== 'done'; transitions++) {
    if (transitions >= MAX_TRANSITIONS) throw new Error('agent: too many state transitions');
    if (deps.signal?.aborted) {
      state = { name: 'done', outcome: { status: 'aborted' } };
      break;
    }
    try {
      state = await step(state, mem, kb, config, deps, tracer);
    } catch (err) {
      if (!isAbort(err, deps.signal)) throw err;
      state = { name: 'done', outcome: { status: 'aborted' } }; // an answer already generated is kept
    }
  }
  return {
    outcome: state.outcome,
    generation: mem.generation,
    contexts: mem.contexts,
    extraRounds: mem.extraRounds,
    reflection: mem.reflection,
  };
}

/** One transition. */
export async function step(
  state: Exclude<AgentState, { name: 'done' }>,
  mem: AgentMemory,
  kb: KnowledgeBase,
  config: RagConfig,
  deps: AgentDeps,
  tracer: Tracer,
): Promise<AgentState> {
  const { provider, signal } = deps;
  switch (state.name) {
    case 'rewrite': {
      const queries = await tracer.run('rewrite', 0, { question: mem.question }, async () => {
        const key: TransformCacheKey = { transform: 'agentic_rewrite', n: AGENT_MAX_QUERIES, provider: provider.id, model: config.llm.model, question: mem.question };
        const hit = await deps.cache?.get(key);
        if (hit && !('dropped' in hit)) return { value: hit.queries, report: { outputs: { queries: hit.queries, cached: true } } };
        const req = agentRewriteRequest(mem.question, config);
        const res = await provider.chat(withSignal(req, signal));
        const parsed = parseQueryList(res.text, AGENT_MAX_QUERIES);
        const queries = dedupeQueries([mem.question, ...parsed]);
        if (parsed.length > 0) await deps.cache?.set(key, { queries, passage: null });
        return {
          value: queries,
          report: {
            outputs: { queries, raw: res.text, cached: false }, usage: res.usage, llmCalls: 1,
            ...(parsed.length === 0 ? { note: 'The reply held no queries; only the question is searched.' } : {}),
          },
        };
      });
      return { name: 'retrieve', round: 0, queries };
    }

    case 'retrieve': {
      const { round, queries } = state;
      const mode = config.retrieval.mode;
      const r = await tracer.run('retrieve', round, { queries, mode }, async () => {
        const res = await retrieveQueries(kb, queries, { ...searchOptionsFor(config), mode, topK: config.retrieval.topK }, deps.models);
        return {
          value: res,
          report: { outputs: { status: res.status, ...(res.reason ? { reason: res.reason } : {}), fused: res.fused, runs: res.runs, hits: res.hits.map(hitSummary) } },
        };
      });
      if (r.status === 'unavailable') return done({ status: 'unavailable', message: r.reason ?? 'Retrieval is unavailable.', reason: r.reason });
      if (r.status !== 'ok') {
        if (round > 0) return done({ status: 'answered', note: `The extra search found nothing usable (${r.status}); the first answer stands.` });
        return r.status === 'empty'
          ? done({ status: 'empty', message: NO_SOURCES_ANSWER, reason: r.reason })
          : done({ status: 'rejected', message: lowConfidenceAnswer(r.reason ?? ''), reason: r.reason });
      }
      let hits = r.hits;
      if (config.rerank.enabled) {
        const rr = await tracer.run('rerank', round, { question: mem.question, hits: hits.map(hitSummary) }, async () => {
          const out = await rerankHits(kb, mem.question, hits, config, mode, deps.models);
          const outputs = out.status === 'ok' ? { hits: out.hits.map(hitSummary), reranked: out.reranked } : { status: out.status, reason: out.reason };
          return { value: out, report: { outputs, ...(out.status === 'ok' && out.note ? { note: out.note } : {}) } };
        });
        if (rr.status === 'unavailable') return done({ status: 'unavailable', message: rr.reason, reason: rr.reason });
        hits = rr.hits;
      }
      const fresh = hits.filter((h) => !mem.graded.has(h.item));
      if (fresh.length === 0) {
        return round > 0
          ? done({ status: 'answered', note: 'The extra search found no new passage; the first answer stands.' })
          : done({ status: 'empty', message: NO_SOURCES_ANSWER });
      }
      return { name: 'grade', round, candidates: fresh };
    }

    case 'grade': {
      const { round, candidates } = state;
      const sources = windowContexts(kb, candidates, config.window);
      const perDocument = config.grading.perDocument;
      const inputs = {
        sources: sources.map((s) => ({ n: s.n, chunk_id: s.chunk_id })),
        ...(perDocument ? { perDocument: true } : { messages: gradeRequest(mem.question, sources, config).messages }),
        ...(config.grading.model ? { model: config.grading.model } : {}),
      };
      const relevant = await tracer.run('grade', round, inputs, async () => {
        const g = await gradeSources(provider, mem.question, sources, config, signal);
        // Sources the reply does not judge are kept: an unreadable grade must not hide the evidence.
        const keep = candidates.filter((_, i) => g.grades.get(i + 1) !== false);
        const unjudged = sources.length - g.grades.size;
        return {
          value: keep,
          report: {
            outputs: { grades: Object.fromEntries(g.grades), kept: keep.map((h) => h.id), raw: perDocument ? g.raw : g.raw[0]! },
            usage: g.usage, llmCalls: g.calls,
            ...(unjudged > 0 ? { note: `${unjudged} source(s) not judged by the ${perDocument ? 'replies' : 'reply'}; kept.` } : {}),
          },
        };
      });
      for (const h of candidates) mem.graded.add(h.item);
      if (relevant.length === 0) {
        if (round === 0) return done({ status: 'no_relevant', message: NO_RELEVANT_ANSWER });
        return done({ status: 'answered', note: 'The extra search found no relevant passage; the first answer stands.' });
      }
      mem.kept.push(...relevant);
      return { name: 'generate', round };
    }

    case 'generate': {
      const { round } = state;
      const contexts = windowContexts(kb, mem.kept, config.window);
      const req = answerRequest(buildAnswerMessages(mem.question, contexts), config);
      deps.onSources?.(contexts);
      tracer.emit({ type: 'generation-start', round });
      const gen = await tracer.run('generate', round, { messages: req.messages, model: req.model }, async () => {
        const g = await generateAnswer(provider, req, { ...(signal ? { signal } : {}), onDelta: (delta) => tracer.emit({ type: 'delta', delta, round }) });
        return { value: g, report: { outputs: { text: g.text, finishReason: g.finishReason, partial: g.partial, end: g.end }, usage: g.usage, llmCalls: 1 } };
      });
      // An extra round whose stream broke keeps the first, complete answer (as a failed extra search does).
      if (round > 0 && !gen.aborted && gen.end !== 'complete') {
        return done({ status: 'answered', note: `The extra round's answer was cut off (${gen.end}); the first answer stands.` });
      }
      mem.generation = gen;
      mem.contexts = contexts;
      if (gen.aborted) return done({ status: 'aborted' });
      // A stream the server cut or ended with an error is reported as such (answer.ts), not reflected on.
      if (gen.end !== 'complete') return done({ status: 'answered' });
      return { name: 'reflect', round };
    }

    case 'reflect': {
      const { round } = state;
      const req = reflectRequest(mem.question, mem.generation?.text ?? '', config);
      const verdict = await tracer.run('reflect', round, { messages: req.messages }, async () => {
        const res = await provider.chat(withSignal(req, signal));
        const r = parseReflection(res.text);
        return {
          value: r.verdict,
          report: {
            outputs: { verdict: r.verdict, raw: res.text }, usage: res.usage, llmCalls: 1,
            ...(!r.understood ? { note: 'Unreadable reflection; taken as ok.' } : {}),
            ...(r.verdict.kind === 'search' && round >= MAX_EXTRA_ROUNDS ? { note: `Not followed: at most ${MAX_EXTRA_ROUNDS} extra round.` } : {}),
          },
        };
      });
      // The round cap lives here, in code: the reflection can ask for more, it cannot get more.
      if (verdict.kind === 'search' && round < MAX_EXTRA_ROUNDS) {
        mem.reflection = { verdict, followed: true };
        mem.extraRounds = round + 1;
        return { name: 'retrieve', round: round + 1, queries: [verdict.query] };
      }
      mem.reflection = { verdict, followed: verdict.kind === 'ok' };
      return done({ status: 'answered' });
    }
  }
}

const done = (outcome: AgentOutcome): AgentState => ({ name: 'done', outcome });

const hitSummary = (h: RetrievedHit) => ({ id: h.id, score: h.score });

function dedupeQueries(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return list.filter((q) => {
    const k = q.trim().toLowerCase();
    if (!k || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

