/**
 * What the Tune panel shows, as plain data: the progress line, the trials' table rows, the front chart's traces
 * (objective against p95 latency; hover: the setting and its figures) and Adopt's diff lines. Pure: the panel renders it.
 */
import { etaText } from '../../lib/eval/core/eta.ts';
import { f4 } from '../../lib/tune/held-out.ts';
import type { FrontInput, TuneResult } from '../../lib/tune/tune-session.ts';
import type { AdoptChange, TuneTabProgress } from '../../lib/tune/tune-tab-types.ts';
import { chartLayout } from '../shared/plotly.ts';
import { TUNED } from '../../lib/tune/space.ts';

const ms = (x: number | null) => (x === null || !Number.isFinite(x) ? 'n/a' : `${x.toFixed(1)} ms`);

export function progressText(p: TuneTabProgress): string {
  if (p.phase === 'embed') return `${p.embedder}: ${p.done} of ${p.total} items embedded · ${etaText(p.etaMs)}`;
  if (p.phase === 'write') return `questions: ${p.done} of ${p.total} chunks (${p.written} written, ${p.dropped} dropped, ${p.cached} from the cache) · ${etaText(p.etaMs)}`;
  return `rung ${p.rung + 1} of ${p.rungs}: trial ${p.done} of ${p.total} on ${p.queries} tuning queries · ${etaText(p.etaMs)} for this rung`;
}

/** What a test set's list line says of where it came from (the model, prompt version, seed, file, drop and cache counts). */
export function provenanceText(provenance: Record<string, string | number>): string {
  const shown = ['model', 'promptVersion', 'seed', 'file', 'junk', 'copied', 'unanswerable', 'duplicate', 'cached'];
  return Object.entries(provenance).filter(([k]) => shown.includes(k)).map(([k, v]) => `${k} ${v}`).join(', ');
}

export interface TrialRow { id: number; label: string; score: string; queries: number; rung: number; p95: string; finalist: boolean; front: boolean; winner: boolean; hash: string }

/** Every trial, the best first (the last rung reached, then the score). */
export function trialRows(r: TuneResult): TrialRow[] {
  return [...r.trials].sort((a, b) => b.rung - a.rung || b.score - a.score).map((t) => ({
    id: t.id, label: t.label, score: f4(t.score), queries: t.queries, rung: t.rung + 1, p95: ms(t.p95Ms),
    finalist: t.finalist, front: r.front.includes(t.id), winner: t.id === r.winner, hash: t.configHash,
  }));
}

/** The finalists and the Pareto front, objective against p95 end-to-end latency; the winner marked. */
export function frontChart(r: FrontInput) {
  const point = (ids: number[]) => {
    const ts = ids.map((i) => r.trials.find((t) => t.id === i)!).filter((t) => t && t.p95Ms !== null);
    return {
      x: ts.map((t) => t.p95Ms!), y: ts.map((t) => t.score),
      text: ts.map((t) => `${t.label}<br>${r.objective} ${f4(t.score)} on ${t.queries} tuning queries<br>p95 ${ms(t.p95Ms)}<br>config ${t.configHash.slice(0, 12)}`),
      hovertemplate: '%{text}<extra></extra>',
    };
  };
  const finalists = r.trials.filter((t) => t.finalist && !r.front.includes(t.id)).map((t) => t.id);
  const p95 = (id: number) => r.trials.find((t) => t.id === id)?.p95Ms ?? 0;
  const front = [...r.front].sort((a, b) => p95(a) - p95(b));
  const traces = [
    { type: 'scatter', mode: 'markers', name: 'finalists', marker: { size: 8, opacity: 0.6 }, ...point(finalists) },
    { type: 'scatter', mode: 'lines+markers', name: 'Pareto front', marker: { size: 10 }, ...point(front) },
    { type: 'scatter', mode: 'markers', name: 'winner', marker: { size: 16, symbol: 'star' }, ...point([r.winner]) },
  ];
  return { traces, layout: chartLayout(`${r.objective} against p95 latency (tuning queries)`, { xaxis: { title: { text: 'p95 end-to-end latency (ms)' } }, yaxis: { title: { text: r.objective } } }) };
}

export interface SpaceField { flag: string; describe: string; defaults: string; where: string }

/**
 * The space's dimensions as the panel edits them, read from the declarations (tune/space.ts TUNED): each flag, its
 * default values and the modes it changes; the rebuilding ones (chunking, analyzer) only when the tune may rebuild.
 */
export function spaceFields(rebuild: boolean): SpaceField[] {
  return TUNED.filter(([, s]) => rebuild || !s.tune!.rebuild).map(([key, s]) => ({
    flag: s.flag ?? key, describe: s.describe ?? key,
    defaults: s.tune!.values.map((x) => (x === null ? 'auto' : String(x))).join(', '),
    where: `${s.tune!.modes ? s.tune!.modes.join(', ') : 'every mode'}${s.tune!.finalists ? '; tried beside the finalists' : ''}${s.tune!.rebuild ? '; builds again' : ''}`,
  }));
}

const shown = (x: string | number | null) => (x === null ? "the knowledge base's / default" : String(x));

/** Adopt's diff, a line per changed Search setting. */
export function adoptLines(changes: readonly AdoptChange[]): string[] {
  return changes.map((c) => `${c.setting}: ${shown(c.from)} → ${shown(c.to)} (${c.label})`);
}
