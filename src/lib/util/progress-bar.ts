/**
 * A progress bar on stderr for long CLI stages (chunk, index, embed, write, upload). On a terminal it redraws one
 * line in place (`\r`, at most every `intervalMs`); to a pipe or file it writes one line when a stage starts and one
 * when it ends, so logs stay short and readable. Pure: it writes to the output it is given (the CLI's stderr).
 */
import { formatBytes } from './format-bytes.ts';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export interface ProgressBarOptions {
  /** Minimum time between two redraws on a terminal (ms). Default 100. */
  intervalMs?: number;
  /** Clock (ms), for tests. */
  now?: () => number;
  /** Formats the stage's figures after the counts, e.g. "120 passages/s". */
  rate?: (stage: string, done: number, elapsedMs: number) => string | null;
}

const BAR = 24;


/** "[#####-----]  50%": `done / total` as a bar of `width` cells, and the share. */
export function renderBar(done: number, total: number, width = BAR): string {
  const share = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const full = Math.round(share * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
}

export class ProgressBar {
  private stage: string | null = null;
  private started = 0;
  private lastDraw = -Infinity;
  private lastDone = 0;
  private lastTotal = 0;
  private unit: 'count' | 'bytes' = 'count';
  private drawn = false;
  private readonly tty: boolean;
  private readonly now: () => number;

  constructor(private readonly out: ProgressOutput, private readonly opts: ProgressBarOptions = {}) {
    this.tty = out.isTTY === true;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Reports `done` of `total` (items, or bytes) for `stage`; a new stage name ends the previous one. */
  update(stage: string, done: number, total: number, unit: 'count' | 'bytes' = 'count'): void {
    if (stage !== this.stage) {
      this.end();
      this.stage = stage;
      this.unit = unit;
      this.started = this.now();
      if (!this.tty) this.out.write(`${stage}: ${total > 0 ? `${unit === 'bytes' ? formatBytes(total) : total} to do` : 'started'}\n`);
    }
    this.lastDone = done;
    this.lastTotal = total;
    if (!this.tty) return;
    const t = this.now();
    if (t - this.lastDraw < (this.opts.intervalMs ?? 100) && done < total) return;
    this.lastDraw = t;
    this.draw();
  }

  /** Ends the current stage: the final figures on their own line. */
  end(): void {
    if (this.stage === null) return;
    const line = this.summary();
    if (this.tty) this.out.write(`\r${this.fit(line)}\x1b[K\n`);
    else this.out.write(`${line}\n`);
    this.stage = null;
    this.drawn = false;
    this.lastDraw = -Infinity;
  }

  /** Writes a message between redraws without tearing the bar. */
  log(message: string): void {
    if (this.tty && this.drawn) this.out.write('\r\x1b[K');
    this.out.write(`${message}\n`);
    if (this.tty && this.drawn) this.draw();
  }

  private figures(): string {
    const elapsed = this.now() - this.started;
    const rate = this.opts.rate?.(this.stage!, this.lastDone, elapsed);
    const counts = this.unit === 'bytes' ? `${formatBytes(this.lastDone)} of ${formatBytes(this.lastTotal)}` : `${this.lastDone}/${this.lastTotal}`;
    return `${counts}${rate ? `, ${rate}` : ''}`;
  }

  private summary(): string {
    const secs = (this.now() - this.started) / 1000;
    return `${this.stage}: done ${this.figures()} in ${secs.toFixed(1)} s`;
  }

  private draw(): void {
    this.out.write(`\r${this.fit(`${this.stage} ${renderBar(this.lastDone, this.lastTotal)} ${this.figures()}`)}\x1b[K`);
    this.drawn = true;
  }

  /** Cut to the terminal width so a redraw never wraps onto a second line. */
  private fit(line: string): string {
    // A pseudo-terminal may report 0 columns (no size set): then assume the classic 80.
    const cols = this.out.columns && this.out.columns > 0 ? this.out.columns : 80;
    return line.length < cols ? line : line.slice(0, Math.max(1, cols - 1));
  }
}

/** Progress lines for a run of parts (RAGBench's subsets): `part: done/total`, once every 10% of a part. */
export function tenthLines(out: ProgressOutput): (part: string, done: number, total: number) => void {
  let last = '';
  return (part, done, total) => {
    const step = `${part}:${Math.floor((100 * done) / Math.max(1, total) / 10)}`;
    if (step !== last) { last = step; out.write(`${part}: ${done}/${total}\n`); }
  };
}
