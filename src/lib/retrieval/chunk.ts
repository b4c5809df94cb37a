/**
 * Recursive character splitting (LangChain's RecursiveCharacterTextSplitter semantics) and sentence splitting.
 * Every chunk keeps its source document id, its index within the document and its character span.
 */

export interface ChunkOptions {
  /** Maximum characters per chunk. Default 800. */
  chunkSize: number;
  /** Characters shared by consecutive chunks. Default 120; must be < chunkSize. */
  overlap: number;
  /** Tried in order: paragraph, line, sentence end, word. Default below. */
  separators: readonly string[];
}

export const DEFAULT_CHUNKING: Readonly<ChunkOptions> = Object.freeze({
  chunkSize: 800,
  overlap: 120,
  separators: ['\n\n', '\n', '. ', '? ', '! ', '; ', ', ', ' '],
});

export interface Chunk {
  docId: string;
  chunkIndex: number;
  /** Start offset (inclusive) in the source text. */
  start: number;
  /** End offset (exclusive) in the source text; `text === source.slice(start, end)`. */
  end: number;
  text: string;
}

interface Piece { start: number; end: number }

/** Splits `text` into chunks of at most `chunkSize` characters with about `overlap` characters repeated. */
export function chunkText(docId: string, text: string, options: Partial<ChunkOptions> = {}): Chunk[] {
  const opts = { ...DEFAULT_CHUNKING, ...options };
  if (!(opts.chunkSize > 0) || !(opts.overlap >= 0) || opts.overlap >= opts.chunkSize) {
    throw new Error(`chunkText: need 0 <= overlap < chunkSize, got chunkSize=${opts.chunkSize} overlap=${opts.overlap}`);
  }
  const pieces = split(text, 0, text.length, opts.separators, opts.chunkSize);
  const spans = merge(pieces, opts.chunkSize, opts.overlap);
  // Trim white space at the edges but keep offsets exact.
  const trimmed: Piece[] = [];
  for (let { start, end } of spans) {
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    if (end > start) trimmed.push({ start, end });
  }
  // White-space pieces count towards a span's length before trimming, so a trimmed span can end up inside its
  // neighbour: drop those rather than index the same text twice.
  const covers = (outer: Piece | undefined, inner: Piece) => outer !== undefined && outer.start <= inner.start && inner.end <= outer.end;
  const kept: Piece[] = [];
  trimmed.forEach((p, i) => {
    const next = trimmed[i + 1];
    const nextIsLarger = covers(next, p) && (next!.start !== p.start || next!.end !== p.end);
    if (!nextIsLarger && !covers(kept[kept.length - 1], p)) kept.push(p);
  });
  return kept.map((p, i) => ({ docId, chunkIndex: i, start: p.start, end: p.end, text: text.slice(p.start, p.end) }));
}

/** Cuts [start, end) into pieces no longer than `size`, preferring the earliest separator that appears. */
function split(text: string, start: number, end: number, separators: readonly string[], size: number): Piece[] {
  if (end - start <= size) return [{ start, end }];
  const segment = text.slice(start, end);
  const sepIndex = separators.findIndex((s) => segment.includes(s));
  if (sepIndex < 0) {
    const out: Piece[] = [];
    for (let i = start; i < end; i += size) out.push({ start: i, end: Math.min(end, i + size) });
    return out;
  }
  const sep = separators[sepIndex]!;
  const rest = separators.slice(sepIndex + 1);
  const out: Piece[] = [];
  let from = start;
  while (from < end) {
    const at = text.indexOf(sep, from);
    // The separator stays with the piece before it, so pieces tile the text without gaps.
    const to = at < 0 || at >= end ? end : Math.min(end, at + sep.length);
    if (to - from > size) out.push(...split(text, from, to, rest, size));
    else out.push({ start: from, end: to });
    from = to;
  }
  return out;
}

/**
 * Packs adjacent pieces into spans of <= size. When a span is full, the next one starts with the trailing pieces
 * of the previous span that fit in `overlap` characters (LangChain's `_merge_splits`).
 */
function merge(pieces: Piece[], size: number, overlap: number): Piece[] {
  const spans: Piece[] = [];
  const current: Piece[] = [];
  const length = () => current[current.length - 1]!.end - current[0]!.start;
  for (const p of pieces) {
    if (current.length > 0 && p.end - current[0]!.start > size) {
      spans.push({ start: current[0]!.start, end: current[current.length - 1]!.end });
      while (current.length > 0 && (length() > overlap || p.end - current[0]!.start > size)) current.shift();
    }
    current.push(p);
  }
  if (current.length > 0) spans.push({ start: current[0]!.start, end: current[current.length - 1]!.end });
  return spans;
}

export interface SentenceSpan { start: number; end: number; text: string }

/** Latin terminators end a sentence before white space; CJK ones (。！？) end it wherever they stand. */
const SENTENCE_END = /[.!?]+["'”’)\]]*(?=\s|$)|[。！？]+["'”’)\]」』]*/gu;
/** Abbreviations whose trailing period does not end a sentence. */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'e.g', 'i.e', 'fig', 'no', 'u.s', 'gen', 'gov', 'sen', 'rep', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);

/** Splits text into sentences with exact character spans (for sentence windows). */
export function splitSentences(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  let start = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + m[0].length;
    const before = text.slice(start, m.index);
    const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1]?.toLowerCase() ?? '';
    if (m[0] === '.' && (ABBREVIATIONS.has(lastWord) || lastWord.length === 1)) continue;
    push(out, text, start, end);
    start = end;
  }
  push(out, text, start, text.length);
  return out;
}

function push(out: SentenceSpan[], text: string, start: number, end: number): void {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  if (end > start) out.push({ start, end, text: text.slice(start, end) });
}
