/**
 * A worker started on first use and ended on demand, for state that runs one job at a time where the latest request
 * wins (CompareState, AnalysisState): `stop()` terminates a job in flight, the next `get()` starts a fresh worker.
 */
export class WorkerSlot<W extends { terminate(): void }> {
  private worker: W | null = null;

  constructor(private readonly start: () => W) {}

  get(): W {
    this.worker ??= this.start();
    return this.worker;
  }

  stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}
