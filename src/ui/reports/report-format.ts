/** Words and numbers of the Reports tab (pure, tested). */
import { metricDef } from '../../lib/reports/metrics.ts';
import type { ReportMatch } from '../../lib/reports/find.ts';
import type { ReportMeta } from '../../lib/reports/store-types.ts';
import { headlineByPipeline } from '../../lib/reports/meta.ts';

/** "hallucination AUROC 0.812 [0.740, 0.880]" for one headline figure; n/a where it has no value. */
function figureText(kind: ReportMeta['kind'], h: ReportMeta['headline'][number]): string {
  const def = metricDef(kind, h.id);
  const d = def?.digits ?? 3;
  const value = h.value === null ? 'n/a' : h.value.toFixed(d);
  return `${def?.label ?? h.id} ${value}${h.ci ? ` [${h.ci[0].toFixed(d)}, ${h.ci[1].toFixed(d)}]` : ''}`;
}

/**
 * The headline as one line per pipeline (meta.ts `headlineByPipeline`): `mode` the retrieval mode ("" for a
 * RAGBench report's one pipeline), `figures` each figure as text. No line pools several modes.
 */
export function headlineText(meta: Pick<ReportMeta, 'kind' | 'evaluator' | 'headline'>): Array<{ mode: string; figures: string[] }> {
  return headlineByPipeline(meta).map((p) => ({ mode: p.pipeline ?? '', figures: p.figures.map((h) => figureText(meta.kind, h)) }));
}

/** The entry's row count: "N = 24"; a multi-mode retrieval report's says the rows are over its modes ("N = 1500 rows over 5 modes"); a tune's are trials. */
export function countText(meta: Pick<ReportMeta, 'kind' | 'evaluator' | 'headline' | 'n'>): string {
  if (meta.kind === 'tune') return `${meta.n} trial${meta.n === 1 ? '' : 's'}`;
  const modes = meta.kind === 'retrieval' ? headlineText(meta).length : 0;
  return modes > 1 ? `N = ${meta.n} rows over ${modes} modes` : `N = ${meta.n}`;
}

/** Why a report matched the find: "matches title, question (3 rows)". */
export function matchText(m: ReportMatch): string {
  return `matches ${m.fields.join(', ')}${m.rows ? ` (${m.rows} row${m.rows === 1 ? '' : 's'})` : ''}`;
}
