/** Words and numbers of the Reports tab (pure, tested). */
import { metricDef } from '../lib/reports/metrics.ts';
import type { ReportMatch } from '../lib/reports/find.ts';
import type { ReportMeta } from '../lib/reports/store-types.ts';

/** "hallucination AUROC 0.812 [0.740, 0.880]" for each headline figure; n/a where it has no value. */
export function headlineText(meta: Pick<ReportMeta, 'kind' | 'headline'>): string[] {
  return meta.headline.map((h) => {
    const def = metricDef(meta.kind, h.id);
    const d = def?.digits ?? 3;
    const value = h.value === null ? 'n/a' : h.value.toFixed(d);
    return `${def?.label ?? h.id} ${value}${h.ci ? ` [${h.ci[0].toFixed(d)}, ${h.ci[1].toFixed(d)}]` : ''}`;
  });
}

/** Why a report matched the find: "matches title, question (3 rows)". */
export function matchText(m: ReportMatch): string {
  return `matches ${m.fields.join(', ')}${m.rows ? ` (${m.rows} row${m.rows === 1 ? '' : 's'})` : ''}`;
}
