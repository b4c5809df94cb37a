/**
 * `rag-lab testset` in-process on a SciFact subset: pseudo-queries, an imported CSV, and questions written by a
 * loopback OpenAI-compatible server (junk and copied spans dropped; the estimate first; a provider failure that says
 * what was kept and a rerun that asks only for the rest); the folder it writes is what `tune --testset DIR` reads
 * (pseudo-queries stay labelled and are not adopted; other documents make it stale).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testsetCommand } from '../../cli/testset.ts';
import { tuneCommand } from '../../cli/tune.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';
import { captureCommand } from '../helpers/cli.ts';
import { openaiCompletion, openaiError, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';

let tmp: string, small: string, llm: LlmServer;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rag-lab-testset-'));
  small = scifactSubset({ queries: 30, others: 60, parent: tmp });
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm.close();
  rmSync(tmp, { recursive: true, force: true });
});

const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!);
const passageOf = (body: unknown) => /Passage:\n([\s\S]*?)\n\nReply with/.exec((body as { messages: Array<{ content: string }> }).messages.at(-1)!.content)?.[1] ?? '';

describe('rag-lab testset', () => {
  test('pseudo-queries as BEIR files that tune reads, labelled and not adopted', async () => {
    const out = join(tmp, 'pseudo');
    const r = await captureCommand(testsetCommand, ['pseudo', '--kb', small, '--n', '20', '--out', out]);
    expect(r.error).toBeNull();
    expect(r.out).toMatch(/20 pseudo-queries: biased toward lexical matching: 20 questions written to/);
    expect(readFileSync(join(out, 'queries.jsonl'), 'utf8').trim().split('\n')).toHaveLength(20);
    expect(JSON.parse(readFileSync(join(out, 'testset.json'), 'utf8'))).toMatchObject({ kind: 'pseudo', documentsHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const t = await captureCommand(tuneCommand, ['--data', small, '--testset', out, '--modes', 'sparse', '--budget', '4', '--json']);
    expect(t.error).toBeNull();
    const res = lastJson(t.out);
    expect(res.testSetLabel).toMatch(/pseudo-queries/);
    expect(res.adoptable).toBe(false);
    expect(res.split.tuning + res.split.heldOut).toBe(20);
    // Not carried in an artifact, where they would lose their label.
    const { buildIndexCommand } = await import('../../cli/build-index.ts');
    expect((await captureCommand(buildIndexCommand, ['--data', small, '--testset', out, '--out', join(tmp, 'art-pseudo')])).error?.message).toMatch(/pseudo-queries are not carried/);
  });

  test('an imported CSV; a test set of other documents is stale', async () => {
    const docs = readFileSync(join(small, 'corpus.jsonl'), 'utf8').trim().split('\n').slice(0, 10).map((l) => JSON.parse(l) as { _id: string; title: string });
    const csv = join(tmp, 'mine.csv');
    writeFileSync(csv, ['question,doc_id', ...docs.map((d) => `"${d.title.replace(/"/g, '')}",${d._id}`)].join('\n'));
    const out = join(tmp, 'imported');
    expect((await captureCommand(testsetCommand, ['import', csv, '--kb', small, '--out', out])).error).toBeNull();
    expect(JSON.parse(readFileSync(join(out, 'testset.json'), 'utf8'))).toMatchObject({ kind: 'imported', provenance: { rows: 10 } });
    // The same files beside another corpus: the note says so.
    const other = scifactSubset({ queries: 30, others: 20, parent: join(tmp, 'other') });
    const t = await captureCommand(tuneCommand, ['--data', other, '--testset', out, '--modes', 'sparse', '--budget', '3', '--json']);
    expect(lastJson(t.out).notes).toContain('--testset: stale: the documents are not those the test set was made from');
    // build-index --testset carries it in the artifact: tune --kb measures on it.
    const { buildIndexCommand } = await import('../../cli/build-index.ts');
    const art = join(tmp, 'art');
    expect((await captureCommand(buildIndexCommand, ['--data', small, '--testset', out, '--out', art, '--id', 'carried'])).error).toBeNull();
    const k = await captureCommand(tuneCommand, ['--kb', art, '--modes', 'sparse', '--budget', '3', '--json']);
    expect(k.error).toBeNull();
    const onKb = lastJson(k.out);
    expect(onKb.split.tuning + onKb.split.heldOut).toBe(10);
    expect(onKb.identity.kb).toMatch(/carried/);
  });

  test('written by an LLM: the estimate, junk and copies dropped, a failure that keeps what came, a rerun that resumes', async () => {
    const out = join(tmp, 'llm');
    const args = ['llm', '--kb', small, '--n', '12', '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'test-model', '--out', out];
    const est = await captureCommand(testsetCommand, [...args, '--estimate']);
    expect(est.error).toBeNull();
    expect(est.err).toMatch(/12 calls, ~[\d,]+ input and ~480 output tokens, price unknown for this model/);
    expect(llm.requests).toHaveLength(0);
    // Reply k (1-based): 3 is junk, 4 copies the passage's first 9 words, the rest ask with every other word; the 7th is refused (401: not retried).
    let k = 0;
    llm.fallback = (req) => {
      k++;
      if (k === 7) return openaiError(401, 'invalid api key');
      const w = passageOf(req.body).split(/\s+/).filter(Boolean);
      if (k === 3) return openaiCompletion('no json here');
      if (k === 4) return openaiCompletion(JSON.stringify({ question: w.slice(0, 9).join(' ') }));
      return openaiCompletion(JSON.stringify({ question: `${w.filter((_, i) => i % 2 === 0).slice(0, 8).join(' ')}?`, answerable: true }));
    };
    process.env.RAG_LAB_API_KEY = 'sk-test-SECRET-1';
    try {
      const failed = await captureCommand(testsetCommand, args);
      expect(failed.error?.message).toMatch(/stopped: .*invalid api key.* replies are cached; running again resumes/s);
      expect(failed.error?.message).not.toContain('SECRET');
      expect(existsSync(join(out, 'queries.jsonl'))).toBe(false);
      const asked = llm.requests.length;
      const again = await captureCommand(testsetCommand, args);
      expect(again.error).toBeNull();
      // Only the chunks without a cached reply were asked again.
      expect(llm.requests.length - asked).toBe(12 - (asked - 1));
      const meta = JSON.parse(readFileSync(join(out, 'testset.json'), 'utf8'));
      expect(meta).toMatchObject({ kind: 'llm', provenance: { model: 'test-model', promptVersion: 'testset-v1', asked: 12, junk: 1, copied: 1 } });
      expect(meta.provenance.cached).toBe(asked - 1);
      expect(readFileSync(join(out, 'queries.jsonl'), 'utf8').trim().split('\n')).toHaveLength(10 - meta.provenance.duplicate);
      expect(llm.requests.every((q) => q.headers.authorization === 'Bearer sk-test-SECRET-1')).toBe(true);
    } finally {
      delete process.env.RAG_LAB_API_KEY;
    }
    const t = await captureCommand(tuneCommand, ['--data', small, '--testset', out, '--modes', 'sparse', '--budget', '3', '--json']);
    expect(t.error).toBeNull();
    expect(lastJson(t.out).adoptable).toBe(true);
  });

  test('its errors are one line each', async () => {
    expect((await captureCommand(testsetCommand, ['--kb', small])).error?.message).toMatch(/say what test set to make: llm, pseudo or import/);
    expect((await captureCommand(testsetCommand, ['pseudo', '--kb', small])).error?.message).toMatch(/--out DIR is required/);
    expect((await captureCommand(testsetCommand, ['llm', '--kb', small, '--out', join(tmp, 'x')])).error?.message).toMatch(/--provider .* and --model are required/);
    expect((await captureCommand(testsetCommand, ['import', join(tmp, 'nope.txt'), '--kb', small, '--out', join(tmp, 'y')])).error?.message).toMatch(/nope\.txt/);
  });
});
