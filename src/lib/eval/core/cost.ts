/**
 * Token and cost estimates before an API run, and the actual usage after it.
 *
 * Estimate. Input tokens of a call = characters of its messages / 4, rounded up per message (the common rough rule
 * for English text with GPT/Llama-style tokenizers; real counts differ by model and language, often by ±25 %).
 * Output tokens cannot be known before the call: an assumed number per call is used and stated with the estimate.
 * A run's estimate = Σ over its prompts of (input tokens) × repeats, and calls × the assumed output.
 *
 * Prices. USD per 1M input and output tokens, keyed `provider/model`, as published by the providers on their pricing
 * pages when this table was written (paid tiers; a free-tier key is not billed). Prices change: the table is a plain
 * mutable object, edit it or pass your own. Unknown models and local servers cost 0 and the estimate says the price
 * is unknown.
 *
 * Actual usage. The TokenUsage every ChatResult reports, summed (`UsageMeter`, `meteredProvider`); calls whose
 * provider reported no usage are counted apart.
 */
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent, TokenUsage } from '../../llm/types.ts';
import { CHARS_PER_TOKEN, estimateMessageTokens, estimateTextTokens } from '../../llm/rate-limit.ts';
import { judgeMessages, type JudgeInput } from '../metrics/judge.ts';

export { CHARS_PER_TOKEN, estimateMessageTokens, estimateTextTokens };
/** Assumed output tokens of one judge reply (a JSON object with explanations and key lists). */
export const DEFAULT_JUDGE_OUTPUT_TOKENS = 400;
/** Assumed output tokens of one RAG answer (a short cited paragraph). */
export const DEFAULT_ANSWER_OUTPUT_TOKENS = 200;

export interface Price {
  /** USD per 1M input tokens. */
  inputPerM: number;
  /** USD per 1M output tokens. */
  outputPerM: number;
}

export interface PriceEntry extends Price {
  /** Pricing page the numbers come from. */
  source: string;
}

const GROQ = 'https://groq.com/pricing';
const OPENAI = 'https://openai.com/api/pricing';
const ANTHROPIC = 'https://www.anthropic.com/pricing#api';

/** USD per 1M tokens by `provider/model`, as published (paid tier). Editable. */
export const PRICES: Record<string, PriceEntry> = {
  'groq/llama-3.3-70b-versatile': { inputPerM: 0.59, outputPerM: 0.79, source: GROQ },
  'groq/llama-3.1-8b-instant': { inputPerM: 0.05, outputPerM: 0.08, source: GROQ },
  'groq/openai/gpt-oss-120b': { inputPerM: 0.15, outputPerM: 0.6, source: GROQ },
  'openai/gpt-4o-mini': { inputPerM: 0.15, outputPerM: 0.6, source: OPENAI },
  'openai/gpt-4o': { inputPerM: 2.5, outputPerM: 10, source: OPENAI },
  'openai/gpt-4.1-mini': { inputPerM: 0.4, outputPerM: 1.6, source: OPENAI },
  'openai/gpt-4.1-nano': { inputPerM: 0.1, outputPerM: 0.4, source: OPENAI },
  'anthropic/claude-haiku-4-5': { inputPerM: 1, outputPerM: 5, source: ANTHROPIC },
  'anthropic/claude-sonnet-4-5': { inputPerM: 3, outputPerM: 15, source: ANTHROPIC },
};

export interface ResolvedPrice extends Price {
  key: string;
  /** False when the table has no entry (the price is then 0: unknown, local or free). */
  known: boolean;
}

/** The price of `provider/model` from `table`; 0/0 and `known: false` when absent. */
export function priceFor(provider: string, model: string, table: Record<string, Price> = PRICES): ResolvedPrice {
  const key = `${provider}/${model}`;
  const p = table[key];
  return p ? { key, inputPerM: p.inputPerM, outputPerM: p.outputPerM, known: true } : { key, inputPerM: 0, outputPerM: 0, known: false };
}

export interface Cost {
  inputUsd: number;
  outputUsd: number;
  totalUsd: number;
}

export function costOf(tokens: { inputTokens: number; outputTokens: number }, price: Price): Cost {
  const inputUsd = (tokens.inputTokens * price.inputPerM) / 1e6;
  const outputUsd = (tokens.outputTokens * price.outputPerM) / 1e6;
  return { inputUsd, outputUsd, totalUsd: inputUsd + outputUsd };
}

export interface RunEstimate extends Cost {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The output tokens assumed per call. */
  outputTokensPerCall: number;
  price: ResolvedPrice | Price;
}

/**
 * A run of `promptTokens.length` distinct prompts, each sent `repeats` times: input = Σ promptTokens × repeats,
 * calls = prompts × repeats, output = calls × outputTokensPerCall.
 */
export function estimateRun(promptTokens: readonly number[], opts: { repeats?: number; outputTokensPerCall: number; price: Price }): RunEstimate {
  const repeats = Math.max(1, Math.floor(opts.repeats ?? 1));
  const calls = promptTokens.length * repeats;
  const inputTokens = promptTokens.reduce((a, b) => a + b, 0) * repeats;
  const outputTokens = calls * opts.outputTokensPerCall;
  return { calls, inputTokens, outputTokens, outputTokensPerCall: opts.outputTokensPerCall, price: opts.price, ...costOf({ inputTokens, outputTokens }, opts.price) };
}

/** Adds estimates (e.g. the answering calls and the judge calls of a pipeline run). Prices must already be applied. */
export function addEstimates(a: RunEstimate, b: RunEstimate): Omit<RunEstimate, 'outputTokensPerCall' | 'price'> {
  return {
    calls: a.calls + b.calls, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens,
    inputUsd: a.inputUsd + b.inputUsd, outputUsd: a.outputUsd + b.outputUsd, totalUsd: a.totalUsd + b.totalUsd,
  };
}

/** Input tokens (chars/4) of the judge prompt for one input, exactly as `judgeTrace` would send it. */
export function judgePromptTokens(input: JudgeInput): number {
  return estimateMessageTokens(judgeMessages(input).messages);
}

/** Estimate of judging `inputs` `repeats` times each. */
export function estimateJudgeRun(inputs: readonly JudgeInput[], opts: { repeats?: number; outputTokensPerCall?: number; price: Price }): RunEstimate {
  return estimateRun(inputs.map(judgePromptTokens), { ...opts, outputTokensPerCall: opts.outputTokensPerCall ?? DEFAULT_JUDGE_OUTPUT_TOKENS });
}

// ------------------------------------------------------------------------------------------------ actual usage

export interface UsageSummary {
  calls: number;
  /** Calls whose provider reported usage (the token sums cover only these). */
  callsWithUsage: number;
  inputTokens: number;
  outputTokens: number;
}

/** Sums TokenUsage over calls; a null usage counts as a call without usage. */
export function sumUsage(usages: readonly (TokenUsage | null | undefined)[]): UsageSummary {
  const s: UsageSummary = { calls: 0, callsWithUsage: 0, inputTokens: 0, outputTokens: 0 };
  for (const u of usages) {
    s.calls++;
    if (u) { s.callsWithUsage++; s.inputTokens += u.inputTokens; s.outputTokens += u.outputTokens; }
  }
  return s;
}

/** A running sum of usage (one per provider or per role: answers, judge). */
export class UsageMeter {
  readonly summary: UsageSummary = { calls: 0, callsWithUsage: 0, inputTokens: 0, outputTokens: 0 };
  /** Calls that threw (no result, no usage). */
  failedCalls = 0;

  add(usage: TokenUsage | null | undefined): void {
    const s = sumUsage([usage]);
    this.summary.calls += s.calls;
    this.summary.callsWithUsage += s.callsWithUsage;
    this.summary.inputTokens += s.inputTokens;
    this.summary.outputTokens += s.outputTokens;
  }

  cost(price: Price): Cost {
    return costOf(this.summary, price);
  }
}

/** `provider` with every call's reported usage added to `meter` (failed calls counted in `meter.failedCalls`). */
export function meteredProvider(provider: ChatProvider, meter: UsageMeter): ChatProvider {
  const run = async (call: () => Promise<ChatResult>): Promise<ChatResult> => {
    let res: ChatResult;
    try {
      res = await call();
    } catch (e) {
      meter.failedCalls++;
      throw e;
    }
    meter.add(res.usage);
    return res;
  };
  return {
    id: provider.id,
    chat: (req: ChatRequest) => run(() => provider.chat(req)),
    stream: (req: ChatRequest, onDelta: (e: ChatStreamEvent) => void) => run(() => provider.stream(req, onDelta)),
  };
}

/** "$0.0123" with enough digits for small amounts. */
export function formatUsd(x: number): string {
  if (x === 0) return '$0';
  if (x < 0.01) return `$${x.toPrecision(2)}`;
  return `$${x.toFixed(x < 1 ? 4 : 2)}`;
}
