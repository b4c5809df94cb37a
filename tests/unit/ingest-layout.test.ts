/** A PDF page's text items → text (pdf-layout.ts), on made-up items: line and paragraph breaks, spaces, columns. */
import { describe, expect, it } from 'vitest';
import { findGutter, pageText, type PdfTextItem } from '../../src/lib/ingest/pdf-layout.ts';

/** An item at (x, y) of font size h, `width` defaulting to 5 units a character. */
const item = (str: string, x: number, y: number, opts: { h?: number; width?: number; eol?: boolean } = {}): PdfTextItem => ({
  str, transform: [opts.h ?? 10, 0, 0, opts.h ?? 10, x, y], width: opts.width ?? str.length * 5, height: opts.h ?? 10, hasEOL: opts.eol ?? false,
});

describe('pageText', () => {
  it('joins items in content order: hasEOL is a line break, a gap of more than 1.7 lines a paragraph break', () => {
    const items = [item('First line', 50, 700, { eol: true }), item('second line', 50, 688, { eol: true }), item('After a gap', 50, 650)];
    expect(pageText(items)).toBe('First line\nsecond line\n\nAfter a gap');
  });

  it('a jump back on the same baseline gets a space; white space is normalised', () => {
    expect(pageText([item('[Function]', 400, 700), item('int f()', 50, 700), item('  tail  ', 90, 700)])).toBe('[Function] int f() tail');
  });

  const rows = (n: number, leftX: number, rightX: number, text: (side: string, i: number) => string) =>
    Array.from({ length: n }, (_, i) => [item(text('L', i), leftX, 700 - 12 * i), item(text('R', i), rightX, 700 - 12 * i, { eol: true })]).flat();

  it('two columns written row by row are read column by column', () => {
    const items = rows(6, 50, 320, (s, i) => `${s}${i} ${'word '.repeat(8).trim()}`);
    expect(findGutter(items)).not.toBeNull();
    const lines = pageText(items).split('\n');
    expect(lines.map((l) => l.slice(0, 2))).toEqual(['L0', 'L1', 'L2', 'L3', 'L4', 'L5', 'R0', 'R1', 'R2', 'R3', 'R4', 'R5']);
  });

  it('a table of short cells written row by row keeps its rows (no column reading)', () => {
    const items = rows(6, 50, 320, (s, i) => (i % 2 ? `${s}${i}` : `${s}${i} long cell text here`));
    expect(findGutter(items)).toBeNull();
    expect(pageText(items).split('\n')[0]).toMatch(/^L0 long cell text here\s*R0/);
  });

  it('a single column is never split, even with a short line in the middle', () => {
    const items = Array.from({ length: 10 }, (_, i) => item(i === 4 ? 'short' : `${'prose '.repeat(16).trim()} ${i}`, 50, 700 - 12 * i, { eol: true }));
    expect(findGutter(items)).toBeNull();
    expect(pageText(items).split('\n')).toHaveLength(10);
  });

  it('columns already in column order are kept in content order', () => {
    const items = [...rows(5, 50, 320, (s, i) => `${s}${i} ${'word '.repeat(8).trim()}`)].sort((a, b) => a.transform[4]! - b.transform[4]!);
    const got = pageText(items.map((it) => ({ ...it, hasEOL: true })));
    expect(got.split('\n').map((l) => l.slice(0, 2))).toEqual(['L0', 'L1', 'L2', 'L3', 'L4', 'R0', 'R1', 'R2', 'R3', 'R4']);
  });
});
