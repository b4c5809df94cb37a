/**
 * Top-k selection with a deterministic order: score descending, then item id ascending, so every run of the
 * same query over the same corpus returns the same ranking.
 */

export interface Scored {
  /** Position of the item in its index. */
  index: number;
  score: number;
}

export type IdOf = (index: number) => string;

/** a before b? (higher score first; equal scores by id ascending). */
export function ranksBefore(a: Scored, b: Scored, idOf: IdOf): boolean {
  if (a.score !== b.score) return a.score > b.score;
  return idOf(a.index) < idOf(b.index);
}

/** Sorts in place into ranking order. */
export function sortRanked<T extends Scored>(items: T[], idOf: IdOf): T[] {
  return items.sort((a, b) => (a.score !== b.score ? b.score - a.score : compareIds(idOf(a.index), idOf(b.index))));
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The best `k` of `candidates` (indices into `scores`), in ranking order. A bounded min-heap keeps it
 * O(n log k); `accept` can drop items (filters); a non-finite score is never kept.
 */
export function topK(
  scores: ArrayLike<number>,
  candidates: Iterable<number>,
  k: number,
  idOf: IdOf,
  accept?: (index: number) => boolean,
): Scored[] {
  if (k <= 0) return [];
  const heap: Scored[] = [];
  // Heap root = the worst of the kept items.
  const worse = (a: Scored, b: Scored) => ranksBefore(b, a, idOf);
  for (const index of candidates) {
    if (accept && !accept(index)) continue;
    const score = scores[index]!;
    if (!Number.isFinite(score)) continue; // NaN/±Infinity never ranks (a vector that held NaN)
    const item = { index, score };
    if (heap.length < k) {
      heap.push(item);
      siftUp(heap, heap.length - 1, worse);
    } else if (worse(heap[0]!, item)) {
      heap[0] = item;
      siftDown(heap, 0, worse);
    }
  }
  return sortRanked(heap, idOf);
}

function siftUp(h: Scored[], i: number, worse: (a: Scored, b: Scored) => boolean): void {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!worse(h[i]!, h[p]!)) break;
    [h[i], h[p]] = [h[p]!, h[i]!];
    i = p;
  }
}

function siftDown(h: Scored[], i: number, worse: (a: Scored, b: Scored) => boolean): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < h.length && worse(h[l]!, h[m]!)) m = l;
    if (r < h.length && worse(h[r]!, h[m]!)) m = r;
    if (m === i) return;
    [h[i], h[m]] = [h[m]!, h[i]!];
    i = m;
  }
}
