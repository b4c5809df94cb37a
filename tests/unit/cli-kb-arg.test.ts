/** `--kb` parsing (cli/kb-arg.ts): what each form names, and the one-line errors for the others. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../cli/args.ts';
import { hubUrl, modelArgsFor, parseKbArg, tokenFromEnv, type CliKb } from '../../cli/kb-arg.ts';

const root = mkdtempSync(join(tmpdir(), 'rag-lab-kb-arg-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const folder = (name: string, files: string[]) => {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  for (const f of files) writeFileSync(join(d, f), '{}');
  return d;
};
const message = (fn: () => unknown) => {
  try { fn(); } catch (e) { expect(e).toBeInstanceOf(CliError); return (e as Error).message; }
  throw new Error('expected a CliError');
};

describe('parseKbArg', () => {
  it('sotu, hub ids with revision and index, artifact folders with #index', () => {
    expect(parseKbArg('sotu')).toEqual({ kind: 'sotu' });
    expect(parseKbArg('hub:me/my-kb')).toEqual({ kind: 'hub', repo: 'me/my-kb', revision: null, index: null });
    expect(parseKbArg('hub:me/my-kb@v1.2#scifact')).toEqual({ kind: 'hub', repo: 'me/my-kb', revision: 'v1.2', index: 'scifact' });
    const repo = folder('repo', ['index_config.json']);
    expect(parseKbArg(repo)).toEqual({ kind: 'folder', dir: repo, index: null });
    expect(parseKbArg(`${repo}#notes`)).toEqual({ kind: 'folder', dir: repo, index: 'notes' });
    const one = folder('one', ['meta.json']);
    expect(parseKbArg(one)).toEqual({ kind: 'folder', dir: one, index: null });
  });

  it('a BEIR folder only where allowed, else a pointer to build-index', () => {
    const beir = folder('beir', ['corpus.jsonl']);
    expect(parseKbArg(beir, { allowBeir: true })).toEqual({ kind: 'beir', dir: beir });
    expect(message(() => parseKbArg(beir))).toMatch(/a BEIR folder, not an artifact \(build one with rag-lab build-index --data .* --out <dir>, or give it to --data\)/);
  });

  it('bad forms are named', () => {
    expect(message(() => parseKbArg('hub:nobody'))).toMatch(/"nobody" is not a Hub repo id/);
    expect(message(() => parseKbArg('hub:me/kb@bad rev'))).toMatch(/is not a revision/);
    expect(message(() => parseKbArg(join(root, 'missing')))).toMatch(/missing: not found \(give sotu, an artifact folder, hub:owner\/repo\)/);
    expect(message(() => parseKbArg(folder('empty', [])))).toMatch(/no index_config\.json or meta\.json in this folder/);
    writeFileSync(join(root, 'file.txt'), 'x');
    expect(message(() => parseKbArg(join(root, 'file.txt')))).toMatch(/is a file, not a folder/);
  });
});

describe('tokenFromEnv and hubUrl', () => {
  it('reads the named variable; unset, empty or a token-looking name are errors that never echo a value', () => {
    process.env.RAG_LAB_KB_ARG_TEST = ' hf_abc ';
    expect(tokenFromEnv('RAG_LAB_KB_ARG_TEST', 'why')).toBe('hf_abc');
    expect(tokenFromEnv(undefined, 'why')).toBeUndefined();
    delete process.env.RAG_LAB_KB_ARG_TEST;
    expect(message(() => tokenFromEnv('RAG_LAB_KB_ARG_TEST', 'it holds the token'))).toMatch(/RAG_LAB_KB_ARG_TEST is not set \(it holds the token\)/);
    expect(message(() => tokenFromEnv('hf_secret-value', 'x'))).not.toContain('hf_secret-value');
    // A pasted token can look like a variable name: still refused, still not echoed.
    expect(message(() => tokenFromEnv('hf_AbCdEf0123456789', 'x'))).toBe("--token-env: not an environment variable name (give the variable's name, e.g. HF_TOKEN, not the token)");
  });

  it('HF_ENDPOINT without its trailing slash, else huggingface.co', () => {
    const saved = process.env.HF_ENDPOINT;
    try {
      process.env.HF_ENDPOINT = 'http://127.0.0.1:9/';
      expect(hubUrl()).toBe('http://127.0.0.1:9');
      delete process.env.HF_ENDPOINT;
      expect(hubUrl()).toBe('https://huggingface.co');
    } finally {
      if (saved === undefined) delete process.env.HF_ENDPOINT; else process.env.HF_ENDPOINT = saved;
    }
  });
});

describe('modelArgsFor', () => {
  const withVectors = { dense: { embedder: { id: 'org/emb', dtype: 'q8', dim: 4 } } } as unknown as CliKb;
  const args = { dtype: 'fp32', 'no-cache': false };
  it("defaults the query embedder and dtype to the artifact's; --dtype given wins", () => {
    expect(modelArgsFor(args, withVectors, [])).toMatchObject({ embedder: 'org/emb', dtype: 'q8' });
    expect(modelArgsFor(args, withVectors, ['--dtype', 'fp32'])).toMatchObject({ embedder: 'org/emb', dtype: 'fp32' });
    expect(modelArgsFor({ ...args, embedder: 'org/emb' }, withVectors, [])).toMatchObject({ embedder: 'org/emb' });
  });
  it('another embedder is refused; without vectors the flags stay as given', () => {
    expect(message(() => modelArgsFor({ ...args, embedder: 'org/other' }, withVectors, []))).toMatch(/--embedder org\/other does not match the artifact: its vectors were made by org\/emb/);
    const none = { dense: null } as unknown as CliKb;
    expect(modelArgsFor({ ...args, embedder: 'x/y' }, none, [])).toEqual({ ...args, embedder: 'x/y' });
  });
});
