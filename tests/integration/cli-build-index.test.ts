/**
 * `rag-lab build-index` end to end, and the commands that read what it writes (`eval-beir --kb`, `search --kb`,
 * `ask --kb`): a SciFact subset (from ../shared, written to a temp dir), a RAGBench jsonl subset and a text folder;
 * index_config.json keeping entries; evaluating the artifact gives exactly the metrics of evaluating the folder;
 * a push to the loopback Hub read back with `--kb hub:owner/repo`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeNpy } from '../../src/lib/artifact/npy.ts';
import { writeTable } from '../../src/lib/artifact/parquet.ts';
import { SCIFACT, scifactSubset } from '../helpers/beir-subset.ts';
import { HAS_SCRIPT, runCli as cli, runCliInTerminal, type CliRun } from '../helpers/cli.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SHARED = resolve(ROOT, '../shared/data');
const RAGBENCH = join(SHARED, 'ragbench/test');
const FIXTURE_MODELS = join(ROOT, 'tests/fixtures/models');
const MODELS = ['--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/tiny-embedder'];
const ALL_MODELS = [...MODELS, '--reranker', 'rag-lab/tiny-cross-encoder', '--no-cache'];

const temps: string[] = [];
function tempDir(prefix = 'rag-lab-build-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}

const lastJson = (r: CliRun) => JSON.parse(r.stdout.trim().split('\n').at(-1)!);
const ok = (r: CliRun) => expect(r.code, r.stderr).toBe(0);
const indexConfig = (out: string) => JSON.parse(readFileSync(join(out, 'index_config.json'), 'utf8')) as { indexes: { id: string; path: string; embedder: string | null; counts: { documents: number; chunks: number } }[] };

let beir: string;
beforeAll(() => {
  expect(existsSync(join(SCIFACT, 'corpus.jsonl')), `SciFact not found at ${SCIFACT}`).toBe(true);
  beir = scifactSubset({ queries: 12, others: 60, name: 'scifact-mini', parent: tempDir('rag-lab-scifact-') });
});
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

describe('rag-lab build-index', () => {
  test('BEIR, RAGBench jsonl and a text folder into one repo folder: index_config.json keeps every entry', async () => {
    const out = tempDir();
    let r = await cli(['build-index', '--data', beir, '--out', out]);
    ok(r);
    expect(r.stderr).toMatch(/data: BEIR folder .*scifact-mini \(\d+ documents, 12 queries, qrels\/test\.tsv\)/);
    expect(r.stderr).toMatch(/as \d+ whole documents/);
    expect(readdirSync(join(out, 'scifact-mini')).sort()).toEqual(expect.arrayContaining(['chunks.parquet', 'docs.parquet', 'meta.json', 'qrels.parquet', 'queries.parquet']));

    const rb = tempDir();
    writeFileSync(join(rb, 'emanual.jsonl'), readFileSync(join(RAGBENCH, 'emanual.jsonl'), 'utf8').trim().split('\n').slice(0, 8).join('\n') + '\n');
    r = await cli(['build-index', '--data', join(rb, 'emanual.jsonl'), '--out', out, '--title', 'E-manual questions']);
    ok(r);
    expect(r.stderr).toMatch(/data: RAGBench subset emanual/);
    expect(r.stderr).toMatch(/chunks of 800\/120/);

    const notes = join(tempDir(), 'notes');
    mkdirSync(join(notes, 'deep'), { recursive: true });
    writeFileSync(join(notes, 'aspirin.md'), '# Aspirin and the heart\n\nLow-dose aspirin lowers the risk of a second heart attack.\n');
    writeFileSync(join(notes, 'deep/sleep.txt'), 'Adults need seven to nine hours of sleep a night.\n');
    r = await cli(['build-index', '--data', notes, '--out', out, '--id', 'notes', '--chunk', '200/20']);
    ok(r);
    expect(r.stderr).toMatch(/data: text folder .* \(2 documents: 1 Markdown, 1 plain text\)/);

    const config = indexConfig(out);
    expect(config.indexes.map((e) => e.id)).toEqual(['scifact-mini', 'emanual', 'notes']);
    expect(config.indexes.map((e) => e.path)).toEqual(['scifact-mini', 'emanual', 'notes']);
    expect(config.indexes[2]!.counts).toEqual({ documents: 2, chunks: 2 });
    const meta = JSON.parse(readFileSync(join(out, 'notes/meta.json'), 'utf8'));
    expect(meta.chunking).toMatchObject({ size: 200, overlap: 20 });
    expect(meta.fields.map((f: { name: string }) => f.name)).toEqual(['file', 'format']);

    // Rebuilding an index replaces its entry in place; the others stay.
    r = await cli(['build-index', '--data', notes, '--out', out, '--id', 'notes', '--no-chunk', '--title', 'Notes v2']);
    ok(r);
    expect(indexConfig(out).indexes.map((e) => e.id)).toEqual(['scifact-mini', 'emanual', 'notes']);
    expect(JSON.parse(readFileSync(join(out, 'notes/meta.json'), 'utf8')).title).toBe('Notes v2');

    // search over the text folder's artifact: --json shape, hits from the right document, full-precision scores.
    r = await cli(['search', '--kb', `${out}#notes`, '--json', '--top-k', '2', 'aspirin heart attack', 'hours of sleep']);
    ok(r);
    const s = lastJson(r);
    expect(s.kb).toMatch(/#notes$/);
    expect(s.mode).toBe('sparse');
    expect(s.results.map((x: { query: string }) => x.query)).toEqual(['aspirin heart attack', 'hours of sleep']);
    expect(s.results[0].hits[0]).toMatchObject({ rank: 1, id: 'aspirin.md', docId: 'aspirin.md', title: 'Aspirin and the heart', meta: { format: 'md' } });
    expect(s.results[1].hits[0].docId).toBe('deep/sleep.txt');
    expect(typeof s.results[0].hits[0].score).toBe('number');
    expect(s.results[0].hits[0].sparse).toBe(s.results[0].hits[0].score);

    r = await cli(['search', '--kb', `${out}#notes`, '--top-k', '1', 'aspirin heart attack']);
    ok(r);
    expect(r.stdout).toMatch(/^aspirin heart attack\n +1 {2}aspirin\.md {2}aspirin\.md {2}\d+\.\d{4} {2}Aspirin and the heart\n$/);

    // Several indexes and no #id: say which exist.
    r = await cli(['search', '--kb', out, 'aspirin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/3 indexes \(scifact-mini, emanual, notes\); pick one with #<index-id>/);
    r = await cli(['search', '--kb', `${out}#nope`, 'aspirin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no index "nope"/);
  }, 300_000);

  test.skipIf(!HAS_SCRIPT)('on a terminal the progress bar redraws one line in place; in a pipe it writes a line per stage', async () => {
    const out = tempDir();
    const tty = await runCliInTerminal(['build-index', '--data', beir, '--out', out]);
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/\rindex \[[#-]{24}\] +\d+%/);
    expect(tty.stdout).toMatch(/index: done \d+\/\d+ in [\d.]+ s/);
    expect(tty.stdout).not.toMatch(/\\u000d|\\u001b/); // the bar's own controls are not escaped
    const piped = await cli(['build-index', '--data', beir, '--out', out]);
    ok(piped);
    expect(piped.stderr).not.toContain('\r');
    expect(piped.stderr).toMatch(/^index: \d+ to do$/m);
  }, 300_000);

  test('eval-beir --kb gives exactly the metrics of eval-beir --data: BM25, and all seven modes with the fixture models', async () => {
    const out = tempDir();
    ok(await cli(['build-index', '--data', beir, '--out', out, ...MODELS]));
    const meta = JSON.parse(readFileSync(join(out, 'scifact-mini/meta.json'), 'utf8'));
    expect(meta.embedder.id).toBe('rag-lab/tiny-embedder');
    expect(meta.counts.queries).toBe(12);

    const fromData = await cli(['eval-beir', '--data', beir, '--modes', 'all', ...ALL_MODELS, '--json']);
    ok(fromData);
    const fromKb = await cli(['eval-beir', '--kb', out, '--modes', 'all', ...ALL_MODELS, '--json']);
    ok(fromKb);
    expect(fromKb.stderr).toMatch(/the artifact's vectors/);
    const a = lastJson(fromData), b = lastJson(fromKb);
    expect(b.queries).toBe(a.queries);
    expect(Object.keys(b.modes).sort()).toHaveLength(7);
    for (const mode of Object.keys(a.modes)) {
      const { mean_ms: _m1, p95_ms: _p1, ...ma } = a.modes[mode];
      const { mean_ms: _m2, p95_ms: _p2, ...mb } = b.modes[mode];
      expect(mb, mode).toEqual(ma);
    }

    // With --int8 and --hnsw the artifact ships both; an exact scan of its float32 vectors still gives the same dense metrics.
    const packed = tempDir();
    ok(await cli(['build-index', '--data', beir, '--out', packed, ...MODELS, '--int8', '--hnsw']));
    const packedMeta = JSON.parse(readFileSync(join(packed, 'scifact-mini/meta.json'), 'utf8'));
    expect(packedMeta.int8).toMatchObject({ metric: 'cosine' });
    expect(packedMeta.hnsw).toMatchObject({ metric: 'cosine', M: 16 });
    expect(Object.keys(packedMeta.files)).toEqual(expect.arrayContaining(['hnsw.bin', 'embeddings.int8/codes.npy', 'embeddings.npy']));
    const exact = await cli(['eval-beir', '--kb', packed, '--modes', 'dense', '--index', 'exact', ...ALL_MODELS, '--json']);
    ok(exact);
    const { mean_ms: _m3, p95_ms: _p3, ...denseExact } = lastJson(exact).modes.dense;
    const { mean_ms: _m4, p95_ms: _p4, ...denseData } = a.modes.dense;
    expect(denseExact).toEqual(denseData);

    // search over the same artifact in a model mode: the vectors and the cross-encoder reach the hits.
    const query = JSON.parse(readFileSync(join(beir, 'queries.jsonl'), 'utf8').split('\n')[0]!).text as string;
    const s = await cli(['search', '--kb', out, '--mode', 'hybrid_calibrated_rerank', '--top-k', '10', '--json', ...ALL_MODELS.filter((a, i, all) => a !== '--embedder' && all[i - 1] !== '--embedder'), query]);
    ok(s);
    const hits = lastJson(s).results[0].hits as { dense: number | null; rerank: number | null; rank: number }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
    for (const h of hits) { expect(typeof h.dense).toBe('number'); expect(typeof h.rerank).toBe('number'); }

    // Without --embedder the artifact's own embedder is the query embedder; another one is refused.
    const wrong = await cli(['eval-beir', '--kb', out, '--modes', 'dense', '--models-dir', FIXTURE_MODELS, '--embedder', 'rag-lab/other-embedder', '--no-cache']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--embedder rag-lab\/other-embedder does not match the artifact: its vectors were made by rag-lab\/tiny-embedder/);
  }, 600_000);

  test('an artifact without queries is evaluated with --data\'s; --chunk with --kb is refused', async () => {
    const out = tempDir();
    const corpusOnly = join(tempDir(), 'corpus-only');
    mkdirSync(corpusOnly);
    writeFileSync(join(corpusOnly, 'corpus.jsonl'), readFileSync(join(beir, 'corpus.jsonl')));
    ok(await cli(['build-index', '--data', corpusOnly, '--out', out, '--id', 'sci']));
    let r = await cli(['eval-beir', '--kb', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/carries no queries and qrels; give --data/);
    const sparse = lastJson(await cli(['eval-beir', '--data', beir, '--json']));
    r = await cli(['eval-beir', '--kb', `${out}#sci`, '--data', beir, '--json']);
    ok(r);
    const { mean_ms: _a, p95_ms: _b, ...kbScores } = lastJson(r).modes.sparse;
    const { mean_ms: _c, p95_ms: _d, ...dataScores } = sparse.modes.sparse;
    expect(kbScores).toEqual(dataScores);
    r = await cli(['eval-beir', '--kb', out, '--data', beir, '--chunk']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--chunk: the artifact keeps the settings it was built with/);
  }, 300_000);

  test('a seed-A folder (chunks.parquet + embeddings.npy + meta.json) opens with --kb; eval-beir takes --data\'s queries', async () => {
    const seed = join(tempDir(), 'seed-a');
    mkdirSync(seed);
    const docs = readFileSync(join(beir, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
    writeFileSync(join(seed, 'chunks.parquet'), writeTable([
      { name: 'id', type: 'STRING', data: docs.map((d) => `${d._id}_c0`) },
      { name: 'source', type: 'STRING', data: docs.map((d) => d._id) },
      { name: 'chunk', type: 'STRING', data: docs.map((d) => d.text) },
      { name: 'title', type: 'STRING', data: docs.map((d) => d.title) },
    ]));
    const dim = 4;
    const vectors = new Float32Array(docs.length * dim).map((_, i) => (i % dim === 0 ? 1 : 0));
    writeFileSync(join(seed, 'embeddings.npy'), writeNpy(vectors, [docs.length, dim]));
    writeFileSync(join(seed, 'meta.json'), JSON.stringify({ embedding_model: 'seed/embedder', dim, chunk_size: 512, chunk_overlap: 64, num_chunks: docs.length, name: 'seed-sci' }));
    writeFileSync(join(seed, 'faiss.index'), new Uint8Array([1, 2, 3]));

    let r = await cli(['search', '--kb', seed, '--json', '--top-k', '3', docs[0]!.title]);
    ok(r);
    expect(r.stderr).toMatch(/faiss\.index/);
    expect(lastJson(r).results[0].hits[0].docId).toBe(docs[0]!._id);
    r = await cli(['eval-beir', '--kb', seed]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/carries no queries and qrels; give --data/);
    r = await cli(['eval-beir', '--kb', seed, '--data', beir, '--json']);
    ok(r);
    const m = lastJson(r);
    expect(m.queries).toBe(12);
    expect(m.modes.sparse['ndcg@10']).toBeGreaterThan(0.3);
  }, 300_000);

  test('bad input: unknown data kind, bad artifact files, push without a token, each one line with exit 2', async () => {
    const out = tempDir();
    const empty = tempDir();
    let r = await cli(['build-index', '--data', empty, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown data kind/);

    // A push without the token variable fails before anything is built or written.
    r = await cli(['build-index', '--data', beir, '--out', out, '--push', 'me/kb', '--token-env', 'RAG_LAB_TEST_NO_SUCH_VAR']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/RAG_LAB_TEST_NO_SUCH_VAR is not set/);
    expect(existsSync(join(out, 'index_config.json'))).toBe(false);
    r = await cli(['build-index', '--data', beir, '--out', out, '--push', 'me/kb']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--push needs --token-env/);

    // A corrupted index_config.json is named, and not overwritten.
    writeFileSync(join(out, 'index_config.json'), '{"format_version": 1, "indexes": [{"id": "x"}]}');
    r = await cli(['build-index', '--data', beir, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/index_config\.json: not a valid index list/);
    rmSync(join(out, 'index_config.json'));

    // A file whose bytes differ from meta.json's SHA-256: the ArtifactError's one line, exit 2, no stack.
    ok(await cli(['build-index', '--data', beir, '--out', out, '--id', 'sci']));
    const chunks = join(out, 'sci/chunks.parquet');
    const bytes = readFileSync(chunks);
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
    writeFileSync(chunks, bytes);
    r = await cli(['search', '--kb', out, 'aspirin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/chunks\.parquet/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);

    r = await cli(['search', '--kb', beir, 'aspirin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a BEIR folder, not an artifact \(build one with rag-lab build-index/);
  }, 300_000);
});

describe('push to the Hub and read back', () => {
  let hub: HubRepoServer;
  beforeAll(async () => {
    hub = await serveHubRepos({ token: 'hf_testWRITEtoken123' });
    hub.addRepo('me/kb', new Map([['README.md', new TextEncoder().encode('# kb\n')]]));
  });
  afterAll(async () => { await hub?.close(); });

  test('build-index --push uploads the index and index_config.json; eval-beir --kb hub:owner/repo reads them back', async () => {
    const env = { HF_ENDPOINT: hub.url, RAG_LAB_TEST_HF: 'hf_testWRITEtoken123', HOME: tempDir('rag-lab-home-') };
    const out = tempDir();
    let r = await cli(['build-index', '--data', beir, '--out', out, '--push', 'me/kb', '--token-env', 'RAG_LAB_TEST_HF'], env);
    ok(r);
    expect(r.stderr).toMatch(/pushed scifact-mini to me\/kb: commit [0-9a-f]{40}/);
    const remoteConfig = JSON.parse(new TextDecoder().decode(hub.fileAt('me/kb', 'main', 'index_config.json')!));
    expect(remoteConfig.indexes.map((e: { id: string }) => e.id)).toEqual(['scifact-mini']);
    expect(hub.fileAt('me/kb', 'main', 'scifact-mini/meta.json')).not.toBeNull();
    expect(hub.fileAt('me/kb', 'main', 'README.md')).not.toBeNull();
    expect(r.stdout + r.stderr).not.toContain('hf_testWRITEtoken123');
    const local = lastJson(await cli(['eval-beir', '--kb', out, '--json'], env));
    r = await cli(['eval-beir', '--kb', 'hub:me/kb', '--token-env', 'RAG_LAB_TEST_HF', '--json'], env);
    ok(r);
    const { mean_ms: _a, p95_ms: _b, ...remote } = lastJson(r).modes.sparse;
    const { mean_ms: _c, p95_ms: _d, ...here } = local.modes.sparse;
    expect(remote).toEqual(here);

    // A private repo: without the token a one-line refusal (exit 2), with it the same metrics.
    hub.addRepo('me/priv', out, { private: true });
    r = await cli(['eval-beir', '--kb', 'hub:me/priv'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/private/);
    // The terminal's way to give a token, not the app's Settings.
    expect(r.stderr).toMatch(/--token-env VAR/);
    expect(r.stderr).not.toMatch(/Settings/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    r = await cli(['eval-beir', '--kb', 'hub:me/priv', '--token-env', 'RAG_LAB_TEST_HF', '--json'], env);
    ok(r);
    const { mean_ms: _e, p95_ms: _f, ...priv } = lastJson(r).modes.sparse;
    expect(priv).toEqual(here);

    // Someone else commits an index between our read of main and our commit: the 412 makes the push re-read and
    // merge, so both entries survive.
    const other = { id: 'other', title: 'Other', description: '', path: 'other', counts: { documents: 1, chunks: 1 }, embedder: null, created: '2026-01-01T00:00:00.000Z', format_version: 1 };
    hub.beforeNextCommit(() => {
      const current = JSON.parse(new TextDecoder().decode(hub.fileAt('me/kb', 'main', 'index_config.json')!));
      current.indexes.unshift(other);
      hub.commitFiles('me/kb', new Map([['index_config.json', new TextEncoder().encode(JSON.stringify(current))]]), 'a concurrent writer');
    });
    r = await cli(['build-index', '--data', beir, '--out', out, '--id', 'again', '--push', 'me/kb', '--token-env', 'RAG_LAB_TEST_HF'], env);
    ok(r);
    expect(r.stderr).toMatch(/after 1 concurrent commits/);
    const merged = JSON.parse(new TextDecoder().decode(hub.fileAt('me/kb', 'main', 'index_config.json')!));
    expect(merged.indexes.map((e: { id: string }) => e.id)).toEqual(['other', 'scifact-mini', 'again']);

    // A repo where every commit meets a newer head: the retries end with one line, exit 2.
    hub.faults.push({ kind: 'status', path: '/commit/main', status: 412, times: 20 });
    r = await cli(['build-index', '--data', beir, '--out', out, '--id', 'third', '--push', 'me/kb', '--token-env', 'RAG_LAB_TEST_HF'], env);
    hub.faults.length = 0;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/other commits kept landing on me\/kb while pushing \(\d+ tries\): try again later/);
    expect(r.stdout + r.stderr).not.toContain('hf_testWRITEtoken123');

    // A Hub that answers its API with an HTML page (a captive portal): one line naming the host and what came, exit 2.
    hub.faults.push({ kind: 'html', path: '/commit/main' });
    r = await cli(['build-index', '--data', beir, '--out', out, '--id', 'fourth', '--push', 'me/kb', '--token-env', 'RAG_LAB_TEST_HF'], env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^rag-lab build-index: me\/kb: 127\.0\.0\.1:\d+ answered 200 with text\/html; charset=utf-8, not JSON \(first bytes: '<!DOCTYPE html> <html>.*'\)$/m);
    expect(r.stderr).not.toMatch(/unexpected error/);
    hub.faults.push({ kind: 'html', path: '/revision/' });
    r = await cli(['search', '--kb', 'hub:me/kb', 'cancer'], env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toMatch(/^rag-lab search: me\/kb@main: 127\.0\.0\.1:\d+ answered 200 with text\/html; charset=utf-8, not JSON/);
  }, 300_000);
});

describe('rag-lab ask --kb <artifact>', () => {
  let llm: LlmServer;
  beforeAll(async () => { llm = await startLlmServer(); });
  afterAll(async () => { await llm?.close(); });

  test('answers from an artifact folder with its chunks as sources', async () => {
    const out = tempDir();
    ok(await cli(['build-index', '--data', beir, '--out', out]));
    llm.reply({ sse: openaiStream(['Answer from the artifact [1].']) });
    // A document's own title as the question: every word is in it, so the pipeline answers instead of rejecting.
    const first = JSON.parse(readFileSync(join(beir, 'corpus.jsonl'), 'utf8').split('\n')[0]!) as { _id: string; title: string };
    const r = await cli(['ask', '--kb', out, '--provider', 'openai', '--base-url', `${llm.url}/v1`, '--model', 'm', '--api-key', 'k', '--top-k', '2', '--json', first.title]);
    ok(r);
    const a = lastJson(r);
    expect(a.answer).toBe('Answer from the artifact [1].');
    expect(a.contexts).toHaveLength(2);
    const corpusIds = new Set(readFileSync(join(beir, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)._id as string));
    for (const c of a.contexts) expect(corpusIds.has(c.doc_id)).toBe(true);
    expect(a.contexts.map((c: { doc_id: string }) => c.doc_id)).toContain(first._id);
    expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain(a.contexts[0].text.slice(0, 40));
  }, 300_000);
});
