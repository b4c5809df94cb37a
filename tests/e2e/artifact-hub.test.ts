/**
 * A knowledge-base artifact on the loopback Hub, in the built site: an artifact written by `rag-lab build-index` (a
 * SciFact subset from ../shared, written to a temp dir, the fixture embedder, int8 vectors) and served as dataset
 * repo `test-owner/kb` opens through the picker, dense search uses its vectors (no embedding in the tab), and every
 * one of the seven modes gives the same top-10 ids and scores (to 1e-6) as `rag-lab search --json` on the folder (and
 * a float32-only index of the same repo, scanned exactly, in two modes). A
 * seed-A folder opens (BM25 rebuilt, the note about the ignored faiss.index). A tampered file and a private repo
 * without a token get their messages while SOTU keeps answering, as does a meta.json declaring a 10 GB file (refused
 * with the limit named, before any data file is asked for). A second open (picker, then reload) makes only the
 * revision request (the Hub source's rule: the revision is resolved, every file comes from the cache), and with the
 * Hub gone the page still opens it from the cached commit. The tests share one browser profile and run in order: the
 * tampered file is met before the good copy of its bytes is cached (the cache is content-addressed by meta.json's
 * SHA-256), and the second open needs the parity test's first one.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { writeNpy } from '../../src/lib/artifact/npy.ts';
import { writeTable } from '../../src/lib/artifact/parquet.ts';
import { MODE_IDS, type RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { serveHubRepos, type HubRepoServer, type RepoRequest } from '../helpers/hub-repo-server.ts';
import { waitForDense } from '../helpers/models-page.ts';
import { centres, clustered } from '../helpers/vectors.ts';

const site = inject('siteUrl');
const modelHost = inject('hubUrl');
const ROOT = resolve(import.meta.dirname, '../..');
const MODELS_DIR = join(ROOT, 'tests/fixtures/models');
const EMBEDDER = 'rag-lab/tiny-embedder';
const CROSS_ENCODER = 'rag-lab/tiny-cross-encoder';
const INDEX = 'scifact-300';
/** The same data without int8 vectors: the browser scans its float32 vectors exactly. */
const F32_INDEX = 'scifact-300-f32';
const F32_TITLE = 'SciFact subset (float32)';
const F32_MODES: readonly RetrievalMode[] = ['dense', 'hybrid_calibrated_rerank'];
const TITLE = 'SciFact subset';
const SOTU_TITLE = 'State of the Union addresses';
const TOP_K = 10;
const CANDIDATE_K = 30;
const CALIBRATION = 'cdf';
const SEED_DIM = 16;
const HUB_TOKEN = 'hf_privateREADtoken42';

interface Hit { id: string; score: number }
interface Shown { status: string; hits: Hit[] }

let tmp: string;
let artifact: string;
let queries: string[];
let hub: HubRepoServer;
let browser: Browser;
/** What `rag-lab search --json` gives per mode, per query (started in beforeAll, awaited by the parity test). */
let cliResults: Promise<Map<RetrievalMode, Shown[]>>;
let cliF32Results: Promise<Map<RetrievalMode, Shown[]>>;

/** A seed-A folder (seed A's notebook layout): chunks.parquet, embeddings.npy, its meta.json and a dummy faiss.index. */
function seedAFolder(dir: string, docs: Array<{ id: string; title: string; text: string }>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chunks.parquet'), writeTable([
    { name: 'id', type: 'STRING', data: docs.map((d) => `${d.id}_c0`) },
    { name: 'source', type: 'STRING', data: docs.map((d) => d.id) },
    { name: 'chunk', type: 'STRING', data: docs.map((d) => d.text) },
    { name: 'title', type: 'STRING', data: docs.map((d) => d.title) },
  ]));
  writeFileSync(join(dir, 'embeddings.npy'), writeNpy(clustered(docs.length, SEED_DIM, centres(3, SEED_DIM, 7), 3), [docs.length, SEED_DIM]));
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ embedding_model: 'test/fixture-embedder', dim: SEED_DIM, chunk_size: 512, chunk_overlap: 64, num_chunks: docs.length, name: 'seed-papers' }));
  writeFileSync(join(dir, 'faiss.index'), new Uint8Array([1, 2, 3]));
  return dir;
}

/** Seed A's separate k's, set in the float32 lane (the CLI's flags and the Search tab's fields must agree). */
const SEPARATE_KS = { 'bm25-k': 15, 'dense-k': 40, 'fusion-top-k': 25 } as const;

async function cliSearch(kb: string, modes: readonly RetrievalMode[], extra: readonly string[] = []): Promise<Map<RetrievalMode, Shown[]>> {
  const out = new Map<RetrievalMode, Shown[]>();
  for (const mode of modes) {
    const r = await runCli(['search', '--kb', kb, '--mode', mode, '--top-k', String(TOP_K), '--candidate-k', String(CANDIDATE_K),
      '--calibration', CALIBRATION, '--json', '--models-dir', MODELS_DIR, '--reranker', CROSS_ENCODER, '--no-cache', ...extra, ...queries]);
    if (r.code !== 0) throw new Error(`rag-lab search --mode ${mode} failed (${r.code}): ${r.stderr}`);
    const json = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { results: Array<{ status: string; hits: Hit[] }> };
    out.set(mode, json.results.map((x) => ({ status: x.status, hits: x.hits.map((h) => ({ id: h.id, score: h.score })) })));
  }
  return out;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rag-lab-artifact-hub-'));
  const data = scifactSubset({ queries: 4, others: 300, name: INDEX, parent: tmp });
  queries = readFileSync(join(data, 'queries.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
  expect(queries.length).toBe(4);
  const out = join(tmp, 'repo');
  const built = await runCli(['build-index', '--data', data, '--out', out, '--title', TITLE, '--embedder', EMBEDDER, '--models-dir', MODELS_DIR, '--int8']);
  expect(built.code, built.stderr).toBe(0);
  const f32 = await runCli(['build-index', '--data', data, '--out', out, '--id', F32_INDEX, '--title', F32_TITLE, '--embedder', EMBEDDER, '--models-dir', MODELS_DIR]);
  expect(f32.code, f32.stderr).toBe(0);
  artifact = join(out, INDEX);
  // Two lanes of CLI runs while the browser tests go on; awaited (and their failures reported) by the parity test.
  cliResults = cliSearch(artifact, MODE_IDS);
  cliF32Results = cliSearch(join(out, F32_INDEX), F32_MODES, Object.entries(SEPARATE_KS).flatMap(([f, k]) => [`--${f}`, String(k)]));
  for (const p of [cliResults, cliF32Results]) p.catch(() => {});

  hub = await serveHubRepos({ token: HUB_TOKEN });
  hub.addRepo('test-owner/kb', out);
  hub.addRepo('test-owner/private', out, { private: true });
  // The same artifact with one byte of chunks.parquet changed (same size, another SHA-256 than meta.json's).
  const tampered = join(tmp, 'tampered');
  cpSync(out, tampered, { recursive: true });
  const chunksFile = join(tampered, INDEX, 'chunks.parquet');
  const chunks = readFileSync(chunksFile);
  const at = chunks.length >> 1;
  chunks[at] = chunks[at]! ^ 0xff;
  writeFileSync(chunksFile, chunks);
  hub.addRepo('test-owner/tampered', tampered);
  // The same artifact whose meta.json declares chunks.parquet as 10 GB (the Content-Length would match).
  const huge = join(tmp, 'huge');
  cpSync(out, huge, { recursive: true });
  const metaFile = join(huge, INDEX, 'meta.json');
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { files: Record<string, { bytes: number }> };
  meta.files['chunks.parquet']!.bytes = 10 * 1024 ** 3;
  writeFileSync(metaFile, JSON.stringify(meta));
  hub.addRepo('test-owner/huge', huge);
  const corpus = readFileSync(join(data, 'corpus.jsonl'), 'utf8').trim().split('\n').slice(0, 40)
    .map((l) => JSON.parse(l) as { _id: string; title: string; text: string }).map((d) => ({ id: d._id, title: d.title, text: d.text }));
  hub.addRepo('test-owner/seed-a', seedAFolder(join(tmp, 'seed-a'), corpus));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A page whose every load starts with the Hub URL and the fixture models (fp32 on WASM, as the CLI's) in Settings. */
async function openPage(): Promise<Page> {
  const page = await browser.context.newPage();
  const settings = JSON.stringify({
    remoteHost: modelHost, hubUrl: `${hub.url}/`, autoLoadModels: false,
    embedder: { id: EMBEDDER, dtype: 'fp32', device: 'wasm' }, crossEncoder: { id: CROSS_ENCODER, dtype: 'fp32', device: 'wasm' },
  });
  await page.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), settings);
  return page;
}

const ready = (page: Page) => page.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });
const openTitle = (page: Page) => page.locator('[data-testid=kb-select] option:checked').innerText();

/** Lists a repo's indexes in the picker's Hub form; returns the error shown, or null when indexes are offered. */
async function listRepo(page: Page, repo: string): Promise<string | null> {
  const details = page.locator('[data-testid=kb-picker] details.kb-hub');
  if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await details.locator('summary').click();
  await page.locator('[data-testid=kb-hub-repo]').fill(repo);
  await page.locator('[data-testid=kb-hub-revision]').fill('main');
  await page.locator('[data-testid=kb-hub-open]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=kb-hub-open]')?.textContent === 'List indexes'
    && !!document.querySelector('[data-testid=kb-index-option], [data-testid=kb-hub-error]'));
  const error = page.locator('[data-testid=kb-hub-error]');
  return (await error.count()) ? error.innerText() : null;
}

/** Opens the repo's first listed index; resolves when it is open or the switch failed (returns the switch error). */
async function openFromHub(page: Page, repo: string, title: string, path?: string): Promise<string | null> {
  expect(await listRepo(page, repo)).toBeNull();
  const options = page.locator('[data-testid=kb-index-option]');
  await (path === undefined ? options.first() : options.and(page.locator(`[data-path="${path}"]`))).click();
  return settle(page, title);
}

/** Waits until `title` is open and ready, or the switch failed; returns the switch error (null when it opened). */
async function settle(page: Page, title: string): Promise<string | null> {
  await page.waitForFunction((t) => {
    if (document.querySelector('[data-testid=kb-pending]')) return false;
    if (document.querySelector('[data-testid=kb-switch-error]')) return true;
    // Ready, not loading: while a linked KB opens, the select already names it and the description is the entry's.
    return document.querySelector('[data-testid=kb-picker]')?.getAttribute('data-status') === 'ready'
      && document.querySelector<HTMLSelectElement>('[data-testid=kb-select]')?.selectedOptions[0]?.textContent === t
      && document.querySelector('[data-testid=kb-description] .kb-counts') !== null;
  }, title, { timeout: 120_000 });
  const error = page.locator('[data-testid=kb-switch-error]');
  return (await error.count()) ? error.innerText() : null;
}

/** Types `query` and waits for its final results in the selected mode (a rerank mode's reranked ones). */
async function searchShown(page: Page, query: string, mode: RetrievalMode): Promise<Shown> {
  await page.locator('[data-testid=query]').fill(query);
  await page.waitForFunction(([q, m]) => {
    const r = document.querySelector('[data-testid=results]');
    return !!r && r.getAttribute('data-query') === q && r.getAttribute('aria-busy') === 'false'
      && !document.querySelector('[data-testid=rerank-pending]')
      && document.querySelector('[data-testid=telemetry-mode]')?.textContent === m;
  }, [query, mode] as const, { timeout: 60_000 });
  const status = (await page.locator('[data-testid=results]').getAttribute('data-status')) ?? '';
  const hits = await page.locator('[data-testid=hit]').evaluateAll((els) => els.map((e) => ({ id: e.getAttribute('data-id') ?? '', score: Number(e.getAttribute('data-score')) })));
  return { status, hits };
}

/** For each mode and query: the page's top-10 ids equal the CLI's, each score within 1e-6, the same status. */
async function expectCliResults(page: Page, modes: readonly RetrievalMode[], expected: Map<RetrievalMode, Shown[]>): Promise<void> {
  let compared = 0;
  for (const mode of modes) {
    await page.locator('[data-testid=mode]').selectOption(mode);
    for (const [i, query] of queries.entries()) {
      const shown = await searchShown(page, query, mode);
      const cli = expected.get(mode)![i]!;
      const where = `${mode} "${query}"`;
      expect(shown.hits.length, where).toBe(TOP_K);
      expect(shown.status, where).toBe(cli.status);
      expect(shown.hits.map((h) => h.id), where).toEqual(cli.hits.map((h) => h.id));
      for (const [j, h] of shown.hits.entries()) expect(Math.abs(h.score - cli.hits[j]!.score), `${where} #${j + 1}`).toBeLessThanOrEqual(1e-6);
      compared++;
    }
  }
  expect(compared).toBe(modes.length * queries.length);
}

/** Requests the Hub received from index `from` on, but CORS preflights. */
const since = (from: number): RepoRequest[] => hub.requests.slice(from).filter((r) => r.method !== 'OPTIONS');
const revisionOnly = [{ method: 'GET', path: '/api/datasets/test-owner/kb/revision/main' }];
const shape = (rs: RepoRequest[]) => rs.map((r) => ({ method: r.method, path: r.path }));

describe('knowledge-base artifacts from the loopback Hub in the browser', () => {
  test('a tampered file is refused naming it and SOTU stays open; a private repo without a token asks for one, and a link to it opens with the remembered token', async () => {
    const page = await openPage();
    await page.goto(site);
    await ready(page);
    expect(await openTitle(page)).toBe(SOTU_TITLE);

    const error = await openFromHub(page, 'test-owner/tampered', TITLE);
    expect(error).toMatch(new RegExp(`^${TITLE} could not be opened: .*${INDEX}/chunks\\.parquet.*SHA-256.*differs from meta\\.json.* ${SOTU_TITLE} stays open\\.$`));
    expect(await openTitle(page)).toBe(SOTU_TITLE);
    // A 10 GB file declared in meta.json: refused with the limit named before any data file is asked for.
    expect(await openFromHub(page, 'test-owner/huge', TITLE)).toMatch(new RegExp(`${INDEX}/chunks\\.parquet: declared 10\\.0 GB \\(by meta\\.json\\), over the 1 GB limit for parquet files: refused before downloading it`));
    expect(hub.requests.filter((r) => r.path.startsWith('/datasets/test-owner/huge/resolve/') && r.path.endsWith('.parquet'))).toEqual([]);
    expect(await openTitle(page)).toBe(SOTU_TITLE);
    const sotu = await searchShown(page, 'purchase of Louisiana', 'sparse');
    expect(sotu.hits.length).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=hit-meta]').first().innerText()).toMatch(/^Year: \d{4}/);

    expect(await listRepo(page, 'test-owner/private')).toBe('test-owner/private@main: the repo test-owner/private is private or gated: add a Hugging Face token (hf_…) in Settings');
    expect(hub.requests.some((r) => r.auth)).toBe(false);
    expect(await openTitle(page)).toBe(SOTU_TITLE);

    // With the token remembered in Settings, a fresh load of a link to the private repo opens it (the open waits
    // for the remembered token; it used to start before, get 401 and fall back to SOTU).
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.locator('[data-testid=hub-token]').fill(HUB_TOKEN);
    await page.getByLabel('Remember on this device').check();
    await page.locator('[data-testid=hub-token-save]').click();
    await page.getByText('Token set.').waitFor();
    await page.close();
    const linked = await openPage();
    const from = hub.requests.length;
    await linked.goto(`${site}?kb=${encodeURIComponent(`hub:test-owner/private/${INDEX}@main`)}`);
    await linked.waitForFunction(() => document.querySelector('[data-testid=kb-picker]')?.getAttribute('data-status') === 'ready'
      && !document.querySelector('[data-testid=kb-pending]') && document.querySelector('[data-testid=kb-description] .kb-counts') !== null, null, { timeout: 120_000 });
    // The link's entry is open (not SOTU), read at the private repo's commit.
    expect(await openTitle(linked)).toBe(`test-owner/private/${INDEX}`);
    expect(await linked.locator('[data-testid=kb-description] .kb-counts').innerText()).toContain(`commit ${hub.head('test-owner/private').slice(0, 7)}`);
    expect(hub.requests.slice(from).filter((r) => r.path.includes('test-owner/private/')).every((r) => r.auth || r.method === 'OPTIONS')).toBe(true);
    await linked.close();
  });

  test('a seed-A folder opens: BM25 rebuilt from its chunks, with the note about the ignored faiss.index', async () => {
    const page = await openPage();
    await page.goto(site);
    await ready(page);
    expect(await openFromHub(page, 'test-owner/seed-a', 'seed-papers')).toBeNull();
    expect(await page.locator('[data-testid=kb-description]').innerText()).toMatch(/40 documents · 40 chunks · commit [0-9a-f]{7}/);
    const notes = (await page.locator('[data-testid=kb-note]').allInnerTexts()).join('\n');
    expect(notes).toMatch(/faiss\.index ignored: RAG Lab builds its own vector index and rebuilds BM25 from the chunk text\./);
    expect(notes).toMatch(/no checksums/);
    const shown = await searchShown(page, queries[0]!, 'sparse');
    expect(shown.hits.length).toBeGreaterThan(0);
    expect(shown.hits.every((h) => /_c0$/.test(h.id) && h.score > 0)).toBe(true);
    await page.close();
  });

  test('the build-index artifact agrees with rag-lab search in all seven modes, with its own vectors', async () => {
    const page = await openPage();
    await page.goto(site);
    await ready(page);
    expect(await openFromHub(page, 'test-owner/kb', TITLE)).toBeNull();
    expect(await page.locator('[data-testid=kb-description]').innerText()).toContain(`303 documents · 303 chunks · commit ${hub.head('test-owner/kb').slice(0, 7)}`);

    await page.locator('[data-testid=enable-models]').click();
    const dense = await waitForDense(page);
    // The artifact's vectors: restored, never embedded in the tab.
    expect(dense.stages).not.toContain('Embedding chunks');
    expect(dense.stages).not.toContain('Looking for cached embeddings');
    expect(dense.source).toBe('artifact');
    expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/rag-lab\/tiny-embedder \(fp32, wasm\), 16 dimensions, int8 index .*embeddings from the index artifact/);
    await page.waitForFunction(() => document.querySelector<HTMLOptionElement>('[data-testid=mode] option[value=hybrid_calibrated_rerank]')?.disabled === false, null, { timeout: 120_000 });

    await page.locator('[data-testid=top-k]').fill(String(TOP_K));
    await page.locator('[data-testid=candidate-k]').fill(String(CANDIDATE_K));
    await page.locator('[data-testid=calibration]').selectOption(CALIBRATION);
    await expectCliResults(page, MODE_IDS, await cliResults);

    // The float32-only index of the same repo: opened next, its vectors attach (exact scan) for the loaded embedder.
    expect(await openFromHub(page, 'test-owner/kb', F32_TITLE, F32_INDEX)).toBeNull();
    await page.waitForFunction(() => /exact index .*embeddings from the index artifact/.test(document.querySelector('[data-testid=dense-info]')?.textContent ?? '')
      && document.querySelector<HTMLOptionElement>('[data-testid=mode] option[value=hybrid_calibrated_rerank]')?.disabled === false, null, { timeout: 60_000 });
    for (const [f, k] of Object.entries(SEPARATE_KS)) await page.locator(`[data-testid=${f}]`).fill(String(k));
    await expectCliResults(page, F32_MODES, await cliF32Results);
    const link = new URL(page.url()).searchParams;
    expect([link.get('ck'), link.get('bk'), link.get('dk'), link.get('fk')]).toEqual([String(CANDIDATE_K), '15', '40', '25']);
    await page.close();
  });

  test('a second open reads every file from the cache (only the revision is asked), and opens with the Hub gone', async () => {
    const page = await openPage();
    await page.goto(site);
    await ready(page);
    // The picker remembers the Hub knowledge base opened before (this browser profile).
    let from = hub.requests.length;
    await page.locator('[data-testid=kb-select]').selectOption({ label: TITLE });
    expect(await settle(page, TITLE)).toBeNull();
    expect(shape(since(from))).toEqual(revisionOnly);
    const bm25 = (await cliResults).get('sparse')!;
    /** The page's BM25 hits (its default top_k) are the head of the CLI's BM25 top-10 for the same artifact. */
    const cliHead = async (i: number) => {
      const shown = await searchShown(page, queries[i]!, 'sparse');
      expect(shown.hits.length).toBeGreaterThan(0);
      expect(shown.hits.map((h) => h.id)).toEqual(bm25[i]!.hits.slice(0, shown.hits.length).map((h) => h.id));
      return shown;
    };
    await cliHead(1);

    // A reload opens the link's knowledge base (kb= in the URL) the same way.
    expect(new URL(page.url()).searchParams.get('kb')).toBe(`hub:test-owner/kb/${INDEX}@main`);
    from = hub.requests.length;
    await page.reload();
    await ready(page);
    expect(await settle(page, TITLE)).toBeNull();
    expect(shape(since(from))).toEqual(revisionOnly);
    const before = await cliHead(2);

    // Offline: the revision cannot be resolved, the commit cached last time is used, no file is needed.
    const host = new URL(hub.url).host;
    const sha = hub.head('test-owner/kb');
    await hub.close();
    await page.reload();
    await ready(page);
    expect(await settle(page, TITLE)).toBeNull();
    // The source's word on where the revision came from is the knowledge base's cache note (LoadPanel).
    await expect.poll(() => page.locator('[data-testid=cache-note]').allInnerTexts(), { timeout: 30_000 }).toContain(`${host} did not answer: test-owner/kb@main is opened at ${sha.slice(0, 7)}, the commit cached last time.`);
    expect(await searchShown(page, queries[2]!, 'sparse')).toEqual(before);
    await page.close();
  });
});
