/** ROUGE-L: longest-common-subsequence overlap of two texts over lower-cased word tokens. */

/** Lower-cased Unicode word tokens (letters, marks, digits; inner apostrophes, periods and hyphens kept). */
export function rougeTokens(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’.\-][\p{L}\p{M}\p{N}]+)*/gu) ?? [];
}

/** Length of the longest common subsequence (O(|a|·|b|) time, O(|b|) memory). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Array<number>(b.length + 1).fill(0);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

// P = LCS/|cand|, R = LCS/|ref|, F1 = 2PR/(P+R); 0 when either token list is empty or nothing is shared.
export function rougeL(candidate: string, reference: string): { precision: number; recall: number; f1: number } {
  const c = rougeTokens(candidate);
  const r = rougeTokens(reference);
  if (c.length === 0 || r.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const lcs = lcsLength(c, r);
  const precision = lcs / c.length;
  const recall = lcs / r.length;
  return { precision, recall, f1: lcs === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

export function rougeLF1(candidate: string, reference: string): number {
  return rougeL(candidate, reference).f1;
}
