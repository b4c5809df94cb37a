/**
 * IR metrics with trec_eval / pytrec_eval definitions. A run is the ranked list of document ids for one query;
 * qrels give graded relevance (> 0 = relevant). Queries without judgements are skipped by the caller.
 */

export type Judgements = ReadonlyMap<string, number>;

/** DCG@k = Σ_{i ≤ k} rel_i / log2(i + 1); NDCG@k = DCG@k / IDCG@k (gain = graded relevance, as trec_eval). */
export function ndcgAt(run: readonly string[], rel: Judgements, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, run.length); i++) dcg += Math.max(0, rel.get(run[i]!) ?? 0) / Math.log2(i + 2);
  const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => { idcg += g / Math.log2(i + 2); });
  return idcg > 0 ? dcg / idcg : 0;
}

/** MRR@k = 1 / rank of the first relevant document within the top k, else 0. */
export function mrrAt(run: readonly string[], rel: Judgements, k: number): number {
  for (let i = 0; i < Math.min(k, run.length); i++) if ((rel.get(run[i]!) ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

/** P@k = relevant in the top k / k (trec_eval divides by k even when fewer are retrieved). */
export function precisionAt(run: readonly string[], rel: Judgements, k: number): number {
  let hits = 0;
  for (let i = 0; i < Math.min(k, run.length); i++) if ((rel.get(run[i]!) ?? 0) > 0) hits++;
  return hits / k;
}

/** R@k = relevant in the top k / all relevant. */
export function recallAt(run: readonly string[], rel: Judgements, k: number): number {
  let total = 0;
  for (const g of rel.values()) if (g > 0) total++;
  if (total === 0) return 0;
  let hits = 0;
  for (let i = 0; i < Math.min(k, run.length); i++) if ((rel.get(run[i]!) ?? 0) > 0) hits++;
  return hits / total;
}

/** The per-query metrics, in the order tables show them. */
export const IR_METRIC_IDS = ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100'] as const;

export interface IrScores {
  'ndcg@10': number;
  'mrr@10': number;
  'p@3': number;
  'p@5': number;
  'r@5': number;
  'r@100': number;
}

export function irScores(run: readonly string[], rel: Judgements): IrScores {
  return {
    'ndcg@10': ndcgAt(run, rel, 10),
    'mrr@10': mrrAt(run, rel, 10),
    'p@3': precisionAt(run, rel, 3),
    'p@5': precisionAt(run, rel, 5),
    'r@5': recallAt(run, rel, 5),
    'r@100': recallAt(run, rel, 100),
  };
}

/** Mean of each metric over queries; NaN (no data, `null` in JSON) when there is no query. */
export function meanScores(all: readonly IrScores[]): IrScores {
  const keys = IR_METRIC_IDS;
  const out = Object.fromEntries(keys.map((k) => [k, all.length === 0 ? NaN : 0])) as unknown as IrScores;
  if (all.length === 0) return out;
  for (const s of all) for (const k of keys) out[k] += s[k];
  for (const k of keys) out[k] /= all.length;
  return out;
}
