/** ROC curve points for plotting: one point per distinct score threshold (ties move both rates at once). */
export function rocCurve(yTrue: readonly (0 | 1)[], yScore: readonly number[]): { fpr: number[]; tpr: number[] } {
  const pairs = yTrue.map((y, i) => ({ y, s: yScore[i]! })).filter((p) => Number.isFinite(p.s)).sort((a, b) => b.s - a.s);
  const P = pairs.filter((p) => p.y === 1).length;
  const N = pairs.length - P;
  const fpr = [0], tpr = [0];
  if (P === 0 || N === 0) return { fpr, tpr };
  let tp = 0, fp = 0;
  for (let i = 0; i < pairs.length; i++) {
    if (pairs[i]!.y === 1) tp++; else fp++;
    if (i === pairs.length - 1 || pairs[i + 1]!.s !== pairs[i]!.s) { fpr.push(fp / N); tpr.push(tp / P); }
  }
  return { fpr, tpr };
}
