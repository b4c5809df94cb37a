/**
 * Shared set-up of the LLM provider tests: one scripted server per test file (tests/helpers/llm-server.ts), reset
 * after each test, and retries that do not wait (the delays they asked for are recorded in `sleeps`).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import { startLlmServer, type LlmServer } from './llm-server.ts';

export interface LlmTestContext {
  /** The file's server (started in beforeAll). */
  readonly srv: LlmServer;
  /** Retry delays requested since the last test, in ms. */
  readonly sleeps: number[];
  /** Retry options for providers: no waiting, 1 ms base delay. */
  readonly fastRetry: { sleep: (ms: number) => Promise<void>; baseDelayMs: number };
}

/** Registers the server's lifecycle hooks in the calling test file. */
export function useLlmServer(): LlmTestContext {
  let server: LlmServer | null = null;
  const sleeps: number[] = [];
  beforeAll(async () => { server = await startLlmServer(); });
  afterAll(() => server?.close());
  afterEach(() => {
    server?.reset();
    sleeps.length = 0;
  });
  return {
    get srv() {
      if (!server) throw new Error('the LLM test server is not started yet (use it inside tests)');
      return server;
    },
    sleeps,
    fastRetry: { sleep: async (ms: number) => void sleeps.push(ms), baseDelayMs: 1 },
  };
}

/** The ProviderError a promise rejects with (fails the test if it resolves or rejects with anything else). */
export async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('expected a rejection');
}
