/** The record of one RAG run: every step with its inputs, outputs, wall time and token usage; and the events a UI follows. */
import type { TokenUsage } from '../llm/types.ts';

export type StepName =
  | 'transform' | 'retrieve' | 'rerank' | 'window' | 'prompt' | 'generate' | 'cite' // the pipeline
  | 'rewrite' | 'grade' | 'reflect'; // the agent's own steps

export interface TraceStep {
  step: StepName;
  /** 0 for the first pass; 1 for the agent's extra round. */
  round: number;
  /** Start, in ms since the run began. */
  startMs: number;
  /** Wall time (ms). */
  ms: number;
  /** What the step was given (plain JSON data). */
  inputs: Record<string, unknown>;
  /** What it produced (plain JSON data). */
  outputs: Record<string, unknown>;
  /** LLM calls the step made (0 when it made none or a cache answered). */
  llmCalls: number;
  /** Tokens of those calls; null when it made none or the provider did not report usage. */
  usage: TokenUsage | null;
  note?: string;
}

export type RagEvent =
  | { type: 'step-start'; step: StepName; round: number }
  | { type: 'step-end'; step: TraceStep }
  /** A new answer starts streaming: a UI clears the previous one (the agent may generate twice). */
  | { type: 'generation-start'; round: number }
  | { type: 'delta'; delta: string; round: number };

export function addUsage(a: TokenUsage | null, b: TokenUsage | null): TokenUsage | null {
  if (!a) return b ? { ...b } : null;
  if (!b) return a;
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

/** What a step body reports besides its value. */
export interface StepReport {
  outputs: Record<string, unknown>;
  usage?: TokenUsage | null;
  llmCalls?: number;
  note?: string;
}

/** Runs steps, timing each and recording it; tells `onEvent` when a step starts and ends. */
export class Tracer {
  readonly steps: TraceStep[] = [];
  private readonly t0 = performance.now();

  constructor(private readonly onEvent?: (e: RagEvent) => void) {}

  emit(e: RagEvent): void {
    this.onEvent?.(e);
  }

  /**
   * Runs `body` as step `step`. The step is recorded even when `body` throws (with the error as its note), so an
   * aborted or failed run still shows how far it got.
   */
  async run<T>(
    step: StepName,
    round: number,
    inputs: Record<string, unknown>,
    body: () => Promise<{ value: T; report: StepReport }> | { value: T; report: StepReport },
  ): Promise<T> {
    this.emit({ type: 'step-start', step, round });
    const start = performance.now();
    const record = (report: StepReport): TraceStep => {
      const s: TraceStep = {
        step, round, startMs: start - this.t0, ms: performance.now() - start, inputs, outputs: report.outputs,
        llmCalls: report.llmCalls ?? 0, usage: report.usage ?? null,
        ...(report.note ? { note: report.note } : {}),
      };
      this.steps.push(s);
      this.emit({ type: 'step-end', step: s });
      return s;
    };
    let result: { value: T; report: StepReport };
    try {
      result = await body();
    } catch (err) {
      record({ outputs: {}, note: `failed: ${err instanceof Error ? err.message : String(err)}` });
      throw err;
    }
    record(result.report);
    return result.value;
  }

  totalUsage(): TokenUsage | null {
    return this.steps.reduce<TokenUsage | null>((acc, s) => addUsage(acc, s.usage), null);
  }
}
