import { describe, expect, it } from 'vitest';
import { chunkText, DEFAULT_CHUNKING, splitSentences, type Chunk, type ChunkOptions } from '../../src/lib/retrieval/chunk.ts';

/** Invariants every chunking must satisfy. */
function checkInvariants(source: string, chunks: Chunk[], opts: Pick<ChunkOptions, 'chunkSize'>, docId = 'doc') {
  chunks.forEach((c, i) => {
    expect(c.docId).toBe(docId);
    expect(c.chunkIndex).toBe(i);
    expect(c.text).toBe(source.slice(c.start, c.end));
    expect(c.end - c.start).toBeLessThanOrEqual(opts.chunkSize);
    expect(c.text.length).toBeGreaterThan(0);
    // trimmed at the edges
    expect(c.text).toBe(c.text.trim());
  });
  // Chunks appear in source order (see the BUG test below for why not strictly).
  for (let i = 1; i < chunks.length; i++) {
    expect(chunks[i]!.start).toBeGreaterThanOrEqual(chunks[i - 1]!.start);
    expect(chunks[i]!.end).toBeGreaterThanOrEqual(chunks[i - 1]!.end);
  }
  // No text lost: every non-space character is inside some chunk.
  const covered = new Uint8Array(source.length);
  for (const c of chunks) covered.fill(1, c.start, c.end);
  for (let i = 0; i < source.length; i++) {
    if (!/\s/.test(source[i]!) && covered[i] !== 1) throw new Error(`character ${i} (${JSON.stringify(source[i])}) is in no chunk`);
  }
}

/** Deterministic pseudo-text of words, sentences and paragraphs. */
function sampleText(): string {
  const words = ['retrieval', 'augmented', 'generation', 'index', 'query', 'the', 'a', 'dense', 'sparse', 'fusion', 'score', 'vector', 'x', 'calibration'];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const paragraphs: string[] = [];
  for (let p = 0; p < 6; p++) {
    const sentences: string[] = [];
    for (let s = 0; s < 5; s++) {
      const n = 4 + Math.floor(rnd() * 12);
      const ws = Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]!);
      sentences.push(ws.join(rnd() < 0.2 ? ', ' : ' ') + (rnd() < 0.2 ? '?' : '.'));
    }
    paragraphs.push(sentences.join(' '));
  }
  return paragraphs.join('\n\n') + '\nfinal line without a stop';
}

describe('chunkText', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_CHUNKING.chunkSize).toBe(800);
    expect(DEFAULT_CHUNKING.overlap).toBe(120);
  });

  it('returns one trimmed chunk for a short text, with exact offsets', () => {
    const src = '  hello world  ';
    const chunks = chunkText('d1', src);
    expect(chunks).toEqual([{ docId: 'd1', chunkIndex: 0, start: 2, end: 13, text: 'hello world' }]);
  });

  it('returns no chunks for empty or white-space-only text', () => {
    expect(chunkText('d', '')).toEqual([]);
    expect(chunkText('d', ' \n\n \t ')).toEqual([]);
  });

  it('word-level packing with overlap (hand-traced)', () => {
    // "aa bb cc dd ee", size 8, overlap 3. Pieces split on ' ' (separator kept with the piece before it):
    // [0,3) "aa ", [3,6) "bb ", [6,9) "cc ", [9,12) "dd ", [12,14) "ee"
    // spans: [0,6) → next keeps "bb " (3 ≤ overlap) → [3,9) → keeps "cc " → [6,14)
    const src = 'aa bb cc dd ee';
    const chunks = chunkText('d', src, { chunkSize: 8, overlap: 3 });
    expect(chunks.map((c) => [c.start, c.end, c.text])).toEqual([
      [0, 5, 'aa bb'],
      [3, 8, 'bb cc'],
      [6, 14, 'cc dd ee'],
    ]);
  });

  it('without overlap, word-level chunks do not share text', () => {
    const src = 'aa bb cc dd ee';
    const chunks = chunkText('d', src, { chunkSize: 8, overlap: 0 });
    // [0,6) "aa bb " is full when "cc " arrives; then "cc ", "dd ", "ee" fill [6,14) = 8 characters exactly
    expect(chunks.map((c) => c.text)).toEqual(['aa bb', 'cc dd ee']);
  });

  it('prefers paragraph breaks over smaller separators', () => {
    const p1 = 'Alpha beta gamma.'; // 17 chars
    const p2 = 'Delta epsilon zeta.'; // 19 chars
    const src = `${p1}\n\n${p2}`; // 38 chars > 25, each paragraph ≤ 25
    const chunks = chunkText('d', src, { chunkSize: 25, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual([p1, p2]);
    expect(chunks[1]!.start).toBe(19);
  });

  it('hard-cuts text with no separator into chunkSize pieces', () => {
    const src = 'x'.repeat(25);
    const chunks = chunkText('d', src, { chunkSize: 10, overlap: 3 });
    expect(chunks.map((c) => [c.start, c.end])).toEqual([[0, 10], [10, 20], [20, 25]]);
    checkInvariants(src, chunks, { chunkSize: 10 }, 'd');
  });

  it.each([
    { chunkSize: 800, overlap: 120 },
    { chunkSize: 200, overlap: 40 },
    { chunkSize: 100, overlap: 20 },
    { chunkSize: 60, overlap: 0 },
    { chunkSize: 30, overlap: 10 },
    { chunkSize: 12, overlap: 11 },
  ])('keeps offsets exact, indices sequential, sizes bounded and loses no text (%o)', (opts) => {
    const src = sampleText();
    const chunks = chunkText('doc', src, opts);
    expect(chunks.length).toBeGreaterThan(opts.chunkSize >= src.length ? 0 : 1);
    checkInvariants(src, chunks, opts);
  });

  it('consecutive word-level chunks overlap by at most `overlap` characters', () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`); // no punctuation: only ' ' splits
    const src = words.join(' ');
    const opts = { chunkSize: 50, overlap: 15 };
    const chunks = chunkText('d', src, opts);
    checkInvariants(src, chunks, opts, 'd');
    expect(chunks.length).toBeGreaterThan(5);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!, cur = chunks[i]!;
      const shared = prev.end - cur.start;
      expect(shared).toBeGreaterThan(0);
      expect(shared).toBeLessThanOrEqual(opts.overlap);
      // the shared text is whole words
      expect(src.slice(cur.start, prev.end).trim().split(' ').every((w) => words.includes(w))).toBe(true);
    }
  });

  // BUG (src/lib/retrieval/chunk.ts:81-94): merge() counts white-space-only pieces (here the leading ' ') toward a
  // span's length; chunkText trims them afterwards, so a chunk can end up identical to, or a prefix of, the next one.
  // ' ab cde', size 6, overlap 3: pieces ' ', 'ab ', 'cde' → spans [0,4) and [1,7) → chunks 'ab' [1,3) and 'ab cde' [1,7):
  // the first chunk is wholly contained in the second (duplicate text indexed twice). ' a  ' (size 3, overlap 2)
  // even gives two identical chunks 'a' [1,2).
  it('no chunk is contained in the next one', () => {
    for (const [src, chunkSize, overlap] of [[' ab cde', 6, 3], [' a  ', 3, 2]] as const) {
      const chunks = chunkText('d', src, { chunkSize, overlap });
      for (let i = 1; i < chunks.length; i++) {
        const prev = chunks[i - 1]!, cur = chunks[i]!;
        expect(cur.start <= prev.start && cur.end >= prev.end).toBe(false);
      }
    }
  });

  it('handles CRLF and tabs without losing text', () => {
    const src = Array.from({ length: 40 }, (_, i) => `line ${i}\twith\ttabs`).join('\r\n');
    const opts = { chunkSize: 70, overlap: 20 };
    checkInvariants(src, chunkText('doc', src, opts), opts);
  });

  it.each([
    { chunkSize: 10, overlap: 10 },
    { chunkSize: 10, overlap: 11 },
    { chunkSize: 0, overlap: 0 },
    { chunkSize: -5, overlap: 0 },
    { chunkSize: 10, overlap: -1 },
    { chunkSize: Number.NaN, overlap: 0 },
    { chunkSize: 10, overlap: Number.NaN },
  ])('throws on invalid options %o', (opts) => {
    expect(() => chunkText('d', 'some text here', opts)).toThrow(/overlap < chunkSize/);
  });
});

describe('splitSentences', () => {
  it('splits on sentence ends with exact spans; Mr. and U.S. do not end sentences', () => {
    const src = 'Mr. Smith went to the U.S. last year. He liked it! Did he? Yes.';
    const s = splitSentences(src);
    expect(s.map((x) => x.text)).toEqual(['Mr. Smith went to the U.S. last year.', 'He liked it!', 'Did he?', 'Yes.']);
    for (const x of s) expect(src.slice(x.start, x.end)).toBe(x.text);
    expect(s[0]!.start).toBe(0);
    expect(s[1]!.start).toBe(38);
    expect(s[3]!.end).toBe(src.length);
  });

  it('does not split after e.g., Dr., i.e. or an initial', () => {
    const src = 'Ask Dr. Jones, e.g. about the data, i.e. the logs. J. R. Tolkien wrote books.';
    expect(splitSentences(src).map((x) => x.text)).toEqual([
      'Ask Dr. Jones, e.g. about the data, i.e. the logs.',
      'J. R. Tolkien wrote books.',
    ]);
  });

  it('keeps closing quotes and brackets with the sentence, and trailing text without a stop', () => {
    const src = '  He said "Stop." (Then he left.) And then  ';
    const s = splitSentences(src);
    expect(s.map((x) => x.text)).toEqual(['He said "Stop."', '(Then he left.)', 'And then']);
    for (const x of s) expect(src.slice(x.start, x.end)).toBe(x.text);
  });

  it('treats an ellipsis and repeated marks as one end', () => {
    expect(splitSentences('Wait... What?! Fine.').map((x) => x.text)).toEqual(['Wait...', 'What?!', 'Fine.']);
  });

  it('does not split inside numbers or on a period not followed by space', () => {
    expect(splitSentences('Pi is 3.14 roughly.See above.').map((x) => x.text)).toEqual(['Pi is 3.14 roughly.See above.']);
  });

  it('returns [] for empty or blank text', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences('   \n ')).toEqual([]);
  });

  it('splits CJK sentences separated by spaces', () => {
    const src = '你好。 再见！';
    expect(splitSentences(src).map((x) => x.text)).toEqual(['你好。', '再见！']);
  });

  // BUG (src/lib/retrieval/chunk.ts:98): SENTENCE_END lists 。！？ but its lookahead requires white space or the
  // end of text after the mark, and Chinese/Japanese text has no spaces between sentences, so it never splits.
  it('splits unspaced CJK sentences at 。 and ！', () => {
    expect(splitSentences('你好。再见！').map((x) => x.text)).toEqual(['你好。', '再见！']);
  });
});
