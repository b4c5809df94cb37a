import { describe, expect, it } from 'vitest';
import {
  RAGBENCH_KBS, ragbenchEntry,
  DEFAULT_KB, hubEntry, kbConfigKey, localEntry, kbFromLink, kbIdOf, parseHubId, parseHubRef, parseStoredKbs, repoFromInput, storedKbs,
} from '../../src/lib/data/kb-registry.ts';
import { facetsOf } from '../../src/lib/data/kb-source.ts';
import { sotuDescriptor, sotuDocuments } from '../../src/lib/data/sotu.ts';

const hub = { kind: 'hub' as const, repo: 'acme/kb-index', revision: 'main', path: 'sotu' };

describe('knowledge-base ids', () => {
  it('names embedded and Hub knowledge bases, and reads a Hub id back', () => {
    expect(kbIdOf(sotuDescriptor.source)).toBe('sotu');
    expect(kbIdOf(hub)).toBe('hub:acme/kb-index/sotu@main');
    expect(kbIdOf({ ...hub, path: '' })).toBe('hub:acme/kb-index@main');
    expect(kbIdOf({ ...hub, path: 'a/b', revision: 'refs/pr/1' })).toBe('hub:acme/kb-index/a/b@refs/pr/1');
    expect(parseHubId('hub:acme/kb-index/a/b@refs/pr/1')).toEqual({ ok: true, ref: { ...hub, path: 'a/b', revision: 'refs/pr/1' } });
    expect(parseHubId('hub:acme/kb-index')).toEqual({ ok: true, ref: { ...hub, path: '' } });
  });

  it('pins the config key to the commit an artifact was read at, when the revision was a branch', () => {
    const sha = 'a'.repeat(40);
    expect(kbConfigKey(hub, sha)).toBe(`hub:acme/kb-index/sotu@main#${sha}`);
    expect(kbConfigKey({ ...hub, revision: sha }, sha)).toBe(`hub:acme/kb-index/sotu@${sha}`);
    expect(kbConfigKey(hub, null)).toBe('hub:acme/kb-index/sotu@main');
    expect(kbConfigKey(sotuDescriptor.source, sha)).toBe('sotu');
  });
});

describe('Hub references from a form, a link or storage', () => {
  it('refuses paths that climb out of the repo, bad repos and bad revisions, saying what is wrong', () => {
    expect(parseHubRef({ repo: 'acme/kb', path: '../secrets' })).toEqual({ ok: false, message: expect.stringMatching(/index path/) });
    expect(parseHubRef({ repo: 'acme/kb', path: '/abs' })).toEqual({ ok: false, message: expect.stringMatching(/index path/) });
    expect(parseHubRef({ repo: 'acme', path: '' })).toEqual({ ok: false, message: expect.stringMatching(/owner\/name/) });
    expect(parseHubRef({ repo: 'acme/kb/extra' })).toEqual({ ok: false, message: expect.stringMatching(/owner\/name/) });
    expect(parseHubRef({ repo: 'acme/kb', revision: 'main@x' })).toEqual({ ok: false, message: expect.stringMatching(/revision/) });
    expect(parseHubRef({ repo: 'acme/kb', revision: 'a/../b' })).toEqual({ ok: false, message: expect.stringMatching(/revision/) });
    expect(parseHubRef({ repo: ' acme/kb ', revision: '', path: 'idx/' })).toEqual({ ok: true, ref: { kind: 'hub', repo: 'acme/kb', revision: 'main', path: 'idx' } });
  });

  it('takes a repo as owner/name or as its Hub page URL', () => {
    expect(repoFromInput('https://huggingface.co/datasets/acme/kb/tree/main')).toBe('acme/kb');
    expect(repoFromInput(' datasets/acme/kb ')).toBe('acme/kb');
    expect(repoFromInput('acme/kb')).toBe('acme/kb');
  });

  it('opens the default for a missing kb=, and warns and falls back for a blank, unknown or malformed one', () => {
    expect(kbFromLink(null)).toEqual({ entry: DEFAULT_KB, warnings: [] });
    expect(kbFromLink('sotu')).toEqual({ entry: DEFAULT_KB, warnings: [] });
    expect(kbFromLink(' ')).toEqual({ entry: DEFAULT_KB, warnings: ['Ignored the empty kb= in the link; using State of the Union addresses.'] });
    const unknown = kbFromLink('bogus');
    expect(unknown.entry).toBe(DEFAULT_KB);
    expect(unknown.warnings).toEqual(['Unknown knowledge base "bogus" in the link (known: sotu, or hub:owner/name/path@revision); opening State of the Union addresses.']);
    const climbing = kbFromLink('hub:acme/kb/../../x@main');
    expect(climbing.entry).toBe(DEFAULT_KB);
    expect(climbing.warnings[0]).toMatch(/^The knowledge base "hub:acme\/kb\/..\/..\/x@main" in the link is not a valid Hub reference \(the index path/);
    expect(kbFromLink('folder:/etc').entry).toBe(DEFAULT_KB);
  });

  it('opens a well-formed Hub id from a link, reusing the added entry with its title', () => {
    const added = hubEntry(hub, 'My index', 'Mine');
    expect(kbFromLink('hub:acme/kb-index/sotu@main', [DEFAULT_KB, added])).toEqual({ entry: added, warnings: [] });
    const fresh = kbFromLink('hub:other/repo/idx@v1');
    expect(fresh.warnings).toEqual([]);
    expect(fresh.entry.ref).toEqual({ kind: 'hub', repo: 'other/repo', revision: 'v1', path: 'idx' });
    expect(fresh.entry.title).toBe('other/repo/idx');
  });

  it('opens a local:<name> link from the listed entry (with its title), or a placeholder KbState checks; refuses a bad name', () => {
    const mine = localEntry('manuals', 'My manuals');
    expect(mine).toEqual({ id: 'local:manuals', title: 'My manuals', description: 'Built in this browser (Build tab).', ref: { kind: 'local', name: 'manuals' } });
    expect(kbFromLink('local:manuals', [DEFAULT_KB, mine])).toEqual({ entry: mine, warnings: [] });
    expect(kbFromLink('local:other', [DEFAULT_KB, mine])).toEqual({ entry: localEntry('other'), warnings: [] });
    const bad = kbFromLink('local:../Etc');
    expect(bad.entry).toBe(DEFAULT_KB);
    expect(bad.warnings).toEqual(['The knowledge base "local:../Etc" in the link is not a valid local name (lower-case letters, digits, . _ -); opening State of the Union addresses.']);
    // Local entries are never written to the stored Hub list.
    expect(parseStoredKbs(storedKbs([mine])).entries).toEqual([]);
  });

  it('reads back the stored added entries and drops invalid records with a warning', () => {
    const a = hubEntry(hub, 'Index A');
    const round = parseStoredKbs(storedKbs([DEFAULT_KB, a]));
    expect(round).toEqual({ entries: [a], warning: null });
    const bad = parseStoredKbs(JSON.stringify([{ ref: { ...hub, path: '../x' } }, { ref: hub, title: 'T' }, 'junk']));
    expect(bad.entries.map((e) => e.title)).toEqual(['T']);
    expect(bad.warning).toBe('2 added knowledge base record(s) were invalid and were dropped.');
    expect(parseStoredKbs('{').warning).toMatch(/unreadable/);
    expect(parseStoredKbs('{}').warning).toMatch(/not a list/);
  });
});

describe('the SOTU descriptor', () => {
  it('facets year as a range and party as values, never president', () => {
    const docs = sotuDocuments({
      version: 1,
      addresses: [
        { year: 1790, name: 'George Washington', party: 'None', text: 'a' },
        { year: 1862, name: 'Abraham Lincoln', party: 'Republican', text: 'b' },
        { year: 1934, name: 'Franklin D. Roosevelt', party: 'Democratic', text: 'c' },
      ],
    });
    expect(facetsOf(sotuDescriptor.fields, docs)).toEqual([
      { field: 'year', label: 'Year', type: 'range', min: 1790, max: 1934 },
      { field: 'party', label: 'Party', type: 'values', values: ['Democratic', 'None', 'Republican'] },
    ]);
    expect(sotuDescriptor.placeholder).toMatch(/^Search the State of the Union addresses, e\.g\. /);
  });
});

describe('the vectors repo setting for the embedded corpus', () => {
  it('takes owner/name with an optional revision, refuses anything else', async () => {
    const { sotuVectorsRepo, validateSettings, DEFAULT_SETTINGS } = await import('../../src/ui/app/settings.ts');
    expect(sotuVectorsRepo('')).toBeNull();
    expect(sotuVectorsRepo('acme/sotu-vectors')).toEqual({ repo: 'acme/sotu-vectors', revision: 'main' });
    expect(sotuVectorsRepo('acme/sotu-vectors@v2')).toEqual({ repo: 'acme/sotu-vectors', revision: 'v2' });
    expect(validateSettings({ ...DEFAULT_SETTINGS, sotuVectors: 'acme/v@v2' }).ok).toBe(true);
    const bad = validateSettings({ ...DEFAULT_SETTINGS, sotuVectors: 'https://evil.example/x' });
    expect(bad).toEqual({ ok: false, message: 'sotuVectors: must be empty or owner/name, optionally @revision' });
  });
});

describe('RAGBench subsets in the picker', () => {
  it('one entry per subset, id ragbench:<subset>, which a link names and gets back', () => {
    expect(RAGBENCH_KBS.map((e) => e.id)).toEqual(['covidqa', 'delucionqa', 'emanual', 'expertqa', 'hagrid', 'hotpotqa', 'msmarco'].map((s) => `ragbench:${s}`));
    expect(ragbenchEntry('covidqa')).toMatchObject({ id: 'ragbench:covidqa', title: 'RAGBench covidqa', ref: { kind: 'ragbench', subset: 'covidqa' } });
    const known = [DEFAULT_KB, ...RAGBENCH_KBS];
    expect(kbFromLink('ragbench:hotpotqa', known)).toEqual({ entry: ragbenchEntry('hotpotqa'), warnings: [] });
    // Not a subset the picker offers: the default, with a warning.
    expect(kbFromLink('ragbench:nope', known).entry).toBe(DEFAULT_KB);
    expect(kbFromLink('ragbench:nope', known).warnings[0]).toMatch(/Unknown knowledge base "ragbench:nope"/);
  });
});
