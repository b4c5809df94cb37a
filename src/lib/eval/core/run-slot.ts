/**
 * One benchmark run at a time, as the bench worker runs them: a new run aborts the one before, `cancel` aborts the
 * current one, and a run's error leaves as the tab shows it: a cancelled run says that its finished rows are kept,
 * any other error has the run's secret (an API key, a Hub token) redacted.
 */
import { redactSecrets } from '../../llm/redact.ts';

export const CANCELLED_MESSAGE = 'The run was cancelled. Finished rows are kept and a new run resumes from them.';

export class RunSlot {
  private controller: AbortController | null = null;

  /** Runs `body` with a signal of its own, after aborting the run in progress. */
  async run<T>(secret: string | null, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.controller?.abort();
    const ctl = new AbortController();
    this.controller = ctl;
    try {
      return await body(ctl.signal);
    } catch (e) {
      if (ctl.signal.aborted) throw new Error(CANCELLED_MESSAGE);
      throw new Error(redactSecrets((e as Error).message || String(e), [secret]));
    } finally {
      if (this.controller === ctl) this.controller = null;
    }
  }

  cancel(): void {
    this.controller?.abort();
  }
}
