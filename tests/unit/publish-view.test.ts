/** The Publish part's pure helpers: the repo field checked, the pinned link to the app, the lines shown. */
import { describe, expect, test } from 'vitest';
import { kbFromLink, parseHubId } from '../../src/lib/data/kb-registry.ts';
import { kbLink, publishingLine, publishRepo, shortSha } from '../../src/ui/build/publish-view.ts';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const HUB = 'https://huggingface.co';

describe('publish view helpers', () => {
  test('publishRepo takes owner/name or the dataset page URL, and says what is wrong otherwise', () => {
    expect(publishRepo(' tester/my-kbs ', HUB)).toEqual({ ok: true, repo: 'tester/my-kbs' });
    expect(publishRepo('https://huggingface.co/datasets/tester/my-kbs/tree/main', HUB)).toEqual({ ok: true, repo: 'tester/my-kbs' });
    expect(publishRepo('datasets/tester/my-kbs', HUB)).toEqual({ ok: true, repo: 'tester/my-kbs' });
    expect(publishRepo('', HUB)).toEqual({ ok: false, message: 'Give the Hub dataset repo to publish to, as owner/name.' });
    expect(publishRepo('my-kbs', HUB)).toMatchObject({ ok: false, message: expect.stringMatching(/^"my-kbs" is not a Hub dataset repo: give it as owner\/name/) });
    expect(publishRepo('a/b/c', HUB).ok).toBe(false);
    expect(publishRepo('tester/..', HUB).ok).toBe(false);
    expect(publishRepo('tester/x', 'not a url')).toEqual({ ok: false, message: 'The Hub URL in Settings is not a URL.' });
  });

  test('kbLink keeps the id readable and the app reads it back to the same pinned knowledge base', () => {
    const id = `hub:tester/my-kbs/field-notes@${SHA}`;
    const link = kbLink(id, { origin: 'https://user-rag-lab.hf.space', pathname: '/' });
    expect(link).toBe(`https://user-rag-lab.hf.space/?kb=hub:tester/my-kbs/field-notes@${SHA}`);
    const back = new URL(link).searchParams.get('kb');
    expect(back).toBe(id);
    const ref = parseHubId(back!);
    expect(ref).toEqual({ ok: true, ref: { kind: 'hub', repo: 'tester/my-kbs', path: 'field-notes', revision: SHA } });
    expect(kbFromLink(back).entry.id).toBe(id);
    expect(kbFromLink(back).warnings).toEqual([]);
    // Characters a query must not hold raw are escaped (the id schema refuses them anyway).
    expect(kbLink('hub:a/b c&d', { origin: 'http://x', pathname: '/app/' })).toBe('http://x/app/?kb=hub:a/b%20c%26d');
  });

  test('the lines', () => {
    expect(publishingLine('tester/my-kbs', 'http://127.0.0.1:5000', 12)).toBe('Publishing to tester/my-kbs on 127.0.0.1:5000: 12 files in one commit…');
    expect(publishingLine('tester/my-kbs', HUB, null)).toBe('Publishing to tester/my-kbs on huggingface.co…');
    expect(shortSha(SHA)).toBe('0123456');
  });
});
