/** "Copy share link": inline when the summary fits, else the Hub form when synced, else why not; Spaces hand-off. */
import { describe, expect, it } from 'vitest';
import { readShareFragment, reportPath } from '../../src/lib/reports/share-link.ts';
import { chooseShareLink, shareNote, SPACE_PARENT_ORIGIN, tellSpaceParent } from '../../src/ui/reports/share.ts';
import { validateReport } from '../helpers/share-reports.ts';

const loc = { origin: 'https://me.github.io', pathname: '/rag-lab/' };
const sha = 'b'.repeat(40);
const r = validateReport({ perSubset: 20, id: 'chooseLink001' });
const synced = (id: string) => ({ repo: 'me/reports', commit: sha, path: reportPath(id) });

describe('chooseShareLink', () => {
  it('inline when the summary fits, with the Hub link beside it when synced', async () => {
    const c = await chooseShareLink(r, loc, synced);
    expect(c.kind).toBe('inline');
    if (c.kind !== 'inline') return;
    expect(c.url).toBe(`https://me.github.io/rag-lab/#${c.fragment}`);
    expect(c.hubUrl).toBe(`https://me.github.io/rag-lab/#ref=me/reports@${sha}/reports/report_chooseLink001.json`);
    expect(c.rows).toBe(20);
    expect(c.of).toBe(40);
    expect(shareNote(c)).toMatch(/^A summary of the report in the link: [\d,]+ characters \(\d+\.\d KB\), the summary figures, config and 20 of 40 rows\.$/);
    const back = await readShareFragment(new URL(c.url).hash);
    expect(back.kind === 'inline' && back.report.id).toBe(r.id);
  });

  it('over the budget: falls back to the Hub form when the report is synced', async () => {
    const c = await chooseShareLink(r, loc, synced, 300);
    expect(c.kind).toBe('hub');
    if (c.kind !== 'hub') return;
    expect(c.url).toBe(`https://me.github.io/rag-lab/#ref=me/reports@${sha}/reports/report_chooseLink001.json`);
    expect(await readShareFragment(new URL(c.url).hash)).toEqual({ kind: 'ref', ref: synced(r.id) });
    expect(shareNote(c)).toMatch(/Too large for a summary link \(\d+\.\d KB\): a link to the full report in me\/reports at commit bbbbbbb/);
  });

  it('over the budget, not synced: says what to do, no link', async () => {
    const off = await chooseShareLink(r, loc, undefined, 300);
    expect(off).toEqual({ kind: 'none', message: expect.stringMatching(/^The report is too large for a link \(\d+\.\d KB\): turn on Hub sync in the Reports tab to share a link to the full report\.$/) });
    const notYet = await chooseShareLink(r, loc, () => null, 300);
    expect(notYet).toEqual({ kind: 'none', message: expect.stringMatching(/is not on the Hub yet: wait for Hub sync/) });
  });
});

describe('HF Spaces', () => {
  const win = (hostname: string, framed: boolean) => {
    const sent: Array<[unknown, string]> = [];
    const parent = { postMessage: (m: unknown, o: string) => sent.push([m, o]) };
    const w = { location: { hostname }, parent: undefined as unknown };
    w.parent = framed ? parent : w;
    return { w: w as unknown as Window, sent };
  };
  it('inside a Space iframe the parent page is told the hash, at huggingface.co only', () => {
    const { w, sent } = win('me-rag-lab.hf.space', true);
    expect(tellSpaceParent('#r=v1.abc', w)).toBe(true);
    expect(sent).toEqual([[{ hash: '#r=v1.abc' }, SPACE_PARENT_ORIGIN]]);
  });
  it('elsewhere (top level, or framed on another host) nothing is posted', () => {
    for (const [host, framed] of [['me-rag-lab.hf.space', false], ['evil.example', true], ['hf.space.evil.example', true]] as const) {
      const { w, sent } = win(host, framed);
      expect(tellSpaceParent('#r=v1.abc', w)).toBe(false);
      expect(sent).toEqual([]);
    }
  });
});
