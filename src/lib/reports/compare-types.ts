/**
 * What Compare computes (src/lib/reports/compare.ts `compareReports`), shared by the compare worker, the Compare
 * tab and `rag-lab compare`: the contract between them.
 */
import type { ReportKind } from './format.ts';

export interface CompareOptions {
  /** The report the others are measured against (default: the first). */
  baselineId?: string;
  /** Paired-bootstrap resamples. Default 10,000. */
  iterations?: number;
  /** Randomization-test permutations. Default 10,000. */
  permutations?: number;
  /** Seed of both (mulberry32). Default 0. */
  seed?: number;
  /** Family-wise error rate for the significance mark after Holm's correction. Default 0.05. */
  alpha?: number;
  /** Ties in per-row win/tie/loss: |Δ| ≤ this. Default 1e-9. */
  tieEpsilon?: number;
}

export interface CompareCell {
  reportId: string;
  /** The metric over the shared rows, with its 95% percentile-bootstrap interval. */
  value: number | null;
  ci: [number, number] | null;
  n: number;
  /** Against the baseline (null in the baseline's own cell): value − baseline value on the shared rows. */
  delta: number | null;
  /** 95% paired-bootstrap interval of delta. */
  deltaCi: [number, number] | null;
  /** Two-sided paired bootstrap p: min(1, 2·min(P(Δ* ≤ 0), P(Δ* ≥ 0))). */
  pBootstrap: number | null;
  /** Two-sided paired randomization p: (1 + #{|Δ_perm| ≥ |Δ|}) / (1 + permutations). */
  pRandomization: number | null;
  /** pRandomization after Holm's step-down correction over every (metric, report) cell of the table. */
  pHolm: number | null;
  /** pHolm < alpha, and in which direction (better follows the metric's higherIsBetter); null for the baseline. */
  significance: 'better' | 'worse' | 'none' | null;
  /** Per-row wins / ties / losses against the baseline (rows where both have a per-row value). */
  wtl: { win: number; tie: number; loss: number } | null;
}

export interface CompareMetricRow {
  /** The retrieval mode the row's figures are over (every report's rows of that mode); null: a RAGBench report's one pipeline. */
  pipeline: string | null;
  id: string;
  label: string;
  higherIsBetter: boolean;
  digits: number;
  cells: CompareCell[];
}

export interface CompareQuestion {
  /** What the reports' rows pair on (pipelines.ts `pairKey`): unique in the result. */
  key: string;
  /** The retrieval mode of the row (a question of a multi-mode report has one row per mode); null for RAGBench. */
  pipeline: string | null;
  group: string;
  question: string;
  /** Per report id: its row's key, per-row metric values and verdict (metrics.ts `perRow`, `rowVerdict`). */
  byReport: Record<string, { key: string; perRow: Record<string, number | null>; verdict: string | null }>;
  /** Some report's verdict differs from the baseline's. */
  flipped: boolean;
}

export interface ConfigDiffRow {
  /** Dotted path in the report config (plus a few report fields: evaluator, seed, n, data.*, environment.*). */
  path: string;
  /** Per report id: the value as short text ('—' when absent). */
  values: Record<string, string>;
  differs: boolean;
  /** What the setting is, from its declaration (reports/config-settings.ts); absent for other paths. */
  describe?: string;
}

export type CompareResult =
  | { ok: false; message: string }
  | {
    ok: true;
    kind: ReportKind;
    dataset: string;
    baselineId: string;
    /** `title`: the name shown (title.ts `reportTitle`: the user's title, else the generated one). */
    reports: Array<{ id: string; title: string; rows: number }>;
    /** Rows every report has (paired by key); the statistics use only these. */
    sharedRows: number;
    metrics: CompareMetricRow[];
    questions: CompareQuestion[];
    configDiff: ConfigDiffRow[];
    /** E.g. "report B has 40 rows the others lack: left out", "N = 12: intervals are wide". */
    warnings: string[];
    /** What ran: iterations, permutations, seed, alpha. */
    settings: { iterations: number; permutations: number; seed: number; alpha: number };
  };
