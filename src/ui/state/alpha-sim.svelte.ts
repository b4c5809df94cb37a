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
import { simulateFusion, sliderWeights, type FusionCandidates, type SimulatedFusion } from '../../lib/eval/alpha-sim.ts';
import type { Calibration } from '../../lib/retrieval/calibrate.ts';
import { clampAlpha, H_START, simulationAlpha } from '../alpha-sim-view.ts';

export type LoadCandidates = (queryId: string) => Promise<FusionCandidates>;

export class AlphaSimState {
  /** Both start at 3.32 bits (half the range, on the sliders' 0.01 step): α ≈ ½. */
  hDense = $state(H_START);
  hSparse = $state(H_START);
  /** α = H_dense / (H_dense + H_sparse + ε); BM25 weight α, dense weight 1 − α. */
  readonly weights = $derived(sliderWeights(this.hDense, this.hSparse));

  /** The picker's search text. */
  search = $state('');
  queryId = $state<string | null>(null);
  calibration = $state<Calibration>('cdf');
  candidates = $state.raw<FusionCandidates | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** The α the user dragged to; null: the query's own α under the calibration. */
  userAlpha = $state<number | null>(null);
  readonly alpha = $derived(simulationAlpha(this.candidates, this.calibration, this.userAlpha));
  readonly fused = $derived<SimulatedFusion | null>(this.candidates ? simulateFusion(this.candidates, this.alpha, this.calibration) : null);

  private load = 0;

  /** `loader` is read on each pick (the component's prop may change); null: sliders only. */
  constructor(private readonly loader: () => LoadCandidates | null) {}

  get real(): boolean {
    return this.loader() !== null;
  }

  setAlpha(x: number): void {
    const a = clampAlpha(x);
    if (a !== null) this.userAlpha = a;
  }

  /** Back to the query's own α (under the calibration picked). */
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
      this.error = `The candidates of query ${queryId} could not be loaded: ${(e as Error).message || String(e)}`;
    } finally {
      if (run === this.load) this.loading = false;
    }
  }

  /** The component went away: a load in flight is dropped. */
  dispose(): void {
    this.load++;
  }
}
