/** The arXiv Atom reader (fast-xml-parser): entries, ids and versions, totals, error feeds, answers that are not feeds. */
import { describe, expect, it } from 'vitest';
import { arxivIdOf, NotAFeedError, parseArxivFeed } from '../../src/lib/data/arxiv-atom.ts';
import { entryXml, errorFeedXml, feedXml, makePapers } from '../helpers/arxiv-server.ts';

describe('arXiv Atom feed', () => {
  it('ids: the version is split off; new- and old-style ids; anything else is not an arXiv id', () => {
    expect(arxivIdOf('http://arxiv.org/abs/2101.00001v2')).toEqual({ id: '2101.00001', version: 2 });
    expect(arxivIdOf('https://arxiv.org/abs/0704.0001')).toEqual({ id: '0704.0001', version: null });
    expect(arxivIdOf('http://arxiv.org/abs/hep-ex/0307015v1')).toEqual({ id: 'hep-ex/0307015', version: 1 });
    expect(arxivIdOf('math.GT/0309136v12')).toEqual({ id: 'math.GT/0309136', version: 12 });
    expect(arxivIdOf('http://arxiv.org/api/errors#bad')).toBeNull();
    expect(arxivIdOf('hello')).toBeNull();
  });

  it('entries: whitespace collapsed, entities decoded, authors, categories, https links; totals read', () => {
    const papers = makePapers(3);
    papers[1]!.title = 'Caf\u00e9 & <b>bold</b>\n\n  claims';
    const xml = feedXml(papers.map(entryXml), 42, 0, 3).replace('We study transformers', 'We study &#x3B1;-transformers');
    const feed = parseArxivFeed(xml);
    expect(feed.total).toBe(42);
    expect(feed.startIndex).toBe(0);
    expect(feed.error).toBeNull();
    expect(feed.entries).toHaveLength(3);
    const e = feed.entries[1]!;
    expect(e.id).toBe('2301.00002');
    expect(e.version).toBe(2);
    expect(e.title).toBe('Caf\u00e9 & <b>bold</b> claims');
    expect(e.summary).toBe('We study \u03b1-transformers in paper number 2. Keyword zq2x marks this abstract & nothing else.');
    expect(e.authors).toEqual(['Author A2', 'Author B2']);
    expect(e.primaryCategory).toBe('cs.CL');
    expect(e.categories).toEqual(['cs.CL']);
    expect(e.absUrl).toBe('https://arxiv.org/abs/2301.00002v2');
    expect(e.pdfUrl).toBe('https://arxiv.org/pdf/2301.00002v2');
    expect(e.published).toBe('2020-02-15T12:00:00Z');
  });

  it('an error feed gives arXiv\'s message and no entries', () => {
    const feed = parseArxivFeed(errorFeedXml('incorrect id format for 1234.12345'));
    expect(feed.error).toBe('incorrect id format for 1234.12345');
    expect(feed.entries).toEqual([]);
  });

  it('entries without an arXiv id, title or abstract are listed as bad, the others kept', () => {
    const [a, b, c] = makePapers(3).map(entryXml);
    const noTitle = b!.replace(/<title>[^<]*<\/title>/, '<title>  </title>');
    const badId = c!.replace(/<id>[^<]*<\/id>/, '<id>urn:x</id>');
    const feed = parseArxivFeed(feedXml([a!, noTitle, badId], 3, 0, 3));
    expect(feed.entries.map((e) => e.id)).toEqual(['2301.00001']);
    expect(feed.bad).toEqual([{ id: '2301.00002', reason: 'the entry has no title' }, { id: 'urn:x', reason: 'not an arXiv id: "urn:x"' }]);
  });

  it('a feed with no entries, and one with no opensearch total', () => {
    expect(parseArxivFeed(feedXml([], 0, 0, 0))).toMatchObject({ total: 0, entries: [], error: null });
    expect(parseArxivFeed('<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>').total).toBeNull();
  });

  it('HTML, JSON, an empty answer and XML without a feed are not feeds', () => {
    for (const text of ['<!DOCTYPE html><html><title>502</title></html>', '<html><body>oops</body></html>', '{"error":"rate limited"}', '', '<?xml version="1.0"?><rss><channel/></rss>',
      '<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaa">]><feed>&a;</feed>']) {
      expect(() => parseArxivFeed(text), text).toThrow(NotAFeedError);
    }
  });
});
