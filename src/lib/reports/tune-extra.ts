/**
 * A tune report (kind 'tune', written by src/lib/tune/tune-report.ts `tuneReport`): its rows are the tuner's trials
 * (key `trial:<mode>:<config hash>`, so two tunes pair a setting by its settings), its summary figures the held-out
 * ones (the current settings, the winner, each member of the Pareto front: the objective with its interval, and Δ
 * against the current settings), and its `summary.extra` the rest of the tune (verdict, winner, front, rungs, learned
 * α, agreement, the held-out tests). This module owns that layout on both sides: the JSON shapes the writer fills,
 * and the reader the Reports view, the Markdown export and the share summary use. A report is untrusted input, so
 * every field read is checked; one missing or malformed reads as null, never as a wrong number.
 */
import type { JsonValue, Report, ReportRow } from './format.ts';

/** The one group of a tune report's rows. */
export const TUNE_ROW_GROUP = 'trials';

/** A trial's part in the tune, best first: the winner, on the Pareto front, a finalist (ran every rung), dropped on the way. */
export const TUNE_STATUSES = ['winner', 'front', 'finalist', 'dropped'] as const;
export type TuneRowStatus = (typeof TUNE_STATUSES)[number];

/** A trial's row key: its mode and config hash (the same settings have the same key in every tune of the same data). */
export const tuneRowKey = (mode: string, configHash: string): string => `trial:${mode}:${configHash}`;

/** The summary group of a held-out figure: 'current', 'winner', or `front #<trial id>`. */
export const tuneGroup = (trial: number | null, winner: number): string => (trial === null ? 'current' : trial === winner ? 'winner' : `front #${trial}`);

/** The summary figure of Δ against the current settings (the objective's is `report.evaluator`). */
export const TUNE_DELTA = 'delta';

/** One held-out figure in `summary.extra.heldOut.figures` (the current settings' in `heldOut.current`). */
export type TuneHeldOutJson = {
  group: string;
  label: string;
  trial: number | null;
  score: number | null;
  ci: [number, number] | null;
  delta: number | null;
  deltaCi: [number, number] | null;
  p: number | null;
  pHolm: number | null;
  wins: number;
  ties: number;
  losses: number;
};

/** A held-out figure as the view shows it: the summary's figures (value, interval, n) and the tests the extra carries. */
export interface TuneHeldOutRow {
  group: string;
  /** The setting's `rag-lab eval-beir` flags (the mode and what differs from the current settings). */
  label: string;
  trial: number | null;
  value: number | null;
  ci: [number, number] | null;
  /** Held-out queries the figure rests on. */
  n: number;
  delta: number | null;
  deltaCi: [number, number] | null;
  pHolm: number | null;
  wtl: { wins: number; ties: number; losses: number } | null;
}

export interface TuneAgreement { tau: number | null; regret: number | null; passes: boolean; reference: string; other: string }

export interface TuneSummary {
  objective: string;
  verdict: string | null;
  heldOut: TuneHeldOutRow[];
  learnedAlpha: string | null;
  agreement: TuneAgreement | null;
  adoptable: boolean | null;
  /** The test set is not labelled queries (pseudo-queries): its label; else null. */
  testSetLabel: string | null;
  winner: { label: string; mode: string } | null;
}

type Obj = { [k: string]: JsonValue };
const obj = (x: JsonValue | undefined): Obj | null => (x !== null && typeof x === 'object' && !Array.isArray(x) ? x : null);
const num = (x: JsonValue | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const count = (x: JsonValue | undefined): number | null => (typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : null);
const str = (x: JsonValue | undefined): string | null => (typeof x === 'string' ? x : null);

/** The held-out figures in the summary's order, each with the tests `summary.extra.heldOut` carries for its group. */
function heldOutRows(r: Report): TuneHeldOutRow[] {
  const extra = obj(r.summary.extra['heldOut']);
  const figures = [obj(extra?.['current']), ...(Array.isArray(extra?.['figures']) ? extra['figures'].map(obj) : [])]
    .filter((f): f is Obj => f !== null);
  const groups: string[] = [];
  for (const m of r.summary.metrics) if (m.group !== null && !groups.includes(m.group)) groups.push(m.group);
  return groups.flatMap((group) => {
    const fig = r.summary.metrics.find((m) => m.group === group && m.id === r.evaluator);
    if (!fig) return [];
    const d = r.summary.metrics.find((m) => m.group === group && m.id === TUNE_DELTA) ?? null;
    const x = figures.find((f) => f['group'] === group) ?? null;
    const [wins, ties, losses] = [count(x?.['wins']), count(x?.['ties']), count(x?.['losses'])];
    return [{
      group, label: str(x?.['label']) ?? group, trial: count(x?.['trial']),
      value: fig.value, ci: fig.ci, n: fig.n, delta: d?.value ?? null, deltaCi: d?.ci ?? null, pHolm: num(x?.['pHolm']),
      wtl: group === 'current' || wins === null || ties === null || losses === null ? null : { wins, ties, losses },
    }];
  });
}

/** What a tune report says, read from its summary; null for another kind. */
export function tuneSummary(r: Report): TuneSummary | null {
  if (r.kind !== 'tune') return null;
  const e = r.summary.extra;
  const agreement = obj(e['agreement']);
  const winner = obj(e['winner']);
  const [label, mode] = [str(winner?.['label']), str(winner?.['mode'])];
  return {
    objective: r.evaluator,
    verdict: str(e['verdict']),
    heldOut: heldOutRows(r),
    learnedAlpha: str(obj(e['learnedAlpha'])?.['verdict']),
    agreement: agreement ? {
      tau: num(agreement['tau']), regret: num(agreement['regret']), passes: agreement['passes'] === true,
      reference: str(agreement['reference']) ?? 'the reference test set', other: str(agreement['other']) ?? 'the other test set',
    } : null,
    adoptable: typeof e['adoptable'] === 'boolean' ? e['adoptable'] : null,
    testSetLabel: str(e['testSetLabel']),
    winner: label !== null && mode !== null ? { label, mode } : null,
  };
}

/** The agreement check in words: "τ 0.93 and regret 0.0040 between A and B: passes (τ ≥ 0.9, regret ≤ 0.01)". */
export function agreementText(a: TuneAgreement): string {
  const f = (x: number | null, d: number) => (x === null ? 'n/a' : x.toFixed(d));
  return `Kendall τ ${f(a.tau, 3)} and regret ${f(a.regret, 4)} between ${a.reference} and ${a.other}: ${a.passes ? 'the check passes' : 'the check fails'} (τ ≥ 0.9 and regret ≤ 0.01)`;
}

const STATUS_RANK: ReadonlyMap<string, number> = new Map(TUNE_STATUSES.map((s, i) => [s, i]));

/** A tune report's rows, the ones that say most first: the winner, the front, the finalists, the dropped (report order within). */
export function tuneRowsRanked(rows: readonly ReportRow[]): ReportRow[] {
  const rank = (row: ReportRow) => STATUS_RANK.get(row.status ?? '') ?? TUNE_STATUSES.length;
  return rows.map((row, i) => ({ row, i })).sort((a, b) => rank(a.row) - rank(b.row) || a.i - b.i).map((x) => x.row);
}
