/**
 * A tune as a report (kind 'tune', docs/reports.md), so it can be saved, opened in the Reports tab, exported, shared
 * as a link and compared like a benchmark run. The layout is reports/tune-extra.ts's:
 *   rows: one per trial, key `trial:<mode>:<config hash>` (a setting tried twice keeps its first trial and its best
 *     status), group 'trials', question = its flags, status winner | front | finalist | dropped, scores = the
 *     objective on the tuning queries of the last rung it reached, its p95 and mean end-to-end ms, those queries and
 *     that rung (counted from 1; 0: none);
 *   summary figures: the held-out ones (none of those queries chose the winner): the current settings, the winner and
 *     each member of the front, the objective with its interval and n = held-out queries, and Δ against the current
 *     settings with its paired interval;
 *   summary.extra: the verdict, winner, front, rungs, identity, learned α, agreement, adoptable, and the held-out
 *     tests (Holm p, wins / ties / losses).
 * Numbers that are not finite are written as null; the report passes `parseReport` (buildReport checks it).
 */
import { sha256Hex } from '../checksum.ts';
import { buildReport } from '../reports/build.ts';
import { REPORT_ID, type JsonValue, type Report, type ReportEnvironment, type ReportRow, type SummaryMetric } from '../reports/format.ts';
import { TUNE_DELTA, TUNE_ROW_GROUP, TUNE_STATUSES, tuneGroup, tuneRowKey, type TuneHeldOutJson, type TuneRowStatus } from '../reports/tune-extra.ts';
import { HELD_OUT_ITERATIONS, type HeldOutFigure } from './held-out.ts';
import type { TuneResult, TuneTrial } from './tune-session.ts';

export interface TuneReportOptions {
  id?: string;
  /** The user's title; empty: the generated one (reports/title.ts). */
  title?: string;
  /** ISO 8601; default now. */
  createdAt?: string;
  testSet: { label: string; kind: string; provenance?: Record<string, string | number>; splitSeed: number };
  /** Trials asked for (with `minutes`, the most). */
  budget: number;
  /** A budget in time, when the tune had one. */
  minutes?: number;
  /** The modes the space was asked to use. */
  modes: string[];
  /** The current settings the tune started from. */
  base: Record<string, JsonValue>;
  data: { dataset: string; kb: string | null; source: string; revision: string | null };
  environment: ReportEnvironment;
}

/** Characters of one summary note (the schema's limit). */
const NOTE_CHARS = 5000;

const fin = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const finPair = (x: readonly [number, number] | null | undefined): [number, number] | null =>
  (x && Number.isFinite(x[0]) && Number.isFinite(x[1]) ? [x[0], x[1]] : null);

/** Any value the tuner returns as JSON: numbers that are not finite as null, undefined fields left out. */
export function jsonOf(x: unknown): JsonValue {
  if (x === null || x === undefined) return null;
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'string' || typeof x === 'boolean') return x;
  if (Array.isArray(x)) return x.map(jsonOf);
  if (typeof x === 'object') {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(x)) if (v !== undefined) out[k] = jsonOf(v);
    return out;
  }
  return null;
}

export class TuneReportError extends Error {
  constructor(message: string) { super(message); this.name = 'TuneReportError'; }
}

function checkInput(r: TuneResult, o: TuneReportOptions): void {
  const bad = (what: string) => { throw new TuneReportError(`a tune report needs ${what}`); };
  if (!Array.isArray(r.trials) || r.trials.length === 0) bad('at least one trial');
  if (!r.trials.some((t) => t.id === r.winner)) bad(`its winner (trial ${r.winner}) among its trials`);
  if (!(Number.isInteger(o.budget) && o.budget >= 1)) bad(`a budget of whole trials ≥ 1, got ${o.budget}`);
  if (o.minutes !== undefined && !(o.minutes > 0 && Number.isFinite(o.minutes))) bad(`a budget in minutes above 0, got ${o.minutes}`);
  if (!Number.isInteger(o.testSet.splitSeed)) bad(`a whole split seed, got ${o.testSet.splitSeed}`);
  if (typeof o.testSet.label !== 'string' || typeof o.testSet.kind !== 'string') bad("the test set's label and kind");
  if (!Array.isArray(o.modes) || o.modes.some((m) => typeof m !== 'string')) bad('the modes as names');
  if (o.id !== undefined && !REPORT_ID.test(o.id)) bad(`an id of 6–64 letters, digits, _ or -, got ${JSON.stringify(o.id).slice(0, 80)}`);
  if (o.createdAt !== undefined && (!/^\d{4}-\d{2}-\d{2}/.test(o.createdAt) || Number.isNaN(Date.parse(o.createdAt)))) bad(`an ISO 8601 date, got ${JSON.stringify(o.createdAt).slice(0, 80)}`);
  if (!o.data.dataset) bad('a dataset');
}

/** Each trial's status: the winner, on the front, a finalist, or dropped on the way. */
const statusOf = (r: TuneResult, t: TuneTrial): TuneRowStatus =>
  (t.id === r.winner ? 'winner' : r.front.includes(t.id) ? 'front' : t.finalist ? 'finalist' : 'dropped');

/**
 * One row per setting tried, the best first (the last rung reached, then the score, then the trial's order): a
 * setting two trials came to keeps the first's row with the better status of the two.
 */
function trialRows(r: TuneResult): ReportRow[] {
  const byKey = new Map<string, { t: TuneTrial; status: TuneRowStatus }>();
  const rank = (s: TuneRowStatus) => TUNE_STATUSES.indexOf(s);
  for (const t of r.trials) {
    const key = tuneRowKey(t.mode, t.configHash);
    const status = statusOf(r, t);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { t, status });
    else if (rank(status) < rank(seen.status)) seen.status = status;
  }
  const score = (t: TuneTrial) => fin(t.score) ?? -Infinity;
  return [...byKey.entries()].sort(([, a], [, b]) => b.t.rung - a.t.rung || score(b.t) - score(a.t) || a.t.id - b.t.id).map(([key, { t, status }]) => ({
    key, group: TUNE_ROW_GROUP, question: t.label, answer: '', status,
    scores: { [r.objective]: fin(t.score), p95_ms: fin(t.p95Ms), mean_ms: fin(t.meanMs), queries: t.queries, rung: t.rung >= 0 ? t.rung + 1 : 0 },
    gold: {},
  }));
}

/** The held-out figures as summary figures: the objective per setting (n = held-out queries), and Δ for all but the current settings. */
function heldOutMetrics(r: TuneResult): SummaryMetric[] {
  const n = r.split.heldOut;
  const one = (f: HeldOutFigure): SummaryMetric[] => {
    const group = tuneGroup(f.trial, r.winner);
    const figure: SummaryMetric = { id: r.objective, group, value: fin(f.score), ci: finPair(f.ci), n };
    return f.trial === null ? [figure] : [figure, { id: TUNE_DELTA, group, value: fin(f.delta), ci: finPair(f.deltaCi), n }];
  };
  return [r.heldOut.current, ...r.heldOut.figures].flatMap(one);
}

const heldOutJson = (r: TuneResult, f: HeldOutFigure): TuneHeldOutJson => ({
  group: tuneGroup(f.trial, r.winner), label: f.label, trial: f.trial, score: fin(f.score), ci: finPair(f.ci),
  delta: fin(f.delta), deltaCi: finPair(f.deltaCi), p: fin(f.p), pHolm: fin(f.pHolm), wins: f.wins, ties: f.ties, losses: f.losses,
});

/** The report of tune `r` (see the module comment). Throws TuneReportError on options it cannot record. */
export async function tuneReport(r: TuneResult, o: TuneReportOptions): Promise<Report> {
  checkInput(r, o);
  const { testSet } = o;
  const config: Record<string, JsonValue> = {
    testSet: { label: testSet.label, kind: testSet.kind, ...(testSet.provenance ? { provenance: jsonOf(testSet.provenance) } : {}), splitSeed: testSet.splitSeed },
    budget: o.budget, ...(o.minutes !== undefined ? { minutes: o.minutes } : {}), modes: [...o.modes], objective: r.objective, base: jsonOf(o.base),
    // The space as it ran: each dimension's values (a narrowed one is another space) and the other embedders.
    space: {
      modes: [...r.space.modes], dimensions: Object.fromEntries(r.space.dimensions.map((d) => [d.key, jsonOf(d.values)])), size: r.space.size,
      ...(r.space.embedders ? { embedders: [...r.space.embedders] } : {}),
    },
    split: jsonOf(r.split),
  };
  // What decides the figures: the config and what they were measured on (data, models).
  const configHash = (await sha256Hex(JSON.stringify({ config, identity: jsonOf(r.identity) }))).slice(0, 24);
  const trialOf = (id: number) => r.trials.find((t) => t.id === id);
  const winner = trialOf(r.winner)!;
  const extra: Record<string, JsonValue> = {
    verdict: r.verdict,
    winner: { trial: winner.id, key: tuneRowKey(winner.mode, winner.configHash), label: winner.label, mode: r.winnerSettings.mode, settings: jsonOf(r.winnerSettings.settings) },
    front: r.front.flatMap((id) => { const t = trialOf(id); return t ? [{ trial: id, key: tuneRowKey(t.mode, t.configHash), label: t.label }] : []; }),
    rungs: jsonOf(r.rungs),
    identity: jsonOf(r.identity),
    learnedAlpha: jsonOf(r.learnedAlpha),
    agreement: jsonOf(r.agreement),
    adoptable: r.adoptable,
    testSetLabel: r.testSetLabel,
    heldOut: { queries: r.split.heldOut, current: heldOutJson(r, r.heldOut.current), figures: r.heldOut.figures.map((f) => heldOutJson(r, f)) },
  };
  const notes = [...r.notes, r.verdict, ...(r.learnedAlpha ? [r.learnedAlpha.verdict] : [])].map((n) => n.slice(0, NOTE_CHARS));
  return buildReport({
    kind: 'tune', evaluator: r.objective, config, configHash,
    data: { dataset: o.data.dataset, revision: o.data.revision, subsets: [], source: o.data.source, kb: o.data.kb },
    seed: r.split.seed, n: null, rows: trialRows(r), environment: o.environment,
    title: o.title ?? '', notes: '', draft: true, runNotes: notes, extra,
    metrics: heldOutMetrics(r), iterations: HELD_OUT_ITERATIONS,
    ...(o.createdAt !== undefined ? { createdAt: o.createdAt } : {}), ...(o.id !== undefined ? { id: o.id } : {}),
  });
}
