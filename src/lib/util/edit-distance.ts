/** Typo suggestions: the edit distance of two words and the nearest of some candidates (the CLI's unknown commands and flags). */

/**
 * Optimal-string-alignment distance: the fewest insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn `a` into `b` (d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+[a_i≠b_j], d[i-2][j-2]+1 on a swap)).
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `name` when it is close enough to be a typo (at most 2 edits, and under half its length). */
export function nearest(name: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const dist = editDistance(name, c);
    if (dist < bestD) { best = c; bestD = dist; }
  }
  return best !== null && bestD <= 2 && bestD < name.length / 2 ? best : null;
}
