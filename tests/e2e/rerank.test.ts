/**
 * Rerank without waiting, in the built site with the fixture models from a local Hub: a rerank mode shows the fused
 * results at once, marked pending, and reorders them when the cross-encoder finishes, into the order the fixture
 * cross-encoder's closed-form weights give (tests/helpers/fixture-math.ts). Every state the results list passes
 * through is recorded by a MutationObserver in the page, so the pending state is checked without any timing.
 */
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { prebuiltVectors } from '../helpers/models-page.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { logits } from '../helpers/fixture-math.ts';

const site = inject('siteUrl');
const CE = 'rag-lab/tiny-cross-encoder';
// The fused pool of this query (candidate_k 5) holds 5 chunks of 5 documents, so dedup hides none of it.
const QUERY = 'civil service reform';
const MAX_LENGTH = 128;
const CLS = 2;
const SEP = 3;

/** One state of the results list, as the page showed it. */
interface Snapshot {
  query: string | null;
  busy: string | null;
  badge: boolean;
  ids: string[];
  pendingCells: number;
  reranked: string | null;
  pairs: string | null;
}

/** Records every distinct state of the results list and the rerank telemetry into window.__snaps. */
function recordResults(): void {
  const w = window as unknown as { __snaps: Snapshot[] };
  w.__snaps = [];
  const take = (): Snapshot => {
    const results = document.querySelector('[data-testid=results]');
    return {
      query: results?.getAttribute('data-query') ?? null,
      busy: results?.getAttribute('aria-busy') ?? null,
      badge: !!document.querySelector('[data-testid=rerank-pending]'),
      ids: [...document.querySelectorAll('[data-testid=hit]')].map((h) => h.getAttribute('data-id') ?? ''),
      pendingCells: document.querySelectorAll('[data-testid=rerank-score-pending]').length,
      reranked: document.querySelector('[data-testid=time-to-reranked]')?.textContent ?? null,
      pairs: document.querySelector('[data-testid=rerank-pairs]')?.textContent ?? null,
    };
  };
  const push = () => {
    const s = take();
    const last = w.__snaps.at(-1);
    if (!last || JSON.stringify(last) !== JSON.stringify(s)) w.__snaps.push(s);
  };
  push();
  new MutationObserver(push).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
}

const snapshots = (page: Page) => page.evaluate(() => (window as unknown as { __snaps: Snapshot[] }).__snaps);

/** Waits until the page shows the final (reranked) results of `query` in `mode`. */
async function waitForReranked(page: Page, query: string, mode: string): Promise<void> {
  await page.waitForFunction(([q, m]) => {
    const r = document.querySelector('[data-testid=results]');
    return !!r && r.getAttribute('data-query') === q && r.getAttribute('aria-busy') === 'false'
      && document.querySelector('[data-testid=telemetry-mode]')?.textContent === m
      && /ms$/.test(document.querySelector('[data-testid=time-to-reranked]')?.textContent ?? '');
  }, [query, mode], { timeout: 120_000 });
}

async function shownHits(page: Page): Promise<Array<{ id: string; text: string; rerank: number }>> {
  return page.locator('[data-testid=hit]').evaluateAll((els) => els.map((el) => {
    const cell = [...el.querySelectorAll('.scores div')].find((d) => d.querySelector('dt')?.textContent === 'rerank');
    return { id: el.getAttribute('data-id') ?? '', text: el.querySelector('.chunk-text')?.textContent ?? '', rerank: Number(cell?.querySelector('dd')?.textContent) };
  }));
}

describe('rerank without waiting', () => {
  let browser: Browser;
  let page: Page;
  let tok: PreTrainedTokenizer;
  let cacheDir: string;

  /** The fixture cross-encoder's fp32 logit of (query, passage), by hand: [CLS] q [SEP] p [SEP], passage cut to fit. */
  const handLogit = (query: string, passage: string): number => {
    const q = tok.encode(query, { add_special_tokens: false });
    const p = tok.encode(passage, { add_special_tokens: false });
    expect(q.length * 2).toBeLessThan(MAX_LENGTH - 3); // a short query: 'longest_first' only cuts the passage
    const kept = p.slice(0, MAX_LENGTH - 3 - q.length);
    const ids = [CLS, ...q, SEP, ...kept, SEP];
    return logits({ ids, types: ids.map((_, i) => (i < q.length + 2 ? 0 : 1)) }, 1)[0]!;
  };

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-rerank-tok-'));
    configureModels({ remoteHost: inject('hubUrl'), cacheDir });
    tok = await AutoTokenizer.from_pretrained(CE);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    const settings = JSON.stringify({
      remoteHost: inject('hubUrl'),
      embedder: { id: 'rag-lab/tiny-embedder', dtype: 'q8', device: 'wasm' },
      crossEncoder: { id: CE, dtype: 'fp32', device: 'wasm' },
      autoLoadModels: true,
      // The run's prebuilt vectors of the embedded corpus: this file is about the rerank, not in-tab embedding.
      hubUrl: prebuiltVectors().hubUrl,
      sotuVectors: prebuiltVectors().repo,
    });
    await page.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), settings);
    // top_k 5 over a rerank pool of candidate_k 5: the first results are the whole pool, in fused order.
    await page.goto(`${site}?q=${encodeURIComponent(QUERY)}&k=5&ck=5`);
    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 170_000 });
    await page.waitForFunction(() => document.querySelector<HTMLOptionElement>('[data-testid=mode] option[value=hybrid_fixed_rerank]')?.disabled === false, null, { timeout: 60_000 });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  test('the fused results show at once, marked pending, then reorder into the cross-encoder order', async () => {
    // The fused order, from the same mode without rerank.
    await page.selectOption('[data-testid=mode]', 'hybrid_fixed');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => '')).toBe('hybrid_fixed');
    const fused = (await shownHits(page)).map((h) => h.id);
    expect(fused).toHaveLength(5);
    expect(await page.locator('[data-testid=time-to-reranked]').count()).toBe(0);

    await page.evaluate(recordResults);
    await page.selectOption('[data-testid=mode]', 'hybrid_fixed_rerank');
    await waitForReranked(page, QUERY, 'hybrid_fixed_rerank');
    const snaps = await snapshots(page);

    // Pending: the fused order, a badge, aria-busy, a waiting rerank cell on every hit, no rerank timing yet.
    const at = snaps.findIndex((s) => s.badge);
    expect(at, JSON.stringify(snaps)).toBeGreaterThanOrEqual(0);
    const pending = snaps[at]!;
    expect(pending.query).toBe(QUERY);
    expect(pending.ids).toEqual(fused);
    expect(pending.busy).toBe('true');
    expect(pending.pendingCells).toBe(5);
    expect(pending.reranked).toBe('pending…');
    expect(pending.pairs).toBe('pending…');
    // Then the marker goes and the order is the cross-encoder's.
    const last = snaps.at(-1)!;
    expect(snaps.slice(at + 1).some((s) => !s.badge)).toBe(true);
    expect(last).toMatchObject({ badge: false, busy: 'false', pendingCells: 0, pairs: '5 pairs: 5 scored, 0 from the cache' });

    const hits = await shownHits(page);
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set(fused));
    const hand = hits.map((h) => ({ id: h.id, logit: handLogit(QUERY, h.text) }));
    hand.sort((a, b) => (a.logit !== b.logit ? b.logit - a.logit : a.id < b.id ? -1 : 1));
    expect(last.ids).toEqual(hand.map((h) => h.id));
    for (const h of hits) expect(Math.abs(h.rerank - hand.find((x) => x.id === h.id)!.logit), h.id).toBeLessThan(2e-4);
    expect(last.ids).not.toEqual(fused); // the rerank really reordered (else this test could not see a stale order)

    // Telemetry: time to first results and to reranked results.
    const ms = async (id: string) => Number(/^([0-9.]+) ms$/.exec(await page.locator(`[data-testid=${id}]`).innerText())![1]);
    const first = await ms('time-to-first');
    const reranked = await ms('time-to-reranked');
    expect(first).toBeGreaterThan(0);
    expect(reranked).toBeGreaterThanOrEqual(first);
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/rerank.png' });
  });

  test('paging top_k and running the query again take every score from the cache', async () => {
    const before = (await shownHits(page)).map((h) => h.id);
    await page.evaluate(recordResults);
    await page.fill('label:has-text("top_k") input', '3');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=hit]').length === 3
      && document.querySelector('[data-testid=results]')?.getAttribute('aria-busy') === 'false', null, { timeout: 60_000 });
    await waitForReranked(page, QUERY, 'hybrid_fixed_rerank');
    expect(await page.locator('[data-testid=rerank-pairs]').innerText()).toBe('5 pairs: 0 scored, 5 from the cache');
    expect((await shownHits(page)).map((h) => h.id)).toEqual(before.slice(0, 3));
    // No stale state on the way: every reranked state seen is top 5 of before or top 3 of the same order.
    for (const s of await snapshots(page)) {
      if (!s.badge) expect([before, before.slice(0, 3)]).toContainEqual(s.ids);
    }

    // The same query again: it still shows the fused results first, and the rerank scores no pair.
    await page.evaluate(recordResults);
    await page.click('[data-testid=search-button]');
    await page.waitForFunction(() => (window as unknown as { __snaps: Snapshot[] }).__snaps.some((s) => s.badge), null, { timeout: 60_000 });
    await waitForReranked(page, QUERY, 'hybrid_fixed_rerank');
    expect(await page.locator('[data-testid=rerank-pairs]').innerText()).toBe('5 pairs: 0 scored, 5 from the cache');
    expect((await shownHits(page)).map((h) => h.id)).toEqual(before.slice(0, 3));
  });

  test('a newer query replaces an older one: the older one\'s results never show after the newer one\'s', async () => {
    await page.evaluate(recordResults);
    const older = 'tariff on imported goods';
    const newer = 'war with mexico';
    await page.fill('[data-testid=query]', older);
    await page.press('[data-testid=query]', 'Enter');
    await page.fill('[data-testid=query]', newer);
    await page.press('[data-testid=query]', 'Enter');
    await waitForReranked(page, newer, 'hybrid_fixed_rerank');
    const snaps = await snapshots(page);
    const firstNewer = snaps.findIndex((s) => s.query === newer);
    expect(firstNewer).toBeGreaterThanOrEqual(0);
    expect(snaps.slice(firstNewer).every((s) => s.query === newer)).toBe(true);
    expect(snaps.at(-1)).toMatchObject({ badge: false, busy: 'false' });
    expect(browser.errors).toEqual([]);
  });
});
