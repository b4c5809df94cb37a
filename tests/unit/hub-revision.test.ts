/** revisionSha (src/lib/hub/revision.ts): a revision of a Hub dataset repo to its commit sha, hand-checked answers. */
import { describe, expect, test } from 'vitest';
import { COMMIT_SHA, revisionSha } from '../../src/lib/hub/revision.ts';

const SHA = 'a'.repeat(40);
const answering = (body: unknown, status = 200, seen: string[] = []) => (async (input: RequestInfo | URL) => {
  seen.push(String(input instanceof Request ? input.url : input));
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}) as typeof fetch;

describe('revisionSha', () => {
  test('the sha the Hub answers for the revision, asked at the Hub URL given', async () => {
    const seen: string[] = [];
    const sha = await revisionSha({ repo: 'me/kb', revision: 'v1', hubUrl: 'https://hub.example', fetch: answering({ id: 'me/kb', sha: SHA }, 200, seen) });
    expect(sha).toBe(SHA);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.startsWith('https://hub.example/api/datasets/me/kb/revision/v1')).toBe(true);
  });
  test('null for an answer without a full sha (not a Hub)', async () => {
    for (const body of [{ id: 'me/kb' }, { sha: 'abc' }, { sha: 'A'.repeat(40) }, { sha: 42 }]) {
      expect(await revisionSha({ repo: 'me/kb', revision: 'main', hubUrl: 'https://hub.example', fetch: answering(body) })).toBeNull();
    }
  });
  test('the Hub\'s error is thrown as it came', async () => {
    await expect(revisionSha({ repo: 'me/kb', revision: 'main', hubUrl: 'https://hub.example', fetch: answering({ error: 'Repository not found' }, 404) })).rejects.toThrow(/Repository not found|404/);
  });
  test('COMMIT_SHA: 40 lower-case hex digits only', () => {
    expect(COMMIT_SHA.test(SHA)).toBe(true);
    expect(COMMIT_SHA.test('main')).toBe(false);
    expect(COMMIT_SHA.test(SHA.toUpperCase())).toBe(false);
    expect(COMMIT_SHA.test(`${SHA}0`)).toBe(false);
  });
});
