/**
 * Build → export / publish → open by link, in Chromium against the loopback Hub (strict tokens, as huggingface.co): a
 * small knowledge base built in the Build tab from dropped files, its Export .zip read back, Publish without a token says so, with the token set in
 * Settings it commits to the repo (one commit on parentCommit, index_config.json listing it) and shows the commit and
 * the link pinned at it; the link opened in a FRESH browser (no local knowledge base, no token: a public repo) opens
 * the knowledge base from the Hub and a search finds a known sentence. The token is never in a URL or on the page.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { readArtifactZip } from '../../src/lib/artifact/zip.ts';
import { downloadBytes, launchBrowser, type Browser } from '../helpers/browser.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const site = inject('siteUrl');
const TOKEN = 'hf_e2epublishTOKEN9876';
const REPO = 'tester/field-kbs';
const SENTENCE = 'The grey heron nests on the northern island every April.';
const enc = (s: string) => new TextEncoder().encode(s);

let hub: HubRepoServer;
let builder: Browser;
let visitor: Browser | null = null;

beforeAll(async () => {
  hub = await serveHubRepos({ token: TOKEN, strictTokens: true });
  hub.addRepo(REPO, new Map([['README.md', enc('# Field knowledge bases\n')]]));
  builder = await launchBrowser();
});
afterAll(async () => { await builder?.close(); await visitor?.close(); await hub?.close(); });

/** A page whose Settings point at the loopback Hub (a host comes from Settings, never from a link). */
async function openApp(b: Browser, url: string): Promise<Page> {
  const page = await b.context.newPage();
  const settings = JSON.stringify({ hubUrl: `${hub.url}/`, autoLoadModels: false });
  await page.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), settings);
  await page.goto(url);
  return page;
}

const ready = (p: Page) => p.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });

describe('build, publish, open by link', () => {
  test('a knowledge base built in the tab is published with the Settings token and opens by link in a fresh browser', async () => {
    const page = await openApp(builder, site);
    await ready(page);
    await page.locator('[data-testid=tab-build]').click();
    await page.locator('[data-testid=build-title]').fill('Field notes');
    await page.locator('[data-testid=build-file-input]').setInputFiles([
      { name: 'heron.txt', mimeType: 'text/plain', buffer: Buffer.from(`${SENTENCE}\n\nThe colony has grown since the reeds came back.\n`) },
      { name: 'tides.md', mimeType: 'text/markdown', buffer: Buffer.from('# Tides\n\nSpring tides flood the salt marsh twice a month.\n') },
      { name: 'moths.html', mimeType: 'text/html', buffer: Buffer.from('<html><head><title>Moths</title></head><body><p>Night traps caught forty moth species in July.</p></body></html>') },
    ]);
    await page.locator('[data-testid=build-start]').click();
    const entry = page.locator('[data-testid=publish-kb][data-name=field-notes]');
    await entry.waitFor({ state: 'attached', timeout: 120_000 });
    await entry.locator('summary').click();

    // Export .zip: the download is the artifact zip; it opens (readArtifactZip) to the same documents, and BM25 finds
    // the sentence in it: what `rag-lab search --kb kb.zip` and `build-index --data kb.zip` read.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-testid=local-kb][data-name=field-notes] [data-testid=local-kb-export]').click(),
    ]);
    expect(download.suggestedFilename()).toBe('field-notes.zip');
    const zip = await downloadBytes(download);
    const source = readArtifactZip(zip, 'field-notes.zip');
    const [index] = await listIndexes(source);
    expect(index).toMatchObject({ id: 'field-notes', path: 'field-notes', title: 'Field notes', counts: { documents: 3 } });
    const opened = await openArtifact(source, index!.path);
    const top = opened.kb.bm25.search('heron nests island', 1, opened.kb.itemId)[0]!;
    expect(opened.kb.itemText(top.index)).toContain(SENTENCE);

    // No token yet: it says so, and Publish sends nothing.
    await expect.poll(() => entry.locator('[data-testid=publish-no-token]').count()).toBe(1);
    await entry.locator('[data-testid=publish-repo]').fill(REPO);
    await entry.locator('[data-testid=publish-button]').click();
    expect(await entry.locator('[data-testid=publish-error]').innerText()).toMatch(/^Publishing needs your Hugging Face token with write access .*add it in Settings/);
    expect(hub.requests.filter((r) => r.path.includes('/commit/') || r.path.includes('/preupload/'))).toEqual([]);

    // The token set in Settings; back in the Build tab, Publish commits.
    await page.locator('[data-testid=tab-settings]').click();
    await page.locator('[data-testid=hub-token]').fill(TOKEN);
    await page.locator('[data-testid=hub-token-save]').click();
    await page.locator('[data-testid=tab-build]').click();
    const row = page.locator('[data-testid=publish-kb][data-name=field-notes]');
    if ((await row.getAttribute('open')) === null) await row.locator('summary').click();
    await expect.poll(() => row.locator('[data-testid=publish-no-token]').count()).toBe(0);
    const parent = hub.head(REPO);
    if ((await row.locator('[data-testid=publish-repo]').inputValue()) !== REPO) await row.locator('[data-testid=publish-repo]').fill(REPO);
    await row.locator('[data-testid=publish-button]').click();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 60_000 }).toMatch(/^(done|error)$/);
    // (allInnerTexts: innerText() on a missing element would wait its 30 s timeout to say nothing.)
    expect(await row.locator('[data-testid=publish-error]').allInnerTexts()).toEqual([]);
    const commit = hub.head(REPO);
    expect(commit).not.toBe(parent);
    expect(await row.locator('[data-testid=publish-commit]').getAttribute('title')).toBe(commit);
    const link = await row.locator('[data-testid=publish-link]').inputValue();
    expect(link).toBe(`${new URL(site).origin}${new URL(site).pathname}?kb=hub:${REPO}/field-notes@${commit}`);
    expect(await row.locator('[data-testid=publish-note]').innerText()).toMatch(/public/);
    const commits = hub.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/commit/main'));
    expect(commits.map((r) => [r.status, r.parentCommit])).toEqual([[200, parent]]);
    const config = JSON.parse(new TextDecoder().decode(hub.fileAt(REPO, commit, 'index_config.json')!)) as { indexes: Array<{ id: string; path: string; title: string }> };
    expect(config.indexes.map((e) => [e.id, e.path, e.title])).toEqual([['field-notes', 'field-notes', 'Field notes']]);
    expect(hub.fileAt(REPO, commit, 'field-notes/meta.json')).not.toBeNull();
    expect(hub.fileAt(REPO, commit, 'README.md')).not.toBeNull();
    // Copy puts the link on the clipboard (or says to copy it from the box).
    await builder.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(site).origin });
    await row.locator('[data-testid=publish-copy]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText().catch(() => ''))).toBe(link);
    // The token: only in Authorization headers, never in a path or query, never on the page.
    for (const r of hub.requests) expect(`${r.path}${r.query}`).not.toContain(TOKEN);
    expect(await page.locator('body').innerText()).not.toContain(TOKEN);

    // A fresh browser: another profile, no local knowledge base, no token. The link opens the Hub knowledge base.
    visitor = await launchBrowser();
    const before = hub.requests.length;
    const fresh = await openApp(visitor, link);
    await ready(fresh);
    // The picker names a linked Hub knowledge base by where it lives; the descriptor's facts are the published ones.
    expect(await fresh.locator('[data-testid=kb-select] option:checked').innerText()).toMatch(/^(Field notes|tester\/field-kbs\/field-notes)$/);
    await expect.poll(() => fresh.locator('[data-testid=kb-description]').innerText()).toMatch(new RegExp(`3 documents · \\d+ chunks · commit ${commit.slice(0, 7)}$`));
    expect(new URL(fresh.url()).searchParams.get('kb')).toBe(`hub:${REPO}/field-notes@${commit}`);
    await fresh.locator('[data-testid=query]').fill('heron nests island');
    await fresh.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, 'heron nests island');
    await expect.poll(() => fresh.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    expect(await fresh.locator('[data-testid=hit]').first().innerText()).toContain(SENTENCE);
    const theirs = hub.requests.slice(before).filter((r) => r.method !== 'OPTIONS');
    expect(theirs.some((r) => r.path === `/datasets/${REPO}/resolve/${commit}/field-notes/chunks.parquet`)).toBe(true);
    expect(theirs.every((r) => !r.auth)).toBe(true);
  }, 400_000);
});
