/** Documents from a folder of .txt / .md files (text-folder.ts): ids, titles, formats, order, skipped files. */
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/lib/data/beir.ts';
import { firstMarkdownHeading, textFolderDocuments, textFormatOf } from '../../src/lib/data/text-folder.ts';

describe('firstMarkdownHeading', () => {
  it('finds ATX headings of any level, trimming closing hashes', () => {
    expect(firstMarkdownHeading('intro line\n\n## Second level ##\n# Later')).toBe('Second level');
    expect(firstMarkdownHeading('   # Indented three  \n')).toBe('Indented three');
  });

  it('finds setext headings (=== and ---)', () => {
    expect(firstMarkdownHeading('Big Title\n=========\n\ntext')).toBe('Big Title');
    expect(firstMarkdownHeading('Small Title\r\n---\r\n')).toBe('Small Title');
  });

  it('ignores headings inside fenced code, hashtags without a space, and empty headings', () => {
    expect(firstMarkdownHeading('```\n# not a heading\n```\n#hashtag\n#\n# Real')).toBe('Real');
    expect(firstMarkdownHeading('~~~py\n# comment\n~~~')).toBeNull();
    expect(firstMarkdownHeading('plain text only')).toBeNull();
  });
});

describe('textFormatOf', () => {
  it('knows .txt, .md and .markdown in any case, nothing else', () => {
    expect(['a.txt', 'b.MD', 'c.markdown', 'd.json', 'e', 'f.txt.bak'].map(textFormatOf)).toEqual(['txt', 'md', 'md', null, null, null]);
  });
});

describe('textFolderDocuments', () => {
  it('one document per file: id = relative path, title = heading or file name, meta.format; in path order', () => {
    const got = textFolderDocuments([
      { path: 'notes\\b.md', text: 'Intro\n\n# The B note\nbody' },
      { path: './a.txt', text: '# not a title in plain text\nhello' },
      { path: 'notes/c.md', text: 'no heading here' },
      { path: 'image.png', text: '' },
      { path: 'blank.txt', text: ' \n\t' },
    ]);
    expect(got.docs).toEqual([
      { id: 'a.txt', title: 'a', text: '# not a title in plain text\nhello', meta: { format: 'txt' } },
      { id: 'notes/b.md', title: 'The B note', text: 'Intro\n\n# The B note\nbody', meta: { format: 'md' } },
      { id: 'notes/c.md', title: 'c', text: 'no heading here', meta: { format: 'md' } },
    ]);
    expect(got.empty).toEqual(['blank.txt']);
    expect(got.ignored).toEqual(['image.png']);
  });

  it('a folder with no usable file is a DataError naming the folder', () => {
    expect(() => textFolderDocuments([{ path: 'x.csv', text: 'a,b' }], '/data/notes')).toThrow(DataError);
    expect(() => textFolderDocuments([{ path: 'x.csv', text: 'a,b' }], '/data/notes')).toThrow(/\/data\/notes: no \.txt or \.md file/);
    expect(() => textFolderDocuments([{ path: 'e.md', text: '' }], '/d')).toThrow(/every \.txt \/ \.md file is empty/);
  });
});
