/**
 * A tune: retrieval settings searched on a test set of one knowledge base (`rag-lab tune`; the Tune panel next).
 * The judged queries split into tuning and held-out parts (split.ts); candidates are sampled from the space of the
 * declared settings (space.ts); successive halving runs them over the tuning queries (halving.ts). Every trial is a
 * retrieval run of its settings: its config and config hash as eval-beir and the Benchmark tab make them
 * (`retrievalRunConfig`), its rows through the row cache (a repeated tune computes nothing). The finalists' Pareto
 * front of the objective against p95 end-to-end latency (pareto.ts); the winner is the best finalist on the tuning
 * queries, and it and the front are measured on the held-out queries against the current settings (held-out.ts).
 * BM25 trials share the knowledge base's postings (`KnowledgeBase.withBm25`); each query is embedded once.
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { ReportRow } from '../reports/format.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { MODES, modeAvailability, type RetrievalMode } from '../retrieval/modes.ts';
import { capabilitiesOf, type SearchModels } from '../retrieval/search.ts';
import { percentile, mean } from '../stats/summary.ts';
import type { IR_METRIC_IDS } from '../stats/ir-metrics.ts';

export type IrMetricId = (typeof IR_METRIC_IDS)[number];
import { runRetrievalBenchmark, sharedEncoder, type RetrievalRowCache } from '../eval/retrieval/retrieval-bench.ts';
import { analyzerOf, retrievalRunConfig, runSearchOptions, type RetrievalRunSettings, type RunIdentity } from '../eval/retrieval/retrieval-session.ts';
import { runFromGiven } from '../eval/retrieval/run-settings-map.ts';
import { corpusText } from '../eval/retrieval/run-embedder.ts';
import { flatOfRun, RUN_SETTINGS, type RunFlat, type RunFlatKey } from '../settings/retrieval-run.ts';
import { HALVING_DEFAULTS, halvingRungs, successiveHalving, trialsWithin, type HalvingOptions, type Rung } from './halving.ts';
import { heldOutFigures, verdictSentence, type HeldOutFigure } from './held-out.ts';
import { ALPHA_GRID, learnedAlpha, type LearnedAlphaResult } from './learned-alpha.ts';
import { agreementOf, type Agreement } from './agreement.ts';
import { paretoFront } from './pareto.ts';
import { PSEUDO_LABEL } from './pseudo-queries.ts';
import { finalistVariants, sampleCandidates, spaceSize, tuneDimensions, type SpaceOptions, type TuneCandidate, type TuneDimension } from './space.ts';
import { DEFAULT_HELD_OUT, tuneSplit } from './split.ts';
import { indexDimensions, IndexVariants } from './index-variants.ts';
import { testSetQueries, TuneError } from './test-set-check.ts';
import { denseCopy, type TuneEmbedder } from './tune-embedder.ts';

export { denseCopy, testSetQueries, TuneError, type TuneEmbedder };

export interface TuneSessionInput {
  kb: KnowledgeBase;
  queries: readonly BeirQuery[];
  qrels: Qrels;
  /** The current settings: the base of every candidate, and what the winner is compared with. */
  base: RetrievalRunSettings;
  /** The current mode. Default 'sparse' (the Search tab's default). */
  current?: RetrievalMode;
  identity: RunIdentity;
  models: SearchModels;
  /** The modes the space may use (those that cannot run with these models are left out, with a note). */
  modes: readonly RetrievalMode[];
  /** Trials (candidates sampled); with `minutes`, the most. */
  budget: number;
  /** A budget in time: as many trials as fit (halving.ts trialsWithin), at most `budget`. */
  minutes?: number;
  seed?: number;
  heldOut?: number;
  objective?: IrMetricId;
  halving?: Partial<HalvingOptions>;
  space?: SpaceOptions;
  /** The test set is pseudo-queries (pseudo-queries.ts): the result is labelled, and adoptable only when `agreeWith` agrees. */
  pseudo?: boolean;
  /** A second test set of the same knowledge base: every trial is scored on both and their rankings compared (agreement.ts). */
  agreeWith?: { label: string; queries: readonly BeirQuery[]; qrels: Qrels; pseudo?: boolean; reference?: boolean };
  /**
   * The knowledge base of other chunking or BM25 analyzer (the same documents built again, its dense side attached), for the space's
   * rebuilding dimensions (`space.rebuild`); each chunking is built once.
   */
  rebuild?: (s: Pick<RetrievalRunSettings, 'chunking' | 'analyzer'>) => Promise<KnowledgeBase>;
  /**
   * Other embedders as a dimension (the current one is the identity's): in the modes with a dense side a trial may run
   * with one of these, on the knowledge base it asks for with that embedder's dense side (attached once per build).
   */
  embedders?: readonly TuneEmbedder[];
  /** Fit and measure the learned per-query α (learned-alpha.ts) when the fixed hybrid can run. Default true. */
  learnedAlpha?: boolean;
  cache?: RetrievalRowCache | null;
  onProgress?: (p: TuneProgress) => void;
  signal?: AbortSignal;
}

/** Rung `rung` of `rungs`: trial `done` of `total` in it, on `queries` tuning queries. */
export interface TuneProgress { rung: number; rungs: number; done: number; total: number; queries: number }

export interface TuneTrial {
  id: number;
  mode: RetrievalMode;
  /** The tuned settings' values (its dimensions). */
  values: TuneCandidate['values'];
  /** `rag-lab eval-beir` flags that run it: the mode and each value that differs from the current settings. */
  label: string;
  /** Another embedder than the current one (its `--embedder`); absent: the current one. */
  embedder?: string;
  configHash: string;
  /** The last rung it ran in, on how many tuning queries, and its mean objective there. */
  rung: number;
  queries: number;
  score: number;
  /** End-to-end latency over those queries (ms). */
  meanMs: number | null;
  p95Ms: number | null;
  finalist: boolean;
}

export interface TuneResult {
  /** What every figure here was measured on: the data (its content key, dataset, knowledge base) and the models. */
  identity: RunIdentity;
  objective: IrMetricId;
  split: { seed: number; heldOutFraction: number; tuning: number; heldOut: number };
  /** `embedders`: the other embedders (their `--embedder`), when the tune had any. */
  space: { dimensions: TuneDimension[]; modes: RetrievalMode[]; size: number; embedders?: string[] };
  rungs: Rung[];
  trials: TuneTrial[];
  /** Trial ids on the Pareto front of the finalists (objective up, p95 latency down), cheapest first. */
  front: number[];
  winner: number;
  /** The winner's settings in full (flat, as eval-beir's flags and the run config name them), its mode, and its embedder when it is not the current one. */
  winnerSettings: { mode: RetrievalMode; settings: RunFlat; embedder?: string };
  heldOut: { current: HeldOutFigure; figures: HeldOutFigure[] };
  verdict: string;
  /** The learned per-query α against the best fixed α and RRF on the held-out queries; null when the fixed hybrid cannot run. */
  learnedAlpha: LearnedAlphaResult | null;
  /** The test set's label when it is not labelled queries (PSEUDO_LABEL), else null. */
  testSetLabel: string | null;
  /** Every trial scored on all queries of both test sets; the reference is the labelled one. Null without `agreeWith`. */
  agreement: (Agreement & { reference: string; other: string; topReferenceLabel: string; topOtherLabel: string }) | null;
  /** Whether the winner may be adopted: always on labelled queries; on pseudo-queries only when the agreement check passes. */
  adoptable: boolean;
  notes: string[];
}

/** What a front chart draws: a tune's result, or the same read back from a tune report's rows. */
export type FrontInput = Pick<TuneResult, 'objective' | 'front' | 'winner'> & { trials: Array<Pick<TuneTrial, 'id' | 'label' | 'score' | 'queries' | 'p95Ms' | 'configHash' | 'finalist'>> };

/** The flags of the values that differ from the current settings, after the mode. */
function labelOf(c: TuneCandidate, base: RunFlat, embedders: readonly TuneEmbedder[] = []): string {
  const parts = Object.entries(c.values).filter(([k, x]) => x !== base[k as RunFlatKey]).map(([k, x]) => {
    const flag = RUN_SETTINGS[k as RunFlatKey].flag;
    return typeof x === 'boolean' ? `--${x ? '' : 'no-'}${flag}` : `--${flag} ${x === null ? 'auto' : String(x)}`;
  });
  return [c.mode, ...(c.embedder === undefined ? [] : [`--embedder ${embedders[c.embedder]!.flag}`]), ...parts].join(' ');
}

export async function runTuneSession(input: TuneSessionInput): Promise<TuneResult> {
  // The vector index kinds its trials ask for, built once each and freed when the tune ends.
  const indexes = new IndexVariants(input.signal);
  try {
    const result = await tuneWith(input, indexes);
    result.notes.push(...indexes.notes);
    return result;
  } finally {
    indexes.dispose();
  }
}

async function tuneWith(input: TuneSessionInput, indexes: IndexVariants): Promise<TuneResult> {
  const { qrels, signal } = input;
  const objective = input.objective ?? 'ndcg@10';
  const seed = input.seed ?? 0;
  // The knowledge base's own BM25 and chunking (an artifact's may differ from the flags' defaults) are the current ones.
  const ownAnalyzer = analyzerOf(input.kb);
  const base: RetrievalRunSettings = { ...input.base, bm25: { ...input.kb.options.bm25 }, chunking: input.kb.options.chunking, analyzer: ownAnalyzer === 'custom' ? input.base.analyzer : ownAnalyzer };
  const baseFlat = flatOfRun(base);
  const current = input.current ?? 'sparse';
  // Each query text embedded once for every trial; a trial's row is charged the time that one embedding took.
  const once = sharedEncoder(input.models.encoder);
  const models: SearchModels = { ...input.models, encoder: once };
  // Each other embedder's: its own encoder, each query embedded once by it.
  const embedders = input.embedders ?? [];
  const withEmbedder = embedders.map((e) => { const shared = sharedEncoder(e.encoder); return { once: shared, models: { ...models, encoder: shared } as SearchModels }; });
  const modelsOf = (e: number | undefined) => (e === undefined ? { once, models } : withEmbedder[e]!);
  const caps = capabilitiesOf(input.kb, models);
  const notes: string[] = [];
  const modes = input.modes.filter((m) => {
    const a = modeAvailability(m, caps);
    if (!a.available) notes.push(`${m} is not in the space: ${a.reason}`);
    return a.available;
  });
  const currentAvailability = modeAvailability(current, caps);
  if (!currentAvailability.available) throw new TuneError(`the current mode ${current} cannot run here: ${currentAvailability.reason}`);
  const dims = indexDimensions(tuneDimensions(input.space), base.index, input.kb, notes);
  // A dimension of a mode in this space.
  const inSpace = (d: TuneDimension) => d.modes === null || modes.some((m) => d.modes!.includes(m));
  const embedderDim = embedders.length ? { count: embedders.length, modes: modes.filter((m) => MODES[m].needsDense) } : undefined;
  const size = spaceSize(modes, dims, baseFlat, embedderDim);
  // Each named with what it was trained on, when it is a corpus-trained model (a model belongs to its corpus).
  const embedderText = (e: TuneEmbedder) => `${e.flag}${e.identity.embedderCorpus ? ` (${corpusText(e.identity.embedderCorpus)})` : ''}`;
  if (embedders.length) notes.push(embedderDim!.modes.length ? `other embedders in the space (${embedderDim!.modes.join(', ')}): ${embedders.map(embedderText).join(', ')}` : 'the other embedders are not in the space: no mode here has a dense side');

  const judged = testSetQueries(input.queries, qrels, input.kb, notes);
  const split = tuneSplit(judged.map((q) => q.id), seed, input.heldOut ?? DEFAULT_HELD_OUT);
  if (split.tuning.length === 0 || split.heldOut.length === 0) throw new TuneError(`${judged.length} judged queries cannot be split into tuning and held-out parts`);
  const byId = new Map(judged.map((q) => [q.id, q]));
  const tuning = split.tuning.map((id) => byId.get(id)!);
  const heldOut = split.heldOut.map((id) => byId.get(id)!);

  // The knowledge base of each chunking (built again: `rebuild`) and BM25 (k1, b): its postings under other parameters.
  const buildKey = (s: Pick<RetrievalRunSettings, 'chunking' | 'analyzer'>) => JSON.stringify([s.chunking === false ? false : { size: s.chunking.chunkSize, overlap: s.chunking.overlap }, s.analyzer]);
  const built = new Map<string, Promise<KnowledgeBase>>([[buildKey(base), Promise.resolve(input.kb)]]);
  const kbs = new Map<string, KnowledgeBase>([[`${buildKey(base)}|${base.bm25.k1},${base.bm25.b}|${base.index}|`, input.kb]]);
  // Each build with each other embedder's dense side, attached once.
  const embedded = new Map<string, Promise<KnowledgeBase>>();
  const kbOf = async (s: RetrievalRunSettings, e?: number) => {
    const ck = buildKey(s), key = `${ck}|${s.bm25.k1},${s.bm25.b}|${s.index}|${e ?? ''}`;
    let kb = kbs.get(key);
    if (!kb) {
      if (!built.has(ck)) {
        if (!input.rebuild) throw new TuneError(`a trial asks for other chunking or analyzer (${ck}) and this tune cannot build the knowledge base again`);
        built.set(ck, input.rebuild(s));
      }
      let chunked = await built.get(ck)!;
      if (e !== undefined) {
        if (!embedded.has(`${ck}|${e}`)) embedded.set(`${ck}|${e}`, embedders[e]!.attach(chunked));
        chunked = await embedded.get(`${ck}|${e}`)!;
      }
      const indexed = await indexes.of(chunked, `${ck}|${e ?? ''}`, s.index);
      kb = s.bm25.k1 === indexed.options.bm25.k1 && s.bm25.b === indexed.options.bm25.b ? indexed : indexed.withBm25(s.bm25);
      kbs.set(key, kb);
    }
    return kb;
  };
  interface Prepared { c: TuneCandidate; s: RetrievalRunSettings; kb: KnowledgeBase; configHash: string; candidateK: number; rows: Map<string, { score: number; ms: number }> }
  // One run per (mode, config hash): two candidates that come to the same settings (the current one, α 0.5 of the
  // learned α's grid) share their rows.
  const byConfig = new Map<string, Prepared>();
  const prepare = async (c: TuneCandidate): Promise<Prepared> => {
    const s = runFromGiven({ ...baseFlat, ...c.values } as Partial<RunFlat>);
    const kb = await kbOf(s, c.embedder);
    // The models its mode uses, as a run of that mode alone names them (eval-beir --modes <mode> gets the same hash).
    const m = MODES[c.mode], id = c.embedder === undefined ? input.identity : { ...input.identity, ...embedders[c.embedder]!.identity };
    const identity: RunIdentity = { ...id, embedder: m.needsDense ? id.embedder : null, embedderCorpus: m.needsDense ? id.embedderCorpus ?? null : null, reranker: m.needsReranker ? id.reranker : null };
    const { configHash, candidateK } = await retrievalRunConfig({ ...s, predictors: false }, kb, identity, { modes: [c.mode] });
    const key = `${c.mode}:${configHash}`;
    if (!byConfig.has(key)) byConfig.set(key, { c, s, kb, configHash, candidateK, rows: new Map() });
    return byConfig.get(key)!;
  };
  const currentCandidate: TuneCandidate = { mode: current, values: {} };
  const prefix = (mode: string) => `${mode}:`;
  const latencyOf = (t: Prepared, row: ReportRow, q: BeirQuery): number => {
    const total = row.scores['total_ms'] ?? NaN;
    return MODES[t.c.mode].needsDense ? total - (row.scores['ms.embed'] ?? 0) + (modelsOf(t.c.embedder).once?.msOf(q.text) ?? 0) : total;
  };
  /**
   * The trial's rows of these queries (computed when missing), in their order. Another test set (the agreement
   * check's) gives its judgements and a row store of its own, and no row cache: its query ids may be this one's.
   */
  const rowsOf = async (t: Prepared, qs: readonly BeirQuery[], other?: { qrels: Qrels; rows: Prepared['rows'] }) => {
    const rows = other?.rows ?? t.rows;
    const missing = qs.filter((q) => !rows.has(q.id));
    if (missing.length) {
      const run = await runRetrievalBenchmark({
        kb: t.kb, queries: missing, qrels: other?.qrels ?? qrels, dataset: input.identity.dataset, modes: [t.c.mode], models: modelsOf(t.c.embedder).models, depth: t.s.depth,
        search: runSearchOptions(t.s, t.candidateK), predictors: false, configHash: t.configHash,
        ...(input.cache !== undefined && !other ? { cache: input.cache } : {}), ...(signal ? { signal } : {}),
      });
      const texts = new Map(missing.map((q) => [q.id, q]));
      for (const row of run.rows) {
        const id = row.key.slice(prefix(t.c.mode).length);
        rows.set(id, { score: row.scores[objective] ?? NaN, ms: latencyOf(t, row, texts.get(id)!) });
      }
    }
    return qs.map((q) => rows.get(q.id) ?? { score: NaN, ms: NaN });
  };

  const h: HalvingOptions = { ...HALVING_DEFAULTS, ...input.halving };
  const currentPrepared = await prepare(currentCandidate);
  let budget = input.budget;
  if (input.minutes !== undefined) {
    // A budget in time: the trials whose plan fits it at the current settings' end-to-end latency on the first rung's
    // queries (as recorded: a cached row keeps the time it took), a lower bound for dense and rerank trials.
    const pilot = tuning.slice(0, Math.min(h.minQueries, tuning.length));
    const msPerQuery = mean((await rowsOf(currentPrepared, pilot)).map((r) => r.ms).filter(Number.isFinite));
    budget = trialsWithin(input.minutes * 60_000, msPerQuery, tuning.length, input.budget, h);
    notes.push(`a budget of ${input.minutes} min: ${budget} trials (the current settings took ${msPerQuery.toFixed(1)} ms a query on ${pilot.length} tuning queries; dense and rerank trials take longer)`);
  }
  const candidates = sampleCandidates(modes, dims, baseFlat, budget, seed, embedderDim);
  if (budget > candidates.length) notes.push(`the budget of ${budget} trials is more than the space holds: ${candidates.length} trials ran`);
  const prepared: Prepared[] = [];
  for (const c of candidates) prepared.push(await prepare(c));
  // The dimensions tried beside the finalists (the vector index kind), one more rung when any applies to a mode here.
  const late = dims.filter((d) => d.finalists && inSpace(d));
  const rungCount = halvingRungs(prepared.length, tuning.length, h).length + (late.length ? 1 : 0);
  let done = 0, rungTotal = 0, rungIndex = 0, rungQueries = 0;
  const result = await successiveHalving(prepared.length, tuning.length, async (i, q) => {
    signal?.throwIfAborted();
    const rows = await rowsOf(prepared[i]!, tuning.slice(0, q));
    input.onProgress?.({ rung: rungIndex, rungs: rungCount, done: ++done, total: rungTotal, queries: rungQueries });
    return mean(rows.map((r) => r.score));
  }, h, (r, rung) => { rungIndex = r; rungTotal = rung.candidates; rungQueries = rung.queries; done = 0; });

  const lastRung = result.rungs.length - 1, lastQueries = result.rungs[lastRung]!.queries;
  const reached = [...result.reached], finalists = [...result.finalists];
  const variants = finalistVariants(result.finalists.map((i) => candidates[i]!), late, baseFlat, candidates);
  if (variants.length) {
    // Each on the last rung's queries, as a finalist (its rows and latency beside the finalist it varies).
    rungIndex = rungCount - 1; rungTotal = variants.length; rungQueries = lastQueries; done = 0;
    for (const { c } of variants) {
      signal?.throwIfAborted();
      const id = candidates.push(c) - 1;
      prepared.push(await prepare(c));
      reached[id] = { rung: lastRung, score: mean((await rowsOf(prepared[id]!, tuning.slice(0, lastQueries))).map((r) => r.score)) };
      finalists.push(id);
      input.onProgress?.({ rung: rungIndex, rungs: rungCount, done: ++done, total: rungTotal, queries: rungQueries });
    }
    notes.push(`${late.map((d) => RUN_SETTINGS[d.key].flag ?? d.key).join(', ')} tried beside the ${new Set(variants.map((x) => x.of)).size} finalists it applies to: ${variants.length} more trials on ${lastQueries} tuning queries`);
  }
  const trials: TuneTrial[] = prepared.map((t, id) => {
    // The candidate's own values (a run shared with another candidate of the same settings keeps the first's).
    const c = candidates[id]!, at = reached[id]!;
    const seen = at.rung >= 0 ? tuning.slice(0, result.rungs[at.rung]!.queries) : [];
    const rows = seen.map((q) => t.rows.get(q.id)?.ms ?? NaN).filter(Number.isFinite);
    return {
      id, mode: c.mode, values: c.values, label: labelOf(c, baseFlat, embedders), ...(c.embedder === undefined ? {} : { embedder: embedders[c.embedder]!.flag }), configHash: t.configHash, rung: at.rung,
      queries: at.rung >= 0 ? result.rungs[at.rung]!.queries : 0, score: at.score,
      meanMs: rows.length ? mean(rows) : null, p95Ms: rows.length ? percentile(rows, 95) : null, finalist: at.rung === lastRung,
    };
  });
  const front = paretoFront(finalists.map((i) => ({ quality: trials[i]!.score, cost: trials[i]!.p95Ms ?? NaN }))).map((k) => finalists[k]!);
  // The halving's best finalist: a variant beside it (another index kind) shows what that costs on the front, but its
  // score moves by the index's approximation only (int8 codes, graph recall), so it is not what picks the winner.
  const winner = result.finalists[0]!;

  // The held-out figures: the current settings, the winner and the front.
  signal?.throwIfAborted();
  const shown = [...new Set([winner, ...front])];
  const currentScores = (await rowsOf(currentPrepared, heldOut)).map((r) => r.score);
  const others = [];
  for (const i of shown) others.push({ label: trials[i]!.label, trial: i, scores: (await rowsOf(prepared[i]!, heldOut)).map((r) => r.score), inFront: front.includes(i) });
  const figures = heldOutFigures({ label: labelOf(currentCandidate, baseFlat), scores: currentScores }, others, { seed });
  const winnerIsCurrent = prepared[winner]!.configHash === currentPrepared.configHash && trials[winner]!.mode === current;
  const winnerFigure = figures.others.find((f) => f.trial === winner) ?? null;
  const learned = input.learnedAlpha === false || !modes.includes('hybrid_fixed') || !modeAvailability('rrf', caps).available ? null : await (async () => {
    signal?.throwIfAborted();
    const all = [...tuning, ...heldOut];
    const scoresOf = async (c: TuneCandidate) => new Map((await rowsOf(await prepare(c), all)).map((r, i) => [all[i]!.id, r.score]));
    const atAlpha = [];
    for (const alpha of ALPHA_GRID) atAlpha.push(await scoresOf({ mode: 'hybrid_fixed', values: { alpha } }));
    // The predictors of each query, from one run that computes them (its rows are keyed apart: predictors enter the hash).
    const withPredictors = { ...base, predictors: true };
    const { configHash, candidateK } = await retrievalRunConfig(withPredictors, input.kb, input.identity, { modes: ['hybrid_fixed'] });
    const run = await runRetrievalBenchmark({
      kb: input.kb, queries: all, qrels, dataset: input.identity.dataset, modes: ['hybrid_fixed'], models, depth: base.depth,
      search: runSearchOptions(base, candidateK), predictors: true, configHash, ...(input.cache !== undefined ? { cache: input.cache } : {}), ...(signal ? { signal } : {}),
    });
    const predictors = new Map(run.rows.map((row) => [row.key.slice(prefix('hybrid_fixed').length), Object.fromEntries(Object.entries(row.scores).filter(([k]) => k.startsWith('qpp.')))]));
    return learnedAlpha({ tuning: split.tuning, heldOut: split.heldOut, atAlpha, rrf: await scoresOf({ mode: 'rrf', values: {} }), predictors, metric: objective, seed });
  })();
  // The agreement check: every trial on all judged queries of both test sets (rows kept apart per set).
  const agreement = !input.agreeWith ? null : await (async () => {
    const other = input.agreeWith!;
    // Checked as this test set is; its notes named after it.
    const otherNotes: string[] = [];
    const otherJudged = testSetQueries(other.queries, other.qrels, input.kb, otherNotes);
    notes.push(...otherNotes.map((n) => `${other.label}: ${n}`));
    const mine: number[] = [], theirs: number[] = [], otherRows = new Map<Prepared, Prepared['rows']>();
    for (const t of prepared) {
      signal?.throwIfAborted();
      if (!otherRows.has(t)) otherRows.set(t, new Map());
      mine.push(mean((await rowsOf(t, judged)).map((r) => r.score)));
      theirs.push(mean((await rowsOf(t, otherJudged, { qrels: other.qrels, rows: otherRows.get(t)! })).map((r) => r.score)));
    }
    // The labelled set is the reference (a tune on pseudo-queries is checked against the labelled one; `reference`: the
    // other set is, e.g. hand-labelled questions beside LLM-written ones).
    const flip = other.reference ?? (input.pseudo === true && other.pseudo !== true);
    const a = flip ? agreementOf(theirs, mine) : agreementOf(mine, theirs);
    const mineLabel = input.pseudo ? PSEUDO_LABEL : 'this test set', otherLabel = other.pseudo ? `${other.label} (${PSEUDO_LABEL})` : other.label;
    return { ...a, reference: flip ? otherLabel : mineLabel, other: flip ? mineLabel : otherLabel, topReferenceLabel: trials[a.topReference]!.label, topOtherLabel: trials[a.topOther]!.label };
  })();
  if (input.pseudo) notes.push(`${PSEUDO_LABEL}: the winner is ${agreement?.passes ? 'adoptable (the agreement check with labelled queries passes)' : 'not for adopting unless the agreement check with labelled queries passes (--agree-with)'}`);
  if (!learned && input.learnedAlpha !== false) notes.push('the learned per-query α was not fitted: it needs the fixed hybrid and RRF (a dense side) in the space');
  return {
    identity: input.identity,
    objective,
    split: { seed, heldOutFraction: split.heldOutFraction, tuning: tuning.length, heldOut: heldOut.length },
    space: { dimensions: dims.filter(inSpace), modes: [...modes], size, ...(embedders.length ? { embedders: embedders.map((e) => e.flag) } : {}) },
    rungs: result.rungs, trials, front, winner,
    winnerSettings: { mode: trials[winner]!.mode, settings: flatOfRun(prepared[winner]!.s), ...(trials[winner]!.embedder ? { embedder: trials[winner]!.embedder } : {}) },
    heldOut: { current: figures.current, figures: figures.others },
    verdict: verdictSentence(winnerIsCurrent ? null : winnerFigure, figures.current, heldOut.length, objective),
    learnedAlpha: learned,
    testSetLabel: input.pseudo ? PSEUDO_LABEL : null,
    agreement,
    // A pseudo-query winner only when labelled queries agree (a second pseudo set does not count).
    adoptable: !input.pseudo || (agreement?.passes === true && input.agreeWith?.pseudo !== true),
    notes,
  };
}
