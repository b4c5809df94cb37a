/**
 * Makes a report v1 from a finished run: the summary figures (metrics.ts) over all rows and per group, each with
 * its 95% percentile bootstrap interval (rows resampled, seeded by the run's seed), small-sample warnings, then the
 * schema check. The Benchmark tab (through the bench worker) and the CLI both call this, so a run gives the same
 * numbers wherever it ran and wherever it is opened.
 */
import { newReportId, parseReport, secretPaths, REPORT_FORMAT, REPORT_VERSION, type JsonValue, type Report, type ReportKind, type ReportRow, type ReportSummary } from './format.ts';
import { metricsFor } from './metrics.ts';
import { rowsByMode } from './pipelines.ts';
import { figuresWithIntervals, smallSampleNotes } from './summary-stats.ts';

export { smallSampleNotes };

export const SUMMARY_BOOTSTRAP = { iterations: 1000, level: 0.95 } as const;

export interface BuildReportInput {
  kind: ReportKind;
  evaluator: string;
  config: Record<string, JsonValue>;
  configHash: string;
  data: Report['data'];
  seed: number;
  n: number | null;
  rows: ReportRow[];
  environment: Report['environment'];
  title?: string;
  notes?: string;
  draft?: boolean;
  /** Baseline evaluators' figures (validate). */
  baselines?: ReportSummary['baselines'];
  /** Warnings besides the small-sample ones. */
  warnings?: ReportSummary['warnings'];
  runNotes?: string[];
  extra?: Record<string, JsonValue>;
  /**
   * Summary figures the run computed itself (a tune's held-out figures), in place of those of the rows; the run's
   * own warnings then (`warnings`), no small-sample ones of the rows. `iterations` names its resamples.
   */
  metrics?: ReportSummary['metrics'];
  /** Bootstrap resamples of the summary intervals (default 1000; 0: no intervals). */
  iterations?: number;
  /** Defaults: now, a new id. */
  createdAt?: string;
  id?: string;
}

/**
 * The summary figures of `rows`: every metric of the kind (`metricsFor` these rows) over all rows (group null) and
 * over each group; when the groups are pipelines (a multi-mode retrieval run, pipelines.ts), per group only: a
 * figure over several modes' rows describes no pipeline.
 */
export function summaryMetrics(kind: ReportKind, rows: readonly ReportRow[], opts: { iterations: number; seed: number }): ReportSummary['metrics'] {
  const defs = metricsFor(kind, rows);
  const groups = [...new Set(rows.map((r) => r.group))];
  const sets: Array<[string | null, readonly ReportRow[]]> = rowsByMode(kind, rows) ? [] : [[null, rows]];
  if (groups.length > 1 || sets.length === 0) for (const g of groups) sets.push([g, rows.filter((r) => r.group === g)]);
  else if (groups.length === 1) sets.push([groups[0]!, rows]);
  const out: ReportSummary['metrics'] = [];
  for (const [group, rs] of sets) {
    const figures = figuresWithIntervals(kind, rs, { iterations: opts.iterations, seed: opts.seed, level: SUMMARY_BOOTSTRAP.level }, defs);
    defs.forEach((m, j) => {
      const f = figures[j]!;
      out.push({ id: m.id, group, value: f.value, ci: f.ci, n: rs.filter((r) => m.perRow(r) !== null).length });
    });
  }
  return out;
}

/** Builds and validates a report; throws when the result is not a valid report v1 or carries a secret. */
export function buildReport(input: BuildReportInput): Report {
  const iterations = input.iterations ?? SUMMARY_BOOTSTRAP.iterations;
  const secrets = secretPaths({ config: input.config, environment: input.environment });
  if (secrets.length) throw new Error(`refusing to write a report with a secret in ${secrets.join(', ')}`);
  const report: Report = {
    format: REPORT_FORMAT, version: REPORT_VERSION, id: input.id ?? newReportId(), kind: input.kind,
    title: (input.title ?? '').slice(0, 200), notes: input.notes ?? '', createdAt: input.createdAt ?? new Date().toISOString(),
    draft: input.draft ?? false, evaluator: input.evaluator, config: input.config, configHash: input.configHash, data: input.data,
    seed: input.seed, n: input.n, rows: input.rows,
    summary: {
      metrics: input.metrics ?? summaryMetrics(input.kind, input.rows, { iterations, seed: input.seed }),
      baselines: input.baselines ?? [],
      warnings: [...(input.metrics ? [] : smallSampleNotes(input.kind, input.rows)), ...(input.warnings ?? [])],
      bootstrap: { iterations, seed: input.seed, level: SUMMARY_BOOTSTRAP.level },
      notes: input.runNotes ?? [],
      extra: input.extra ?? {},
    },
    environment: input.environment,
  };
  const checked = parseReport(JSON.parse(JSON.stringify(report)));
  if (!checked.ok) throw new Error(`internal error: the report built is not valid (${checked.message})`);
  return checked.report;
}
