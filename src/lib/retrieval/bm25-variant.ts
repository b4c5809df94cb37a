/**
 * A knowledge base under a search's own BM25 k1 and b (SearchOptions `k1`, `b`; null: the knowledge base's): the
 * same items and postings re-weighted (`KnowledgeBase.withBm25`), made once per (knowledge base, k1, b) and kept
 * beside it (at most 8 variants each), with the knowledge base's current dense side. What an adopted tune's BM25
 * parameters search with.
 */
import type { KnowledgeBase } from './knowledge-base.ts';

const MAX_VARIANTS = 8;
const variants = new WeakMap<KnowledgeBase, Map<string, KnowledgeBase>>();

export function withSearchBm25(kb: KnowledgeBase, k1: number | null | undefined, b: number | null | undefined): KnowledgeBase {
  const own = kb.options.bm25;
  const p = { k1: k1 ?? own.k1, b: b ?? own.b };
  if (p.k1 === own.k1 && p.b === own.b) return kb;
  let made = variants.get(kb);
  if (!made) variants.set(kb, (made = new Map()));
  const key = `${p.k1},${p.b}`;
  let v = made.get(key);
  if (!v) {
    if (made.size >= MAX_VARIANTS) made.delete(made.keys().next().value!);
    v = kb.withBm25(p);
    made.set(key, v);
  }
  // The dense side may have come (or changed) since the variant was made.
  v.dense = kb.dense;
  v.denseCdf = kb.denseCdf;
  v.denseSkip = kb.denseSkip;
  return v;
}
