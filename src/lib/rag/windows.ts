/**
 * Sentence windows: a retrieved chunk is widened by w sentences on each side, taken from its source document, so
 * the model sees the context around a match. Sentences come from `splitSentences` over the whole document text,
 * cached per document.
 */
import type { SourceDocument } from '../retrieval/document.ts';
import { splitSentences, type SentenceSpan } from '../retrieval/chunk.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { RetrievedHit } from './retrieve.ts';

export const DEFAULT_WINDOW = 1;

const sentenceCache = new WeakMap<SourceDocument, SentenceSpan[]>();

/** The sentences of a document (computed once per document object). */
export function documentSentences(doc: SourceDocument): SentenceSpan[] {
  let s = sentenceCache.get(doc);
  if (!s) {
    s = splitSentences(doc.text);
    sentenceCache.set(doc, s);
  }
  return s;
}

export interface SentenceWindow {
  /** The expanded text: `doc.text.slice(start, end)`. */
  text: string;
  start: number;
  end: number;
  /** The chunk's own span inside the document. */
  chunkStart: number;
  chunkEnd: number;
  /** Sentences added before and after the chunk's own. */
  added: { before: number; after: number };
}

/** First index in [lo, hi) where pred holds (pred monotone false → true). */
function lowerBound(n: number, pred: (i: number) => boolean): number {
  let lo = 0, hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Widens the span [start, end) of `doc` by `w` sentences on each side. The chunk's first and last sentences are
 * those it overlaps (a chunk cut mid-sentence gets the rest of that sentence too); w = 0 returns the span as is.
 */
export function expandSpan(doc: SourceDocument, start: number, end: number, w: number): SentenceWindow {
  const own = { chunkStart: start, chunkEnd: end };
  if (w <= 0) return { text: doc.text.slice(start, end), start, end, ...own, added: { before: 0, after: 0 } };
  const sents = documentSentences(doc);
  // first sentence ending after the chunk starts; last sentence starting before it ends
  const first = lowerBound(sents.length, (i) => sents[i]!.end > start);
  const last = lowerBound(sents.length, (i) => sents[i]!.start >= end) - 1;
  if (first >= sents.length || last < 0 || last < first) {
    return { text: doc.text.slice(start, end), start, end, ...own, added: { before: 0, after: 0 } };
  }
  const from = Math.max(0, first - w);
  const to = Math.min(sents.length - 1, last + w);
  const s = Math.min(start, sents[from]!.start);
  const e = Math.max(end, sents[to]!.end);
  return { text: doc.text.slice(s, e), start: s, end: e, ...own, added: { before: first - from, after: to - last } };
}

/** The window of knowledge-base item `item` (its chunk span from `kb.itemSpan`). */
export function expandItem(kb: KnowledgeBase, item: number, w: number = DEFAULT_WINDOW): SentenceWindow {
  const { start, end } = kb.itemSpan(item);
  return expandSpan(kb.docOf(item), start, end, w);
}

/** One numbered source as the model sees it. */
export interface RagContext {
  /** Source number in the prompt, from 1. */
  n: number;
  item: number;
  doc_id: string;
  chunk_id: string;
  title: string;
  /** Window-expanded text. */
  text: string;
  /** Span of `text` in the document. */
  start: number;
  end: number;
  score: number;
}

/** The window stage: each hit widened and numbered 1..n in ranking order. */
export function windowContexts(kb: KnowledgeBase, hits: readonly RetrievedHit[], w: number): RagContext[] {
  return hits.map((h, i) => {
    const win = expandItem(kb, h.item, w);
    return { n: i + 1, item: h.item, doc_id: h.docId, chunk_id: h.id, title: kb.docOf(h.item).title, text: win.text, start: win.start, end: win.end, score: h.score };
  });
}
