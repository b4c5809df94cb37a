/**
 * The α simulator's state (AlphaSimulator.svelte): the two entropy sliders and their α and weights (seed B's page),
 * and for a real query of the run the picked query, its loaded candidates, the calibration, α and the fused list.
 *
 * Fusion runs here, on the main thread, on every slider move: `simulateFusion` re-scores the query's candidates
 * (the union of both retrievers' top candidateK: c ≤ 2 · candidateK items), sorts them and computes NDCG@10 —
 * O(c log c): 0.15–0.3 ms per call for c = 200 on a busy 2-core machine (`npx tsx scripts/bench-alpha-sim.ts`), far
 * below a frame, so no worker round trip is needed. Loading the
 * candidates (embedding the query, both retrievers' lists) is the caller's `loadCandidates`, in the bench worker.
 */
import { simulateFusion, sliderWeights, type FusionCandidates, type SimulatedFusion } from '../../lib/retrieval/alpha-sim.ts';
import type { Calibration } from '../../lib/retrieval/calibrate.ts';
import { clampAlpha, clampH, REPORT_RANGE, simulationAlpha, startCaption, stateLine, type SliderRange } from '../search/alpha-sim-view.ts';

export type LoadCandidates = (queryId: string) => Promise<FusionCandidates>;

/** The Search tab's current query for the live re-fusion: its candidates, loaded once from the search worker. */
export interface LiveQuery {
  /** Changes with the search it belongs to (a new one loads again). */
  key: string;
  load: () => Promise<FusionCandidates>;
  calibration: Calibration;
  /** The search reranks after fusing (the simulated list is the fused one, before the cross-encoder). */
  rerank: boolean;
  /** The search had filters (the candidates come from the documents they keep). */
  filtered: boolean;
}

export interface AlphaSimOptions {
  /** The sliders' range and start (default: the report view's). */
  range?: SliderRange;
  /** A query's own H values to start from (clamped to the range); null: the range's start. */
  seed?: { hDense: number; hSparse: number } | null;
  /**
   * Which α re-fuses the loaded candidates when the user has not dragged the α slider: `query` (reports) the
   * query's own α under the calibration; `sliders` (Search tab) the α of the H sliders.
   */
  alphaFrom?: 'query' | 'sliders';
  calibration?: Calibration;
}

export class AlphaSimState {
  readonly range: SliderRange;
  /** Where the sliders started, said from the values they started at (a query's own H, or the range's start). */
  readonly startCaption: string;
  /** Set once by the constructor (AlphaSimOptions.alphaFrom). */
  alphaFrom: 'query' | 'sliders' = 'query';
  /** Both start at the range's start (or the seeded query's H values). */
  hDense = $state(0);
  hSparse = $state(0);
  /** α = H_dense / (H_dense + H_sparse + ε); BM25 weight α, dense weight 1 − α. */
  readonly weights = $derived(sliderWeights(this.hDense, this.hSparse));
  /** Seed B's state line for the sliders' α. */
  readonly line = $derived(stateLine(this.weights.alpha));

  /** The picker's search text. */
  search = $state('');
  queryId = $state<string | null>(null);
  calibration = $state<Calibration>('cdf');
  candidates = $state.raw<FusionCandidates | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** The α the user dragged to; null: the query's own α under the calibration. */
  userAlpha = $state<number | null>(null);
  readonly alpha = $derived(this.alphaFrom === 'sliders' ? (this.userAlpha ?? this.weights.alpha) : simulationAlpha(this.candidates, this.calibration, this.userAlpha));
  readonly fused = $derived<SimulatedFusion | null>(this.candidates ? simulateFusion(this.candidates, this.alpha, this.calibration) : null);

  private load = 0;

  /** `loader` is read on each pick (the component's prop may change); null: sliders only. */
  constructor(private readonly loader: () => LoadCandidates | null, opts: AlphaSimOptions = {}) {
    this.range = opts.range ?? REPORT_RANGE;
    this.alphaFrom = opts.alphaFrom ?? 'query';
    if (opts.calibration) this.calibration = opts.calibration;
    const d = opts.seed ? clampH(opts.seed.hDense, this.range.max) : null;
    const sp = opts.seed ? clampH(opts.seed.hSparse, this.range.max) : null;
    this.hDense = d ?? this.range.start;
    this.hSparse = sp ?? this.range.start;
    this.startCaption = startCaption(this.range, { hDense: this.hDense, hSparse: this.hSparse }, d !== null && sp !== null);
  }

  /** An H slider moved (kept in the range; not a number is ignored); with α from the sliders, a dragged α is let go. */
  setH(which: 'dense' | 'sparse', x: number): void {
    const h = clampH(x, this.range.max);
    if (h === null) return;
    if (which === 'dense') this.hDense = h;
    else this.hSparse = h;
    if (this.alphaFrom === 'sliders') this.userAlpha = null;
  }

  get real(): boolean {
    return this.loader() !== null;
  }

  setAlpha(x: number): void {
    const a = clampAlpha(x);
    if (a !== null) this.userAlpha = a;
  }

  /** Back to the query's own α (under the calibration picked), or the sliders' α. */
  resetAlpha(): void {
    this.userAlpha = null;
  }

  /** Loads the candidates of a query (the latest pick wins); α starts at the query's own α. */
  async pick(queryId: string): Promise<void> {
    const load = this.loader();
    const run = ++this.load;
    this.queryId = queryId || null;
    this.userAlpha = null;
    this.error = null;
    this.candidates = null;
    if (!load || !queryId) { this.loading = false; return; }
    this.loading = true;
    try {
      const c = await load(queryId);
      if (run !== this.load) return;
      this.candidates = c;
    } catch (e) {
      if (run !== this.load) return;
      this.error = `The candidates of ${this.alphaFrom === 'sliders' ? 'this query' : `query ${queryId}`} could not be loaded: ${(e as Error).message || String(e)}`;
    } finally {
      if (run === this.load) this.loading = false;
    }
  }

  /** The component went away: a load in flight is dropped. */
  dispose(): void {
    this.load++;
  }
}
