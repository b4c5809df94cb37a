/**
 * The picker opens a BM25 index artifact from a loopback Hub: its indexes are listed from index_config.json, the
 * files download with per-file progress, the facets and hit fields come from the artifact's descriptor, the URL
 * carries kb=, and a second open reads every file from the cache. A switch that fails (a missing file) names the
 * file and keeps the open knowledge base usable.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { addToIndexConfig, indexConfigBytes, writeArtifact } from '../../src/lib/artifact/write.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { launchBrowser, useSettings, type Browser } from '../helpers/browser.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;
let hub: HubRepoServer;

const GENRES = ['poem', 'essay', 'letter'];
const docs: SourceDocument[] = Array.from({ length: 30 }, (_, i) => ({
  id: `d${i}`, title: `Piece ${i}`, text: `Piece ${i} is about ${i % 2 ? 'rivers and mountains' : 'harbors and ships'} in the year ${1900 + i}. `.repeat(3),
  meta: { year: 1900 + i, genre: GENRES[i % 3]!, author: `Author ${i}` },
}));

const artifact = (id: string, title: string, from: SourceDocument[]) => writeArtifact({
  id, title, description: 'Short pieces', kb: KnowledgeBase.build(from), created: '2026-01-01T00:00:00.000Z',
  fields: [{ name: 'year', label: 'Year', type: 'number' }, { name: 'genre', label: 'Genre', type: 'string' }, { name: 'author', label: 'Author', type: 'string', facet: false }],
  examples: [{ query: 'rivers' }], placeholder: 'Search the pieces',
});

/** `pieces`, and `broken` (other documents, so no file of it is in the cache by content) without its chunks.parquet. */
async function files(): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const a = await artifact('pieces', 'Pieces', docs);
  const b = await artifact('broken', 'Broken', docs.slice(0, 20));
  for (const x of [a, b]) for (const [p, bytes] of x.files) out.set(`${x.entry.path}/${p}`, bytes);
  out.delete('broken/chunks.parquet');
  out.set('index_config.json', indexConfigBytes(addToIndexConfig(addToIndexConfig(null, a.entry), b.entry)));
  return out;
}

beforeAll(async () => {
  hub = await serveHubRepos();
  hub.addRepo('acme/pieces', await files());
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await useSettings(page, { hubUrl: hub.url });
});
afterAll(async () => { await browser?.close(); await hub?.close(); });

const ready = (p: Page) => p.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });

async function searchFor(p: Page, q: string) {
  await p.locator('[data-testid=query]').fill(q);
  await p.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, q);
}

describe('a Hub index artifact in the picker', () => {
  test('lists the repo\'s indexes, opens one with file progress, facets and fields from its descriptor', async () => {
    await page.goto(site);
    await ready(page);
    await page.locator('[data-testid=kb-picker] summary').click();
    await page.locator('[data-testid=kb-hub-repo]').fill('acme/pieces');
    await page.locator('[data-testid=kb-hub-open]').click();
    await expect.poll(() => page.locator('[data-testid=kb-index-option]').count()).toBe(2);
    const stages = new Set<string>();
    await page.locator('[data-testid=kb-index-option][data-path=pieces]').click();
    for (let i = 0; i < 400; i++) {
      const s = await page.locator('[data-testid=kb-pending-stage]').textContent({ timeout: 50 }).catch(() => null);
      if (s) stages.add(s);
      if ((await page.locator('[data-testid=kb-select] option:checked').innerText()) === 'Pieces') break;
      await page.waitForTimeout(25);
    }
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('Pieces');
    expect(await page.locator('[data-testid=kb-description]').innerText()).toMatch(/^Short pieces 30 documents · 30 chunks · commit [0-9a-f]{7}$/);
    // Per-file progress names the files (the fast loopback may skip some reports, never all of them).
    expect([...stages].some((s) => /^Downloading (docs|chunks)\.parquet$/.test(s) || s === 'starting…')).toBe(true);
    expect(await page.locator('[data-testid=query]').getAttribute('placeholder')).toBe('Search the pieces');
    expect(await page.locator('[data-testid=facet-year-min]').getAttribute('placeholder')).toBe('1900');
    expect(await page.locator('[data-testid=facet-genre-value]').count()).toBe(3);
    expect(await page.locator('[data-testid=facet-author]').count()).toBe(0);
    expect(await page.locator('[data-testid=facet-party]').count()).toBe(0);
    await expect.poll(() => new URL(page.url()).searchParams.get('kb')).toBe('hub:acme/pieces/pieces@main');

    await searchFor(page, 'rivers');
    const meta = await page.locator('[data-testid=hit-meta]').first().innerText();
    expect(meta).toMatch(/^Year: 19\d\d · Genre: (poem|essay|letter) · Author: Author \d+ · chunk 0$/);
    await page.locator('[data-testid=facet-genre-value][data-value=poem]').check();
    await expect.poll(async () => {
      const metas = await page.locator('[data-testid=hit-meta]').allInnerTexts();
      return metas.length > 0 && metas.every((m) => m.includes('Genre: poem'));
    }).toBe(true);
  });

  test('filters a switch drops are told once, naming them; the notice goes on switching back; a link\'s can be dismissed', async () => {
    await page.goto(`${site}?q=ships&f.party=Whig`);
    await ready(page);
    const notice = page.locator('[data-testid=notice][data-feature=search]');
    const picked = () => page.locator('[data-testid=kb-select] option:checked').innerText();
    expect(await notice.count()).toBe(0);
    await page.locator('[data-testid=kb-select]').selectOption({ label: 'Pieces' });
    await expect.poll(picked, { timeout: 60_000 }).toBe('Pieces');
    await expect.poll(() => notice.locator('span').allInnerTexts()).toEqual(['Cleared the filter on "party": Pieces has no such filter.']);
    await page.locator('[data-testid=kb-select]').selectOption({ label: 'State of the Union addresses' });
    await expect.poll(picked, { timeout: 60_000 }).toBe('State of the Union addresses');
    await expect.poll(() => notice.locator('span').allInnerTexts(), { timeout: 60_000 }).toEqual([]);
    // A link's filter the knowledge base has not: ignored, with a notice that "Dismiss" removes.
    await page.goto(`${site}?kb=${encodeURIComponent('hub:acme/pieces/pieces@main')}&f.party=Whig`);
    await ready(page);
    await expect.poll(() => notice.locator('span').allInnerTexts()).toEqual(['Ignored the filter on "party": Pieces has no such filter.']);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    expect(await notice.count()).toBe(0);
  });

  test('a link opens it again from the cache, with no file downloaded', async () => {
    const before = hub.requests.length;
    await page.goto(`${site}?kb=${encodeURIComponent('hub:acme/pieces/pieces@main')}&q=ships`);
    await ready(page);
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('Pieces');
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    const fetched = hub.requests.slice(before).filter((r) => r.path.includes('/resolve/') && /\.(parquet|npy|json)$/.test(r.path) && !r.path.endsWith('meta.json'));
    expect(fetched.map((r) => r.path)).toEqual([]);
  });

  test('a switch that fails names the missing file and keeps the open knowledge base', async () => {
    await page.goto(site);
    await ready(page);
    await page.locator('[data-testid=kb-picker] summary').click();
    await page.locator('[data-testid=kb-hub-repo]').fill('acme/pieces');
    await page.locator('[data-testid=kb-hub-open]').click();
    await page.locator('[data-testid=kb-index-option][data-path=broken]').click();
    await expect.poll(() => page.locator('[data-testid=kb-switch-error]').innerText().catch(() => ''), { timeout: 60_000 })
      .toMatch(/^Broken could not be opened: .*broken\/chunks\.parquet.* State of the Union addresses stays open\.$/);
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('State of the Union addresses');
    await searchFor(page, 'purchase of Louisiana');
    expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
  });
});
