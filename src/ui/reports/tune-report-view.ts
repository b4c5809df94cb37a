/**
 * What the report view shows of a tune report (kind 'tune', src/lib/reports/tune-extra.ts), as plain data: its
 * verdict, the held-out table (the current settings, the winner and the front: the objective with its 95% interval,
 * Δ against the current settings with its paired interval, Holm's p and wins / ties / losses), the learned α's and
 * the agreement check's lines; the header's N in words and the trials' digits. Its rows (the trials) are the generic
 * rows table's (report-view.ts `rowColumns`); the front chart's input read back from those rows (`tuneFrontOf`).
 */
import type { FrontInput } from '../../lib/tune/tune-session.ts';
import type { JsonValue, Report } from '../../lib/reports/format.ts';
import { metricDef } from '../../lib/reports/metrics.ts';
import { agreementText, tuneSummary } from '../../lib/reports/tune-extra.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const count = (x: JsonValue | undefined): number | null => (typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : null);

/** The header's N: "6 trials · 8 tuning and 4 held-out queries (split seed 0)". */
export function tuneSampleText(r: Report, trials: number): string {
  const split = r.config['split'];
  const s = split !== null && typeof split === 'object' && !Array.isArray(split) ? split : {};
  const [tuning, heldOut] = [count(s['tuning']), count(s['heldOut'])];
  const queries = tuning !== null && heldOut !== null ? ` · ${tuning} tuning and ${plural(heldOut, 'held-out query', 'held-out queries')} (split seed ${r.seed})` : '';
  return `${plural(trials, 'trial')}${queries}`;
}

/** Decimals of a trial's figure: the objective 4, latency 1, counts (queries, rung) 0. */
export const tuneCellDigits = (key: string): number => (key === 'queries' || key === 'rung' ? 0 : key.endsWith('_ms') ? 1 : 4);

export interface TuneHeldOutView {
  group: string;
  /** 'current settings', 'winner', 'front (trial 3)'. */
  role: string;
  label: string;
  value: string;
  ci: string;
  n: number;
  /** Empty for the current settings. */
  delta: string;
  deltaCi: string;
  pHolm: string;
  wtl: string;
}

export interface TuneReportView {
  objective: string;
  verdict: string | null;
  heldOut: TuneHeldOutView[];
  learnedAlpha: string | null;
  agreement: string | null;
  /** Why the winner is not for adopting (pseudo-queries without a passing agreement check), else null. */
  notAdoptable: string | null;
  /** The run notes besides the verdicts shown above them. */
  notes: string[];
}

const fixed = (x: number | null, d: number) => (x === null ? 'N/A' : x.toFixed(d));
const signed = (x: number | null, d: number) => (x === null ? 'N/A' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(d)}`);
const interval = (c: [number, number] | null, d: number, f = fixed) => (c ? `[${f(c[0], d)}, ${f(c[1], d)}]` : 'N/A');

/** The tune part of a report's view; null for another kind. */
export function tuneReportView(r: Report): TuneReportView | null {
  const t = tuneSummary(r);
  if (!t) return null;
  const d = metricDef(r.kind, t.objective)?.digits ?? 4;
  return {
    objective: t.objective,
    verdict: t.verdict,
    heldOut: t.heldOut.map((h) => {
      const current = h.group === 'current';
      return {
        group: h.group, role: current ? 'current settings' : h.group === 'winner' ? 'winner' : `front (trial ${h.trial ?? h.group.replace(/^front #/, '')})`,
        label: h.label, value: fixed(h.value, d), ci: interval(h.ci, d), n: h.n,
        delta: current ? '' : signed(h.delta, d), deltaCi: current ? '' : interval(h.deltaCi, d, signed),
        pHolm: current ? '' : h.pHolm === null ? 'N/A' : h.pHolm < 0.001 ? '< 0.001' : h.pHolm.toFixed(3),
        wtl: h.wtl ? `${h.wtl.wins} / ${h.wtl.ties} / ${h.wtl.losses}` : '',
      };
    }),
    learnedAlpha: t.learnedAlpha,
    agreement: t.agreement ? `Agreement of the test sets: ${agreementText(t.agreement)}.` : null,
    notAdoptable: t.adoptable === false ? `Not for adopting: the test set is ${t.testSetLabel ?? 'not labelled queries'}, and no agreement check with labelled queries passed.` : null,
    notes: r.summary.notes.filter((n) => n !== t.verdict && n !== t.learnedAlpha),
  };
}

/**
 * The front chart's input read back from a tune report's rows (a row per trial: its status, its figures on the tuning
 * queries it reached); null for another kind or a report without its winner's row (a truncated share link).
 */
export function tuneFrontOf(r: Report): FrontInput | null {
  const t = tuneSummary(r);
  if (!t) return null;
  const num = (x: number | null | undefined) => (typeof x === 'number' ? x : null);
  const trials = r.rows.map((row, id) => ({
    id, label: row.question, score: num(row.scores[t.objective]) ?? Number.NaN, queries: num(row.scores['queries']) ?? 0,
    p95Ms: num(row.scores['p95_ms']), configHash: row.key.slice(row.key.lastIndexOf(':') + 1), finalist: row.status !== 'dropped', status: row.status,
  }));
  const winner = trials.find((x) => x.status === 'winner');
  if (!winner) return null;
  return { objective: t.objective as FrontInput['objective'], trials, winner: winner.id, front: trials.filter((x) => x.status === 'winner' || x.status === 'front').map((x) => x.id) };
}
