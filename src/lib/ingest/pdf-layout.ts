/**
 * A PDF page's text items (pdf.js `getTextContent`) → the page's text. Pure, so it is tested on made-up items.
 *
 * pdf.js gives items in content-stream order, which is the reading order for nearly every producer; the text is
 * then the items joined, a line break where pdf.js saw the line end (`hasEOL`) and a blank line (a paragraph
 * break, which the chunker splits at first) where the next line starts more than 1.7 line heights lower.
 * Some producers write a two-column page row by row (left line 1, right line 1, left line 2, …). When the page
 * has a vertical gutter that the lines on both sides fill up to, side by side, and the content order jumps
 * between the sides more than a few times, the page is read as columns instead: full-width lines (a title, a
 * footer) in their place, between them the left column's lines top to bottom, then the right column's.
 */
import { normaliseText } from './text-normalise.ts';

/** The fields of a pdf.js TextItem the layout uses. */
export interface PdfTextItem {
  str: string;
  /** [a, b, c, d, x, y]: x = transform[4], baseline y = transform[5] (PDF units, y grows upwards). */
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

interface Box { item: PdfTextItem; x0: number; x1: number; y: number; h: number; }

/** A new line that starts more than this many line heights below the previous one starts a paragraph. */
const PARAGRAPH_GAP = 1.7;

const heightOf = (it: PdfTextItem) => it.height || Math.hypot(it.transform[2] ?? 0, it.transform[3] ?? 0) || 1;

function boxes(items: readonly PdfTextItem[]): Box[] {
  const out: Box[] = [];
  for (const item of items) {
    if (!item.str.trim()) continue;
    const x0 = item.transform[4] ?? 0;
    out.push({ item, x0, x1: x0 + Math.max(0, item.width), y: item.transform[5] ?? 0, h: heightOf(item) });
  }
  return out;
}

/** Items joined in content order (the module comment's first case). */
function contentOrderText(items: readonly PdfTextItem[]): string {
  let out = '';
  let lineY: number | null = null, lineH = 0, atLineStart = true;
  let prev: { x1: number; y: number } | null = null;
  for (const it of items) {
    if (it.str.trim()) {
      const x0 = it.transform[4] ?? 0, y = it.transform[5] ?? 0, h = heightOf(it);
      if (atLineStart && lineY !== null && lineY - y > PARAGRAPH_GAP * Math.max(lineH, h)) out += '\n';
      // A jump back on the same baseline with no space between ("[Function]" drawn right, then "int f(…)" left).
      if (!atLineStart && prev && Math.abs(prev.y - y) < 0.5 * h && x0 < prev.x1 - h && !/\s$/.test(out) && !/^\s/.test(it.str)) out += ' ';
      if (atLineStart || lineY === null) { lineY = y; lineH = h; }
      atLineStart = false;
      prev = { x1: x0 + Math.max(0, it.width), y };
    }
    out += it.str;
    if (it.hasEOL) { out += '\n'; atLineStart = true; }
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
};

/** Boxes grouped into lines (same baseline within half a line height), each line's boxes left to right. */
function linesOf(bs: readonly Box[]): Box[][] {
  const sorted = [...bs].sort((a, b) => b.y - a.y || a.x0 - b.x0);
  const lines: Box[][] = [];
  for (const b of sorted) {
    const line = lines.at(-1);
    if (line && Math.abs(line[0]!.y - b.y) <= 0.5 * Math.max(line[0]!.h, b.h)) line.push(b);
    else lines.push([b]);
  }
  for (const l of lines) l.sort((a, b) => a.x0 - b.x0);
  return lines;
}

/** Lines as text: a space between boxes with a gap, a blank line after a large vertical gap. */
function linesText(lines: readonly Box[][]): string {
  let out = '';
  let prev: Box[] | null = null;
  for (const line of lines) {
    if (prev) out += prev[0]!.y - line[0]!.y > PARAGRAPH_GAP * Math.max(prev[0]!.h, line[0]!.h) ? '\n\n' : '\n';
    let last: Box | null = null;
    for (const b of line) {
      if (last && b.x0 - last.x1 > 0.1 * b.h && !/\s$/.test(last.item.str) && !/^\s/.test(b.item.str)) out += ' ';
      out += b.item.str;
      last = b;
    }
    prev = line;
  }
  return out;
}

/** The gutter [start, end) of a two-column page written row by row, or null (see the module comment). */
export function findGutter(items: readonly PdfTextItem[]): { start: number; end: number } | null {
  const bs = boxes(items);
  if (bs.length < 6) return null;
  let minX = Infinity, maxX = -Infinity;
  for (const b of bs) { minX = Math.min(minX, b.x0); maxX = Math.max(maxX, b.x1); }
  const width = Math.ceil(maxX - minX);
  if (!(width > 0) || width > 100_000) return null;
  // Coverage of each 1-unit column of the text's extent (difference array: linear in items + width).
  const diff = new Int32Array(width + 2);
  for (const b of bs) { diff[Math.max(0, Math.floor(b.x0 - minX))]! += 1; diff[Math.min(width + 1, Math.ceil(b.x1 - minX))]! -= 1; }
  const cover = new Int32Array(width + 1);
  for (let i = 0, c = 0; i <= width; i++) { c += diff[i]!; cover[i] = c; }
  // Few boxes may cross the gutter (full-width lines): at most a tenth of them.
  const allowed = Math.max(1, Math.floor(bs.length / 10));
  let best: { start: number; end: number } | null = null;
  for (let i = Math.floor(width * 0.25); i <= Math.ceil(width * 0.75); i++) {
    if (cover[i]! > allowed) continue;
    let j = i;
    while (j + 1 <= width && cover[j + 1]! <= allowed) j++;
    if (!best || j - i > best.end - best.start) best = { start: i, end: j + 1 };
    i = j;
  }
  if (!best) return null;
  // The run may reach into a column where only its longest line covers it: narrow it to the space between the
  // boxes that end and the boxes that start inside it.
  let start = minX + best.start, end = minX + best.end;
  const [runStart, runEnd] = [start, end];
  for (const b of bs) {
    if (b.x1 > runStart && b.x1 < runEnd && b.x0 < runStart) start = Math.max(start, b.x1);
    if (b.x0 > runStart && b.x0 < runEnd && b.x1 > runEnd) end = Math.min(end, b.x0);
  }
  const h = median(bs.map((b) => b.h));
  if (end - start < 0.5 * h) return null;
  const left = bs.filter((b) => b.x1 <= start + 0.5), right = bs.filter((b) => b.x0 >= end - 0.5);
  const leftLines = linesOf(left), rightLines = linesOf(right);
  if (leftLines.length < 3 || rightLines.length < 3) return null;
  // Side by side: the two sides' vertical ranges overlap for most of the shorter one.
  const span = (ls: Box[][]) => [ls.at(-1)![0]!.y, ls[0]![0]!.y] as const;
  const [l0, l1] = span(leftLines), [r0, r1] = span(rightLines);
  if (Math.min(l1, r1) - Math.max(l0, r0) < 0.5 * Math.min(l1 - l0, r1 - r0)) return null;
  // Prose: a side's lines fill most of its width on average (a table's cells do not).
  const fill = (ls: Box[][], from: number, to: number) => ls.reduce((sum, l) => sum + l.at(-1)!.x1 - l[0]!.x0, 0) / ls.length / Math.max(1, to - from);
  const leftFrom = Math.min(...left.map((b) => b.x0)), rightTo = Math.max(...right.map((b) => b.x1));
  if (fill(leftLines, leftFrom, start) < 0.6 || fill(rightLines, end, rightTo) < 0.6) return null;
  return { start, end };
}

/** Column-major order: full-width boxes in place, between them the left side's lines, then the right side's. */
function columnText(items: readonly PdfTextItem[], gutter: { start: number; end: number }): string {
  const bs = boxes(items);
  const isLeft = (b: Box) => b.x1 <= gutter.start + 0.5, isRight = (b: Box) => b.x0 >= gutter.end - 0.5;
  // A box on one side above or below everything on the other side (a short title or footer) stays in place too.
  const range = (side: Box[]) => [Math.min(...side.map((b) => b.y)), Math.max(...side.map((b) => b.y))] as const;
  const [leftLow, leftHigh] = range(bs.filter(isLeft)), [rightLow, rightHigh] = range(bs.filter(isRight));
  const outside = (b: Box, low: number, high: number) => b.y > high + 0.5 * b.h || b.y < low - 0.5 * b.h;
  const full = bs.filter((b) => (!isLeft(b) && !isRight(b)) || (isLeft(b) && outside(b, rightLow, rightHigh)) || (isRight(b) && outside(b, leftLow, leftHigh)));
  const fullLines = linesOf(full);
  const parts: Box[][] = [];
  const isFull = new Set(full);
  let rest = bs.filter((b) => !isFull.has(b));
  const band = (above: number) => {
    const inBand = rest.filter((b) => b.y > above);
    rest = rest.filter((b) => b.y <= above);
    parts.push(...linesOf(inBand.filter(isLeft)), ...linesOf(inBand.filter(isRight)));
  };
  for (const line of fullLines) {
    band(line[0]!.y + 0.5 * line[0]!.h);
    parts.push(line);
  }
  band(-Infinity);
  return linesText(parts);
}

/** Whether the content order jumps between the sides more than column-major order would (one jump per column, two more per full-width line). */
function interleaved(items: readonly PdfTextItem[], gutter: { start: number; end: number }): boolean {
  let switches = 0, side = 0, full = 0;
  for (const b of boxes(items)) {
    const s = b.x1 <= gutter.start + 0.5 ? -1 : b.x0 >= gutter.end - 0.5 ? 1 : 0;
    if (s === 0) full++;
    if (s !== 0 && side !== 0 && s !== side) switches++;
    if (s !== 0) side = s;
  }
  return switches > 3 + 2 * full;
}

/** A page's text from its items (see the module comment), white space normalised. */
export function pageText(items: readonly PdfTextItem[]): string {
  const gutter = findGutter(items);
  if (gutter && interleaved(items, gutter)) return normaliseText(columnText(items, gutter));
  return normaliseText(contentOrderText(items));
}
