/**
 * What the Ask tab writes under an answer (unit-tested in tests/unit/ask-view.test.ts): how long the whole run took,
 * labelled with what it times, and the LLM's tokens.
 */
import type { RagAnswer } from '../../lib/rag/answer.ts';
import { formatDuration } from '../build/build-view.ts';

/**
 * "Whole run 2.3 s (retrieval, prompt and the model's answer) · LLM tokens: 812 input + 95 output"; a run that never
 * started (ms 0: refused before retrieval) shows no time.
 */
export function answerStatsLine(r: Pick<RagAnswer, 'ms' | 'usage'>): string {
  const parts: string[] = [];
  if (r.ms > 0) parts.push(`Whole run ${formatDuration(r.ms)} (retrieval, prompt and the model's answer)`);
  if (r.usage) parts.push(`LLM tokens: ${r.usage.inputTokens.toLocaleString('en-US')} input + ${r.usage.outputTokens.toLocaleString('en-US')} output`);
  return parts.join(' · ');
}
