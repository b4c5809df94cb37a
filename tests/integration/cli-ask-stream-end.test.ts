/** `rag-lab ask` says why an answer stream ended: a server cut or error event goes to stderr with exit code 1. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { faultyStream, STREAM_ERROR_MESSAGE, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { runCli as cli } from '../helpers/cli.ts';

let llm: LlmServer;
beforeAll(async () => { llm = await startLlmServer(); });
afterAll(async () => { await llm?.close(); });

const ask = () => cli(['ask', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'm', 'What did Lincoln propose about emancipation?']);
const parts = ['Lincoln proposed ', 'compensated emancipation [1].', ' More.'];

describe('rag-lab ask when the stream ends badly', () => {
  test('a server cut: the partial answer on stdout, the reason on stderr, exit code 1', async () => {
    llm.reply(faultyStream('openai', parts, 'cut'));
    const r = await ask();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Lincoln proposed \n[answer cut off]');
    expect(r.stderr).toMatch(/The server closed the stream before the answer was complete/);
    expect(r.stdout).not.toMatch(/Stopped|server closed/);
  });

  test("an error event: the provider's message on stderr, exit code 1; skipped malformed events are counted", async () => {
    llm.reply(faultyStream('openai', parts, 'error-event'));
    let r = await ask();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`reported an error in the middle of the answer: ${STREAM_ERROR_MESSAGE}`);
    llm.reply(faultyStream('openai', parts, 'malformed'));
    r = await ask();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(parts.join(''));
    expect(r.stderr).toContain('2 unreadable stream events were skipped');
  });
});
