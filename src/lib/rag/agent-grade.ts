/**
 * The agentic workflow's grade step (agentic.ts): which of the new sources help answer the question. One call for
 * all of them (the default), or one call per source (`config.grading.perDocument`, seed C's per-document grader),
 * either with the grader model when `config.grading.model` names one. Sources a reply does not judge stay absent
 * from `grades` (the caller keeps them: an unreadable grade must not hide the evidence).
 */
import type { ChatProvider, ChatRequest, TokenUsage } from '../llm/types.ts';
import type { RagConfig } from './config.ts';
import { parseGrades, parseOneGrade } from './agent-replies.ts';
import { gradeOneRequest, gradeRequest } from './agent-requests.ts';
import { addUsage } from './trace.ts';
import type { RagContext } from './windows.ts';

/** Per-document grade calls in flight at once (the provider's rate limiter, when set, still paces them). */
export const GRADE_CONCURRENCY = 4;

export interface Grading {
  /** Verdicts by source number (1..n). */
  grades: Map<number, boolean>;
  /** The replies, one per call, in source order for per-document grading. */
  raw: string[];
  /** The requests made (for the trace), in the same order. */
  requests: ChatRequest[];
  usage: TokenUsage | null;
  calls: number;
}

export async function gradeSources(provider: ChatProvider, question: string, sources: readonly RagContext[], config: RagConfig, signal?: AbortSignal): Promise<Grading> {
  const withSignal = (req: ChatRequest): ChatRequest => (signal ? { ...req, signal } : req);
  if (!config.grading.perDocument) {
    const req = gradeRequest(question, sources, config);
    const res = await provider.chat(withSignal(req));
    return { grades: parseGrades(res.text, sources.length), raw: [res.text], requests: [req], usage: res.usage, calls: 1 };
  }
  const requests = sources.map((s) => gradeOneRequest(question, s, config));
  const replies: Array<{ text: string; usage: TokenUsage | null }> = new Array(sources.length);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const i = next++;
      const res = await provider.chat(withSignal(requests[i]!));
      replies[i] = { text: res.text, usage: res.usage };
    }
  };
  await Promise.all(Array.from({ length: Math.min(GRADE_CONCURRENCY, requests.length) }, worker));
  const grades = new Map<number, boolean>();
  replies.forEach((r, i) => {
    const v = parseOneGrade(r.text);
    if (v !== null) grades.set(i + 1, v);
  });
  return { grades, raw: replies.map((r) => r.text), requests, usage: replies.reduce<TokenUsage | null>((acc, r) => addUsage(acc, r.usage), null), calls: requests.length };
}
