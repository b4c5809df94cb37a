import { describe, expect, it } from 'vitest';
import { sotuDocuments } from '../../src/lib/data/sotu.ts';

describe('sotuDocuments', () => {
  it('turns addresses into documents with year-president ids and metadata', () => {
    const docs = sotuDocuments({
      version: 1,
      addresses: [
        { year: 1790, name: 'George Washington', party: 'None', text: 'Fellow-Citizens...' },
        { year: 2001, name: 'George W. Bush', party: 'Republican', text: 'Thank you.' },
      ],
    });
    expect(docs).toEqual([
      { id: '1790-george-washington', title: '1790 State of the Union, George Washington', text: 'Fellow-Citizens...', meta: { year: 1790, president: 'George Washington', party: 'None' } },
      { id: '2001-george-w-bush', title: '2001 State of the Union, George W. Bush', text: 'Thank you.', meta: { year: 2001, president: 'George W. Bush', party: 'Republican' } },
    ]);
  });

  it('suffixes a second address by the same president in one year', () => {
    const docs = sotuDocuments({
      version: 1,
      addresses: [
        { year: 1961, name: 'John F. Kennedy', party: 'Democratic', text: 'a' },
        { year: 1961, name: 'John F. Kennedy', party: 'Democratic', text: 'b' },
        { year: 1961, name: 'John F. Kennedy', party: 'Democratic', text: 'c' },
      ],
    });
    expect(docs.map((d) => d.id)).toEqual(['1961-john-f-kennedy', '1961-john-f-kennedy-2', '1961-john-f-kennedy-3']);
  });

  it('rejects a malformed file', () => {
    expect(() => sotuDocuments(null)).toThrow(/malformed/);
    expect(() => sotuDocuments({ version: 2, addresses: [] })).toThrow(/malformed/);
    expect(() => sotuDocuments({ version: 1, addresses: [] })).toThrow(/malformed/);
    expect(() => sotuDocuments({ version: 1, addresses: [{ year: 1900.5, name: 'x', party: 'y', text: 'z' }] })).toThrow(/malformed/);
    expect(() => sotuDocuments({ version: 1, addresses: [{ year: 1900, name: 'x', text: 'z' }] })).toThrow(/malformed/);
  });
});
