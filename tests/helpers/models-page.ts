/** A page of the built site that loads the fixture models from a local Hub (shared by the e2e files that need models). */
import type { Page } from 'playwright-core';
import { inject } from 'vitest';
import type { Browser } from './browser.ts';

/** A Hub dataset repo holding the embedded corpus's vectors (Settings' "Dense vectors for the embedded corpus"). */
export interface CorpusVectors {
  hubUrl: string;
  repo: string;
}

/**
 * The run's vectors of the embedded corpus for the fixture embedder (tests/helpers/sotu-vectors-repo.ts, made once by
 * the global setup): for files that need dense search on SOTU but do not test embedding in the tab.
 */
export const prebuiltVectors = (): CorpusVectors => ({ hubUrl: inject('vectorsHubUrl'), repo: inject('vectorsRepo') });

/**
 * Stored settings: fixture embedder and cross-encoder (q8, WASM) from `remoteHost`, loaded on start; with `vectors`,
 * enabling dense search on the embedded corpus downloads them instead of embedding every chunk in the tab.
 */
export function fixtureSettings(remoteHost: string, vectors?: CorpusVectors): string {
  return JSON.stringify({
    remoteHost,
    embedder: { id: 'rag-lab/tiny-embedder', dtype: 'q8', device: 'wasm' },
    crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' },
    autoLoadModels: true,
    ...(vectors ? { hubUrl: vectors.hubUrl, sotuVectors: vectors.repo } : {}),
  });
}

/** A new page whose every load starts with the fixture settings. */
export async function openWithFixtureModels(browser: Browser, remoteHost: string, vectors?: CorpusVectors): Promise<Page> {
  const page = await browser.context.newPage();
  await page.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), fixtureSettings(remoteHost, vectors));
  return page;
}

/** Polls until the dense index is ready (or a model error shows); returns the dense stages seen. */
export async function waitForDense(page: Page): Promise<{ stages: string[]; files: number; source: string | null }> {
  const stages = new Set<string>();
  let files = 0;
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    const stage = await page.locator('[data-testid=dense-stage]').textContent({ timeout: 50 }).catch(() => null);
    if (stage) stages.add(stage);
    files = Math.max(files, await page.locator('[data-testid=file-progress]').count());
    if (await page.locator('[data-testid=dense-info]').count()) break;
    if (await page.locator('[data-testid=model-error]').count()) throw new Error(await page.locator('[data-testid=model-error]').first().innerText());
    await page.waitForTimeout(40);
  }
  return { stages: [...stages], files, source: await page.locator('[data-testid=dense-info]').getAttribute('data-source') };
}
