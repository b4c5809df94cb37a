import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TAGLINE } from '../../src/ui/app/tagline.ts';

describe('the tagline says what leaves the tab and where (issue 32)', () => {
  it('names each destination: the Hub and model host, the LLM API, the proxy', () => {
    expect(TAGLINE).not.toMatch(/nothing leaves/i);
    expect(TAGLINE).toMatch(/model host and Hub set in Settings/);
    expect(TAGLINE).toMatch(/the LLM API you pick in Ask \(your question and the passages retrieved for it\)/);
    expect(TAGLINE).toMatch(/the proxy set in Settings \(arXiv searches and web pages/);
  });

  it('is the one the header shows (App.svelte renders TAGLINE, and no page claims nothing leaves)', () => {
    const root = resolve(import.meta.dirname, '../..');
    const app = readFileSync(resolve(root, 'src/ui/App.svelte'), 'utf8');
    expect(app).toMatch(/<p class="tagline">\{TAGLINE\}<\/p>/);
    for (const f of ['src/ui/App.svelte', 'src/ui/components/BuildTab.svelte', 'index.html', 'README.md']) {
      expect(readFileSync(resolve(root, f), 'utf8'), f).not.toMatch(/Nothing leaves (this|the) tab/i);
    }
  });
});
