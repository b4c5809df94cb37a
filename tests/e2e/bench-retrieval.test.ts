/**
 * The Benchmark tab's retrieval benchmark (BEIR) in the built site, loopback only: a local SciFact subset folder
 * (written to a temp dir from ../shared) picked with the directory input and run in sparse and the dense modes with
 * the fixture embedder; the summary shows every mode, the report is saved as a draft, and its config hash and per-mode
 * NDCG@10 equal `rag-lab eval-beir --report-out` on the same folder with the same modes (NDCG to 1e-9); a seed-B
 * protocol run records seed B's settings and has eval-beir --protocol seed-b's config hash and NDCG@10. A run cancelled midway leaves the tab usable
 * and the rerun takes rows from the cache; a Hub artifact without queries gets the message; the α simulator ranks a
 * real query; a BEIR dataset on the loopback Hub runs. With another knowledge base's corpus-trained embedder selected
 * and loaded (issue 32), the benchmark neither uses nor picks it by default: the dense modes are skipped with the
 * reason, "Train a corpus embedder on this dataset" trains one in the tab, and the next run uses it, the report
 * recording the embedder and the corpus it was trained on.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import type { Report } from '../../src/lib/reports/format.ts';
import { configDiff } from '../../src/lib/reports/compare.ts';
import type { RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { addBeirScifact } from '../helpers/hub-dataset-fixtures.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { fixtureSettings } from '../helpers/models-page.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';
import { trainCorpusEmbedder } from '../../src/lib/models/corpus-embedder/train.ts';
import { describeFiles, TRAINED_DB, type TrainedModelMeta } from '../../src/lib/store/trained-models.ts';

const site = inject('siteUrl');
const modelHost = inject('hubUrl');
const MODELS_DIR = resolve(import.meta.dirname, '../fixtures/models');
const MODES: readonly RetrievalMode[] = ['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated'];
let tmp: string;
let small: string;
let big: string;
let hub: HubRepoServer;
let browser: Browser;
let page: Page;
let cli: Promise<{ modes: Record<string, Record<string, number>>; report: Report }>;

/** eval-beir on a folder with the fixture embedder (q8, as the page loads it): its --json modes and its --report-out report. */
function evalBeir(dir: string, file: string, args: string[]): Promise<{ modes: Record<string, Record<string, number>>; report: Report }> {
  const out = join(tmp, file);
  return runCli(['eval-beir', '--data', dir, '--models-dir', MODELS_DIR, '--embedder', 'rag-lab/tiny-embedder', '--dtype', 'q8', '--no-cache',
    '--report-out', out, '--json', ...args]).then((r) => {
    if (r.code !== 0) throw new Error(r.stderr);
    const modes = (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { modes: Record<string, Record<string, number>> }).modes;
    return { modes, report: JSON.parse(readFileSync(out, 'utf8')) as Report };
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-rb-'));
  small = scifactSubset({ queries: 12, others: 60, name: 'scifact-small', parent: tmp });
  big = scifactSubset({ queries: 120, others: 200, name: 'scifact-big', parent: tmp });
  // The CLI on the same folder with the same modes and settings (predictors on, as in the tab: they are hashed).
  cli = evalBeir(small, 'cli-small.json', ['--modes', MODES.join(',')]);
  cli.catch(() => {});
  // A knowledge base without queries (built from two text files) as a Hub artifact, and BeIR/scifact as parquet.
  const docs = join(tmp, 'docs');
  mkdirSync(docs);
  writeFileSync(join(docs, 'a.txt'), 'Alpha particles are helium nuclei.\n');
  writeFileSync(join(docs, 'b.txt'), 'Beta decay emits electrons.\n');
  const built = await runCli(['build-index', '--data', docs, '--out', join(tmp, 'plain'), '--id', 'plain', '--title', 'Plain texts']);
  expect(built.code, built.stderr).toBe(0);
  hub = await serveHubRepos();
  hub.addRepo('test-owner/plain', join(tmp, 'plain'));
  addBeirScifact(hub, 'BeIR/scifact', { rows: 300 });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  const settings = { ...JSON.parse(fixtureSettings(modelHost)) as Record<string, unknown>, hubUrl: `${hub.url}/` };
  const kbs = [{ ref: { kind: 'hub', repo: 'test-owner/plain', revision: 'main', path: 'plain' }, title: 'Plain texts', description: 'no queries' }];
  await page.addInitScript(([s, k]) => {
    localStorage.setItem('rag-lab:settings', s);
    localStorage.setItem('rag-lab:knowledge-bases', k);
  }, [JSON.stringify(settings), JSON.stringify(kbs)] as const);
  await page.goto(`${site}?tab=benchmark&bench=retrieval`);
  // The fixture embedder loads on start: the dense modes become available.
  await page.locator('[data-testid=rb-mode-dense]:not([disabled])').waitFor({ timeout: 150_000 });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function pickFolder(dir: string, judged: number) {
  await page.locator('[data-testid=rb-source-files]').check();
  await page.locator('[data-testid=rb-folder]').setInputFiles(dir);
  await page.locator(`[data-testid=rb-folder-info][data-judged="${judged}"]`).waitFor({ timeout: 60_000 });
}

async function setModes(modes: readonly RetrievalMode[]) {
  for (const m of ['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated', 'hybrid_fixed_rerank', 'hybrid_calibrated_rerank'] as const) {
    const box = page.locator(`[data-testid=rb-mode-${m}]`);
    if (modes.includes(m)) await box.check();
    else if (await box.isChecked()) await box.uncheck();
  }
}

/** Clicks Run and waits for the result or the error; returns the error text (null on a result). */
async function run(pg: Page = page): Promise<string | null> {
  const page = pg;
  await page.locator('[data-testid=rb-run]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=rb-run]:not([disabled])') && document.querySelector('[data-testid=rb-result], [data-testid=rb-error]'), null, { timeout: 300_000 });
  const err = page.locator('[data-testid=rb-error]');
  return (await err.count()) ? err.innerText() : null;
}

/** The retrieval reports saved in this browser (the Reports tab's store), newest first. */
const savedReports = (pg: Page = page) => pg.evaluate(() => new Promise<string[]>((done, fail) => {
  const r = indexedDB.open('rag-lab');
  r.onerror = () => fail(r.error);
  r.onsuccess = () => {
    const all = r.result.transaction('report-bodies').objectStore('report-bodies').getAll();
    all.onsuccess = () => { r.result.close(); done((all.result as Array<{ text: string }>).map((x) => x.text)); };
  };
})).then((texts) => texts.map((t) => JSON.parse(t) as Report).filter((x) => x.kind === 'retrieval').sort((a, b) => b.createdAt.localeCompare(a.createdAt)));

describe('retrieval benchmark in the Benchmark tab', () => {
  test('a local folder in sparse and the dense modes: every mode in the table, saved, NDCG@10 equal to eval-beir', async () => {
    await pickFolder(small, 12);
    expect(await page.locator('[data-testid=rb-folder-info]').innerText()).toMatch(/12 judged/);
    await setModes(MODES);
    const t0 = Date.now();
    expect(await run()).toBeNull();
    console.log(`bench-retrieval e2e: 12 queries × ${MODES.length} modes (embedding 71 documents, predictors on) in ${Date.now() - t0} ms`);
    const groups = await page.locator('[data-testid=summary-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-group')));
    expect(groups).toEqual([...MODES]);
    expect(await page.locator('[data-testid=report-summary] thead').innerText()).toMatch(/mode[\s\S]*p95 ms/);
    expect(await page.locator('[data-testid=rb-result]').getAttribute('data-judged')).toBe('12');
    await expect.poll(async () => (await savedReports()).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const report = (await savedReports())[0]!;
    expect(report.draft).toBe(true);
    expect(report.data).toMatchObject({ dataset: 'scifact-small', source: 'local', subsets: ['test'] });
    const want = await cli;
    // The same run from the tab and the CLI: the same config hash (data, knowledge base, models, settings).
    expect(report.configHash).toBe(want.report.configHash);
    expect(report.config).toMatchObject({ protocol: 'default', candidateK: 100, growPool: true, chunking: null, resamples: null });
    for (const mode of MODES) {
      const got = report.summary.metrics.find((m) => m.group === mode && m.id === 'ndcg@10');
      expect(got, mode).toBeDefined();
      expect(Math.abs(got!.value! - want.modes[mode]!['ndcg@10']!), mode).toBeLessThan(1e-9);
      expect(report.rows.filter((r) => r.group === mode)).toHaveLength(12);
    }
    // The predictors are on the rows (for the analysis) but not columns of the rows table; latency is.
    expect(Object.keys(report.rows[0]!.scores).some((k) => k.startsWith('qpp.'))).toBe(true);
    const heads = await page.locator('[data-testid=bench-rows] thead th').allInnerTexts();
    expect(heads.some((h) => h.startsWith('qpp.') || h.startsWith('ms.'))).toBe(false);
    expect(heads.some((h) => h.includes('total_ms'))).toBe(true);
    // End-to-end latency with its stages in the summary (the dense modes charged the query's embedding).
    expect(Object.keys(report.rows[0]!.scores)).toContain('ms.embed');
    expect(await page.locator('[data-testid=report-summary] thead').innerText()).toMatch(/stages \(mean ms\)/);
    const dense = await page.locator('[data-testid=summary-row][data-group=dense] [data-testid=latency-stages]').innerText();
    expect(dense).toMatch(/embed [\d.]+/);
  }, 400_000);

  test('the α simulator ranks a real query of the run', async () => {
    const sim = page.locator('[data-testid=alpha-sim]');
    await sim.waitFor();
    expect(await sim.getAttribute('data-real')).toBe('yes');
    const select = sim.locator('[data-testid=sim-query]');
    const values = await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(values.length).toBe(12);
    await select.selectOption(values[0]!);
    await expect.poll(() => sim.locator('[data-testid=sim-top-row]').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    expect(await sim.locator('[data-testid=sim-error]').count()).toBe(0);
    expect(Number(await sim.locator('[data-testid=sim-ndcg]').innerText())).toBeGreaterThanOrEqual(0);
  }, 120_000);

  test('cancel midway leaves the tab usable, and the rerun takes rows from the cache', async () => {
    await pickFolder(big, 120);
    await setModes(['sparse', 'dense', 'hybrid_calibrated']);
    await page.locator('[data-testid=rb-run]').click();
    // Cancelled once rows are being computed (the embeddings are done).
    await page.waitForFunction(() => {
      const p = document.querySelector('[data-testid=rb-progress]');
      return !!p && p.getAttribute('data-mode') !== '' || !!document.querySelector('[data-testid=rb-result][data-judged="120"], [data-testid=rb-error]');
    }, null, { timeout: 300_000 });
    await page.locator('[data-testid=rb-cancel]').click();
    await page.locator('[data-testid=rb-run]:not([disabled])').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=rb-error]').innerText()).toMatch(/The run was cancelled/);
    const t0 = Date.now();
    expect(await run()).toBeNull();
    expect(await page.locator('[data-testid=rb-result]').getAttribute('data-judged')).toBe('120');
    // Some of the 3 × 120 rows came from the cancelled run, the rest were computed now.
    const cached = Number(await page.locator('[data-testid=rb-result]').getAttribute('data-cached'));
    expect(cached).toBeGreaterThan(0);
    expect(cached).toBeLessThan(360);
    console.log(`bench-retrieval e2e: rerun after cancel, ${cached} of 360 rows from the cache, ${Date.now() - t0} ms`);
  }, 600_000);

  test('a knowledge base without queries and qrels gets the message', async () => {
    await page.locator('[data-testid=rb-source-kb]').check();
    // A knowledge base fixes its chunking and BM25: those fields are disabled and the tab says why.
    expect(await page.locator('[data-testid=rb-kb-fixed]').innerText()).toMatch(/fixed by the knowledge base/);
    expect(await page.locator('[data-testid=rb-k1]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid=rb-chunking]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid=rb-candidate-k]').isDisabled()).toBe(false);
    const select = page.locator('[data-testid=rb-kb]');
    const value = await select.locator('option', { hasText: 'Plain texts' }).getAttribute('value');
    await select.selectOption(value!);
    await setModes(['sparse']);
    expect(await run()).toMatch(/Plain texts carries no queries and qrels: build it from a BEIR dataset/);
  }, 120_000);

  test('a BEIR dataset on the Hub (parquet): its queries and qrels come along', async () => {
    await page.locator('[data-testid=rb-source-hub]').check();
    await page.locator('[data-testid=rb-dataset]').fill('BeIR/scifact');
    await page.locator('[data-testid=rb-max]').fill('10');
    await setModes(['sparse']);
    expect(await run()).toBeNull();
    expect(await page.locator('[data-testid=rb-result]').getAttribute('data-judged')).toBe('10');
    expect(await page.locator('[data-testid=report-dataset]').innerText()).toMatch(/BeIR\/scifact/);
    // At 400 px the settings wrap and the report's tables scroll in their own boxes: the page does not scroll sideways.
    await page.setViewportSize({ width: 400, height: 800 });
    // (the charts redraw at the new width on the window's resize event)
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(400);
    expect(browser.errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  }, 300_000);

  test("seed B's protocol: the form fills its preset, the report records it, the config hash and NDCG@10 equal eval-beir --protocol seed-b", async () => {
    const modes: RetrievalMode[] = ['sparse', 'hybrid_calibrated'];
    const want = evalBeir(small, 'cli-seed-b.json', ['--protocol', 'seed-b', '--modes', modes.join(','), '--max-queries', '4', '--seed', '0']);
    want.catch(() => {});
    await pickFolder(small, 12);
    await page.locator('[data-testid=rb-protocol-seed-b]').check();
    const value = (id: string) => page.locator(`[data-testid=${id}]`).inputValue();
    expect([await value('rb-candidate-k'), await value('rb-pool'), await value('rb-chunking'), await value('rb-chunk-size'), await value('rb-overlap'),
      await value('rb-k1'), await value('rb-b'), await value('rb-analyzer'), await value('rb-calibration'), await value('rb-entropy-basis'), await value('rb-resamples')])
      .toEqual(['20', 'fixed', 'chunks', '800', '120', '1.5', '0.75', 'plain', 'cdf', 'calibrated', '1000']);
    expect(await page.locator('[data-testid=rb-protocol-info]').innerText()).toMatch(/candidate_k 20 per retriever with no pool growth/);
    // A bad value disables Run with the core's message; the edited field is marked; putting it back clears both.
    await page.locator('[data-testid=rb-candidate-k]').fill('0');
    expect(await page.locator('[data-testid=rb-settings-error]').innerText()).toMatch(/candidate_k must be an integer in \[1, 1000\], got "0"/);
    expect(await page.locator('[data-testid=rb-run]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid=rb-run-settings]').getAttribute('data-changed')).toBe('candidateK');
    await page.locator('[data-testid=rb-candidate-k]').fill('20');
    expect(await page.locator('[data-testid=rb-settings-error]').count()).toBe(0);
    expect(await page.locator('[data-testid=rb-run-settings]').getAttribute('data-changed')).toBe('');
    await page.locator('[data-testid=rb-max]').fill('4');
    await page.locator('[data-testid=rb-seed]').fill('0');
    await setModes(modes);
    expect(await run()).toBeNull();
    expect(await page.locator('[data-testid=rb-result]').getAttribute('data-judged')).toBe('4');
    await expect.poll(async () => (await savedReports())[0]?.config['protocol'], { timeout: 30_000 }).toBe('seed-b');
    const report = (await savedReports())[0]!;
    expect(report.config).toMatchObject({ protocol: 'seed-b', candidateK: 20, chunking: { chunkSize: 800, overlap: 120 }, growPool: false, resamples: 1000, k1: 1.5, b: 0.75, analyzer: 'plain', calibration: 'cdf', entropyBasis: 'calibrated' });
    const cli = await want;
    expect(cli.report.config).toMatchObject({ protocol: 'seed-b', candidateK: 20, chunking: { chunkSize: 800, overlap: 120 }, growPool: false, resamples: 1000 });
    expect(report.configHash).toBe(cli.report.configHash);
    // Compare's config diff of the two: every setting one side recorded, the other recorded too (no "—" against a value).
    const oneSided = configDiff([report, cli.report]).filter((d) => Object.values(d.values).includes('—') && Object.values(d.values).some((x) => x !== '—'));
    expect(oneSided.map((d) => d.path)).toEqual([]);
    for (const mode of modes) {
      const got = report.summary.metrics.find((m) => m.group === mode && m.id === 'ndcg@10');
      expect(Math.abs(got!.value! - cli.modes[mode]!['ndcg@10']!), mode).toBeLessThan(1e-9);
      expect(report.rows.filter((r) => r.group === mode).map((r) => r.key)).toEqual(cli.report.rows.filter((r) => r.group === mode).map((r) => r.key));
    }
    // the same per-query numbers, row by row
    const cliRow = new Map(cli.report.rows.map((r) => [r.key, r]));
    for (const r of report.rows) {
      for (const k of ['ndcg@10', 'mrr@10', 'r@100']) expect(Math.abs((r.scores[k] as number) - (cliRow.get(r.key)!.scores[k] as number)), `${r.key} ${k}`).toBeLessThan(1e-9);
    }
    await page.locator('[data-testid=rb-protocol-default]').check();
    expect(await value('rb-candidate-k')).toBe('');
  }, 400_000);

  test('issue 32: another knowledge base\'s trained embedder is neither used nor offered by default; one trained on the dataset is, and the report says what it was trained on', async () => {
    // "Holdout manuals": a corpus-trained model of another knowledge base, in this browser's store and selected in Settings.
    const id = 'corpus/holdout-manuals-lsi8';
    const trained = await trainCorpusEmbedder(topicCorpus(10, 4).map((d) => `${d.title}\n${d.text}`), { dim: 8, trainedOn: 'Holdout manuals' });
    const meta: TrainedModelMeta = {
      id, kbId: 'local:holdout-manuals', kbTitle: 'Holdout manuals', method: 'lsi', dim: trained.summary.dim, documents: trained.summary.documents,
      vocabulary: trained.summary.vocabulary, seconds: 0.1, created: new Date().toISOString(), notes: [], corpusHash: trained.summary.corpusHash,
      bytes: Object.values(trained.files).reduce((a, f) => a + f.byteLength, 0), files: await describeFiles(id, trained.files),
    };
    const files = Object.entries(trained.files).map(([path, bytes]) => [path, Array.from(bytes)] as const);
    await page.evaluate(([db, meta, files]) => new Promise<void>((done, fail) => {
      const r = indexedDB.open(db, 1);
      r.onupgradeneeded = () => { r.result.createObjectStore('meta', { keyPath: 'id' }); r.result.createObjectStore('files', { keyPath: 'key' }); };
      r.onerror = () => fail(r.error);
      r.onsuccess = () => {
        const tx = r.result.transaction(['meta', 'files'], 'readwrite');
        for (const [path, bytes] of files) tx.objectStore('files').put({ key: `${meta.id}\u0000${path}`, bytes: new Uint8Array(bytes) });
        tx.objectStore('meta').put({ id: meta.id, schemaVersion: 1, meta });
        tx.oncomplete = () => { r.result.close(); done(); };
        tx.onerror = () => fail(tx.error);
      };
    }), [TRAINED_DB, meta, files] as const);
    const p2 = await browser.context.newPage();
    const settings = { ...JSON.parse(fixtureSettings(modelHost)) as Record<string, unknown>, embedder: { id, dtype: 'q8', device: 'wasm' } };
    await p2.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), JSON.stringify(settings));
    await p2.goto(`${site}?tab=benchmark&bench=retrieval`);
    // The models load on start (embedder, then cross-encoder): the rerank modes open once both are loaded.
    await p2.locator('[data-testid=rb-mode-hybrid_fixed_rerank]:not([disabled])').waitFor({ timeout: 200_000 });
    await p2.locator('[data-testid=rb-source-files]').check();
    await p2.locator('[data-testid=rb-folder]').setInputFiles(small);
    await p2.locator('[data-testid=rb-folder-info][data-judged="12"]').waitFor({ timeout: 60_000 });
    // Offered only when picked: automatic is the default, the other corpus's model is listed with what it was trained on.
    const pick = p2.locator('[data-testid=rb-embedder-pick]');
    expect(await pick.inputValue()).toBe('auto');
    expect(await pick.locator('option').allInnerTexts()).toContain('corpus/holdout-manuals-lsi8, trained on Holdout manuals');
    await p2.locator('[data-testid=rb-mode-dense]').check();
    await p2.locator('[data-testid=rb-max]').fill('6');
    // Selected in Settings, yet not used (the tab does not load another corpus's model): the dense mode is skipped
    // with the reason, which names it; the report names no embedder.
    expect(await run(p2)).toBeNull();
    const skipped = await p2.locator('[data-testid=rb-skipped] li[data-mode=dense]').innerText();
    expect(skipped).toMatch(/corpus\/holdout-manuals-lsi8 was trained on Holdout manuals, not on this dataset, so it is not used: train a corpus embedder on this dataset/);
    expect(await p2.locator('[data-testid=rb-embedder-used]').innerText()).toBe('No embedder ran (no dense mode).');
    await expect.poll(async () => (await savedReports(p2))[0]?.config['maxQueries'], { timeout: 30_000 }).toBe(6);
    expect((await savedReports(p2))[0]!.environment.models).toEqual([]);
    // Trained on this dataset in the tab (no download), then the run uses it, and the report says what it ran with.
    await p2.locator('[data-testid=rb-train]').click();
    await p2.locator('[data-testid=rb-train-result]').waitFor({ timeout: 300_000 });
    expect(await p2.locator('[data-testid=rb-train-result]').innerText()).toMatch(/^Trained corpus\/bench-scifact-small-lsi256 on this dataset's \d+ documents/);
    expect(await run(p2)).toBeNull();
    // The previous run's results went when the run started; this one's dense mode ran with the dataset's own model.
    expect(await p2.locator('[data-testid=rb-skipped]').count()).toBe(0);
    expect(await p2.locator('[data-testid=rb-embedder-used]').getAttribute('data-trained-on')).toBe('scifact-small');
    expect(await p2.locator('[data-testid=rb-embedder-used]').innerText()).toBe('Embedder: corpus/bench-scifact-small-lsi256@q8, trained on this dataset (scifact-small).');
    await expect.poll(async () => (await savedReports(p2))[0]?.config['embedder'], { timeout: 30_000 }).toBe('corpus/bench-scifact-small-lsi256@q8');
    const report = (await savedReports(p2))[0]!;
    expect(report.environment.models).toEqual([expect.objectContaining({ task: 'embedder', id: 'corpus/bench-scifact-small-lsi256', trainedOn: 'scifact-small', thisDataset: true, corpusSha256: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    expect(report.config['embedderTrainedOn']).toMatchObject({ title: 'scifact-small', thisDataset: true });
    expect(report.summary.metrics.some((m) => m.group === 'dense')).toBe(true);
    expect(browser.errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await p2.close();
  }, 600_000);
});
