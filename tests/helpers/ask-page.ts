/** The Ask tab as a user sets it up: their own endpoint typed in, then their key (so the key is entered for it). */
import type { Page } from 'playwright-core';

/**
 * Types `baseUrl` into the Ask tab's base URL field and then `key` (each committed with a blur, as the fields save on
 * change). A key entered this way is bound to that endpoint, so asking sends it without a question; a key typed
 * while a link's base URL is showing is bound to the provider's default instead (tests/e2e/secrets.test.ts).
 */
export async function enterEndpointAndKey(page: Page, baseUrl: string, key: string): Promise<void> {
  // Cleared first: a field whose value ends up unchanged fires no change event (the link may hold the same URL).
  for (const value of ['', baseUrl]) {
    await page.locator('[data-testid=base-url]').fill(value);
    await page.locator('[data-testid=base-url]').blur();
  }
  await page.locator('[data-testid=api-key]').fill(key);
  await page.locator('[data-testid=api-key]').blur();
}
