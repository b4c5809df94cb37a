/** A RAG answer as `rag-lab ask --json` prints it: snake_case fields, in this order, the reason redacted. */
import type { RagAnswer } from './answer.ts';

export function answerJson(result: RagAnswer, redact: (text: string) => string): Record<string, unknown> {
  return {
    status: result.status,
    answer: result.answer,
    ...(result.reason ? { reason: redact(result.reason) } : {}),
    partial: result.partial,
    ...(result.streamEnd ? { stream_end: result.streamEnd } : {}),
    citations: result.citations.map((c) => ({ n: c.n, doc_id: c.doc_id, chunk_id: c.chunk_id })),
    invalid_citations: result.invalidCitations,
    contexts: result.contexts.map((c) => ({ n: c.n, doc_id: c.doc_id, chunk_id: c.chunk_id, text: c.text, score: c.score })),
    trace: result.trace,
    usage: result.usage,
  };
}
