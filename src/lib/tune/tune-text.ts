/** A tune's result as the text `rag-lab tune` prints: the space and split, the finalists, the front, the held-out figures and the verdict. */
import { f4, signed } from './held-out.ts';
import type { TuneResult } from './tune-session.ts';
import { corpusText } from '../eval/retrieval/run-embedder.ts';
import type { RunIdentity } from '../eval/retrieval/retrieval-session.ts';

const ms = (x: number | null) => (x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(2));

/** The models a tune ran with, and what a corpus-trained embedder was trained on ("embedder X (trained on this dataset (scifact))"). */
export function modelsText(id: RunIdentity): string {
  const c = id.embedderCorpus ?? null;
  return [id.embedder ? `embedder ${id.embedder}${c ? ` (${corpusText(c)})` : ''}` : 'no embedder', ...(id.reranker ? [`reranker ${id.reranker}`] : [])].join(', ');
}

export function tuneTable(r: TuneResult): string {
  const id = r.identity;
  const models = modelsText(id);
  const m = r.objective;
  const rungs = r.rungs.map((g) => `${g.candidates} on ${g.queries}`).join(' → ');
  const a = r.agreement;
  const lines = [
    ...(r.testSetLabel ? [`test set: ${r.testSetLabel}`] : []),
    `tuned ${id.kb ?? id.dataset} (${models}): ${r.trials.length} trials of ${r.space.size.toLocaleString('en')} settings (modes ${r.space.modes.join(', ')}; ${r.space.dimensions.map((d) => d.key).join(', ')}${r.space.embedders ? `; other embedders ${r.space.embedders.join(', ')}` : ''})`,
    `split (seed ${r.split.seed}): ${r.split.tuning} tuning, ${r.split.heldOut} held-out queries; successive halving: ${rungs} queries`,
    '',
    `finalists on the ${r.rungs.at(-1)?.queries ?? 0} tuning queries (* on the front of ${m} against p95 latency):`,
    `  ${'#'.padStart(3)}  ${m.padStart(8)}  ${'p95_ms'.padStart(8)}  setting`,
    ...r.trials.filter((t) => t.finalist).sort((a, b) => b.score - a.score || a.id - b.id)
      .map((t) => `${r.front.includes(t.id) ? '*' : ' '} ${String(t.id).padStart(3)}  ${f4(t.score).padStart(8)}  ${ms(t.p95Ms).padStart(8)}  ${t.label}${t.id === r.winner ? '   (winner)' : ''}`),
    '',
    `held out (${r.split.heldOut} queries), against the current settings (${r.heldOut.current.label}: ${m} ${f4(r.heldOut.current.score)}):`,
    ...r.heldOut.figures.map((f) => `  #${f.trial} ${f.label}: ${f4(f.score)}, Δ ${signed(f.delta)}${f.deltaCi ? ` [${signed(f.deltaCi[0])}, ${signed(f.deltaCi[1])}]` : ''}, Holm p ${f.pHolm === null ? 'n/a' : f.pHolm.toFixed(3)}, W/T/L ${f.wins}/${f.ties}/${f.losses}`),
    '',
    r.verdict,
    ...(r.learnedAlpha ? ['', r.learnedAlpha.verdict] : []),
    ...(a ? ['', `agreement of ${a.other} with ${a.reference} over the ${a.settings} trials: Kendall τ ${a.tau === null ? 'n/a' : a.tau.toFixed(2)}, regret ${a.regret.toFixed(4)} (its top: ${a.topOtherLabel}; the reference's: ${a.topReferenceLabel}): ${a.passes ? 'passes' : 'does not pass'} (τ ≥ 0.9 and regret ≤ 0.01)`] : []),
    ...(r.adoptable ? [] : ['', 'The winner is not for adopting: the test set is pseudo-queries and no agreement check with labelled queries passed.']),
    ...r.notes.map((n) => `note: ${n}`),
  ];
  return lines.join('\n');
}
