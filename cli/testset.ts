/**
 * `rag-lab testset llm|pseudo|import`: a test set of a knowledge base as BEIR files (the making: src/lib/tune/test-set-make.ts,
 * as the Tune panel makes it), for `rag-lab tune --testset DIR`. LLM replies are cached in the output folder.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiSetupError, apiSetup } from '../src/lib/eval/core/api-setup.ts';
import { PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { estimateLlmTestSet, sampleTestSetChunks } from '../src/lib/tune/llm-test-set.ts';
import { documentsHash, makeTestSet, TEST_SET_META_FILE, testSetBeirFiles, type TestSetRecipe } from '../src/lib/tune/test-set-make.ts';
import { TEST_SET_LIMITS } from '../src/lib/tune/test-set-file.ts';
import { CliError, numberArg, parse } from './args.ts';
import { readSmallText, writeText } from './fs-errors.ts';
import { KB_ARGS, KB_HELP, openKb } from './kb-arg.ts';

const HELP = `Usage: rag-lab testset llm|pseudo|import [FILE] --kb KB --out DIR [options]

${KB_HELP}
  --out DIR          writes queries.jsonl, qrels/test.tsv and ${TEST_SET_META_FILE} (kind, provenance, the documents' hash)
  --n N              llm: chunks asked for a question each; pseudo: queries (default 100)
  --seed S           the sample's seed (default 0)
  llm: --provider ${PROVIDER_IDS.join('|')} --model NAME [--base-url URL] [--api-key KEY, or RAG_LAB_API_KEY]
       [--estimate: print the calls, tokens and cost, and stop]; replies are cached in DIR/replies.jsonl (a rerun resumes)
  import FILE: a .csv (a header row) or .jsonl of questions with doc_id, chunk_id or answer (docs/tuning.md)
`;

export async function testsetCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    ...KB_ARGS, out: { type: 'string' }, n: { type: 'string' }, seed: { type: 'string' }, provider: { type: 'string' }, model: { type: 'string' },
    'base-url': { type: 'string' }, 'api-key': { type: 'string' }, estimate: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (values.help) { console.log(HELP); return; }
  const [kind, file] = positionals;
  if (kind !== 'llm' && kind !== 'pseudo' && kind !== 'import') throw new CliError(`say what test set to make: llm, pseudo or import\n\n${HELP}`);
  if (kind === 'import' && !file) throw new CliError('import: the file to import is required (rag-lab testset import FILE --kb KB --out DIR)');
  const out = values.out;
  if (!out && !values.estimate) throw new CliError('--out DIR is required');
  const n = numberArg('n', values.n, (x) => Number.isInteger(x) && x >= 1 && x <= 100_000, 'a whole number from 1 to 100,000') ?? 100;
  const seed = numberArg('seed', values.seed, (x) => Number.isInteger(x) && x >= 0, 'a whole number ≥ 0') ?? 0;
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const { kb } = await openKb(values, { log, allowBeir: true, dense: 'none' });

  let recipe: TestSetRecipe;
  const apiKey = values['api-key'] ?? process.env.RAG_LAB_API_KEY ?? undefined;
  if (kind === 'llm') {
    if (!values.provider || !values.model) throw new CliError(`llm: --provider (${PROVIDER_IDS.join(', ')}) and --model are required`);
    const setup = (() => { try { return apiSetup({ provider: values.provider, model: values.model, baseUrl: values['base-url'] ?? null, apiKey }); } catch (e) { throw e instanceof ApiSetupError ? new CliError(e.message) : e; } })();
    const e = estimateLlmTestSet(sampleTestSetChunks(kb, n, seed), setup.price);
    log(`${e.calls} calls, ~${e.inputTokens.toLocaleString('en')} input and ~${e.outputTokens.toLocaleString('en')} output tokens, ${setup.price.known ? `~$${e.totalUsd.toFixed(4)}` : 'price unknown for this model'}`);
    if (values.estimate) return;
    mkdirSync(out!, { recursive: true });
    // The replies so far, one JSON line each: a rerun asks only for the chunks not answered yet.
    const cacheFile = join(out!, 'replies.jsonl');
    const replies = new Map<string, string>(existsSync(cacheFile) ? readFileSync(cacheFile, 'utf8').split('\n').filter(Boolean).flatMap((l) => { try { const x = JSON.parse(l) as [string, string]; return [x]; } catch { return []; } }) : []);
    const cache = { get: async (k: string) => replies.get(k) ?? null, set: async (k: string, r: string) => { replies.set(k, r); appendFileSync(cacheFile, JSON.stringify([k, r]) + '\n'); } };
    recipe = { kind: 'llm', n, seed, provider: setup.provider, providerId: values.provider, model: values.model, cache, onProgress: (p) => { if (p.done % 10 === 0 || p.done === p.total) log(`${p.done}/${p.total} chunks: ${p.written} questions, ${p.dropped} dropped, ${p.cached} from the cache`); } };
  } else if (kind === 'pseudo') recipe = { kind: 'pseudo', n, seed };
  else recipe = { kind: 'imported', name: file!, text: readSmallText(file!, TEST_SET_LIMITS.bytes, 'a test set') };

  const set = await makeTestSet(kb, recipe).catch((e: unknown) => { throw new CliError(redactSecrets((e as Error).message || String(e), [apiKey])); });
  const files = testSetBeirFiles(set.queries, set.qrels);
  mkdirSync(join(out!, 'qrels'), { recursive: true });
  writeText(join(out!, 'queries.jsonl'), files.queries);
  writeText(join(out!, 'qrels', 'test.tsv'), files.qrels);
  writeText(join(out!, TEST_SET_META_FILE), JSON.stringify({ kind: set.kind, label: set.label, documentsHash: await documentsHash(kb.docs), provenance: set.provenance, notes: set.notes }, null, 2) + '\n');
  for (const note of set.notes) log(`note: ${note}`);
  console.log(`${set.label}: ${set.queries.length} questions written to ${out}`);
}
