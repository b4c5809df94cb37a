/**
 * BUILD_SOURCES (src/lib/kb-build/build-sources.ts) is the one list of build sources: the tab reads exactly its
 * `tab` entries (one reader each), the CLI's data kinds and their names are its `cli` entries, build-index's line in
 * the top-level help names them; a fixture entry added here reaches the CLI's lists with no other edit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/lib/kb-build/build-sources.ts', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/lib/kb-build/build-sources.ts')>();
  const BUILD_SOURCES = { ...orig.BUILD_SOURCES, zotero: { name: 'Zotero library', tab: false, cli: true, cliHelp: 'a Zotero library' } };
  return { ...orig, BUILD_SOURCES, ...orig.derivedSourceLists(BUILD_SOURCES) };
});

const { BUILD_SOURCES, TAB_SOURCE_KINDS } = await import('../../src/lib/kb-build/build-sources.ts');
const { TAB_READERS } = await import('../../src/lib/kb-build/sources.ts');
const { DATA_KIND_NAMES, dataTrainingTexts } = await import('../../src/lib/kb-build/collect-data.ts');
const { loadBuildData } = await import('../../cli/build-data.ts');
const { usage } = await import('../../cli/run.ts');

const entries = Object.entries(BUILD_SOURCES) as Array<[string, { name: string; tab: boolean; cli: boolean; cliHelp: string | null }]>;

describe('the build sources', () => {
  it('the tab reads exactly the entries it is listed for, one reader each', () => {
    const tab = entries.filter(([, d]) => d.tab).map(([id]) => id);
    expect(tab).toEqual(['files', 'arxiv', 'web', 'hub-dataset', 'rebuild']);
    expect(TAB_SOURCE_KINDS).toEqual(tab);
    expect(Object.keys(TAB_READERS).sort()).toEqual([...tab].sort());
  });

  it("the CLI's data kinds and their names are the entries it reads, the fixture among them", () => {
    const cli = entries.filter(([, d]) => d.cli);
    expect(cli.map(([id]) => id)).toEqual(['beir', 'ragbench', 'files', 'arxiv', 'web', 'artifact', 'zotero']);
    expect(DATA_KIND_NAMES).toEqual(Object.fromEntries(cli.map(([id, d]) => [id, d.name])));
    expect(DATA_KIND_NAMES['zotero' as 'files']).toBe('Zotero library');
  });

  it("build-index's line in the top-level help names every source that has a help name, in the list's order", () => {
    const line = usage().split('\n').find((l) => l.trimStart().startsWith('build-index'))!;
    expect(line).toContain('(BEIR, RAGBench, a folder of PDF/TXT/MD/HTML files, arXiv, web pages, a Zotero library)');
  });

  it('a folder of text files read by the CLI is the same source as the tab\'s dropped files, named by the list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rag-lab-sources-'));
    try {
      writeFileSync(join(dir, 'a.md'), '# Alpha\nSome text about alpha.');
      const data = await loadBuildData(dir);
      expect(data.kind).toBe('files');
      expect(BUILD_SOURCES[data.kind].tab).toBe(true);
      expect(dataTrainingTexts(data).trainedOn).toBe(`${BUILD_SOURCES.files.name} ${data.id}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
