/** The CLI's progress bar: redraws in place on a terminal, one line per stage otherwise. */
import { describe, expect, it } from 'vitest';
import { ProgressBar, renderBar, tenthLines } from '../../src/lib/util/progress-bar.ts';
import { formatBytes } from '../../src/lib/util/format-bytes.ts';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { out: { isTTY, columns: 80, write: (t: string) => { chunks.push(t); return true; } }, chunks };
}

describe('tenthLines', () => {
  it('writes a part\'s line once every 10%, and again for each new part', () => {
    const lines: string[] = [];
    const print = tenthLines({ write: (t) => lines.push(t) });
    for (let i = 0; i <= 20; i++) print('covidqa', i, 20);
    print('hagrid', 0, 3);
    print('hagrid', 0, 3);
    expect(lines).toEqual([...[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20].map((d) => `covidqa: ${d}/20\n`), 'hagrid: 0/3\n']);
  });
});

describe('renderBar', () => {
  it('fills cells in proportion and clamps', () => {
    expect(renderBar(5, 10, 10)).toBe('[#####-----]  50%');
    expect(renderBar(0, 0, 4)).toBe('[----]   0%');
    expect(renderBar(12, 10, 4)).toBe('[####] 100%');
    expect(renderBar(1, 3, 3)).toBe('[#--]  33%');
  });
});

describe('ProgressBar', () => {
  it('not on a terminal: a line when a stage starts and one when it ends, no carriage returns', () => {
    let t = 0;
    const { out, chunks } = sink(false);
    const bar = new ProgressBar(out, { now: () => t, rate: (stage, done, ms) => (stage === 'embed' ? `${(done / (ms / 1000)).toFixed(0)} passages/s` : null) });
    bar.update('index', 0, 4);
    for (let i = 1; i <= 4; i++) bar.update('index', i, 4);
    t = 2000;
    bar.update('embed', 0, 100);
    t = 4000;
    bar.update('embed', 100, 100);
    bar.end();
    expect(chunks.join('')).toBe('index: 4 to do\nindex: done 4/4 in 2.0 s\nembed: 100 to do\nembed: done 100/100, 50 passages/s in 2.0 s\n');
  });

  it('on a terminal: redraws one line with \\r, at most every intervalMs, and ends it with a newline', () => {
    let t = 0;
    const { out, chunks } = sink(true);
    const bar = new ProgressBar(out, { now: () => t, intervalMs: 100 });
    bar.update('write', 0, 10);
    t = 50;
    bar.update('write', 5, 10); // too soon: not drawn
    t = 150;
    bar.update('write', 6, 10);
    t = 160;
    bar.update('write', 10, 10); // the last step is always drawn
    bar.end();
    expect(chunks).toHaveLength(4);
    expect(chunks.slice(0, 3).every((c) => c.startsWith('\r') && !c.includes('\n'))).toBe(true);
    expect(chunks[1]).toContain('6/10');
    expect(chunks[2]).toContain('[########################] 100% 10/10');
    expect(chunks[3]).toMatch(/^\rwrite: done 10\/10 in 0\.2 s\x1b\[K\n$/);
  });

  it('log() clears the bar, writes the line and redraws it', () => {
    const { out, chunks } = sink(true);
    const bar = new ProgressBar(out, { now: () => 0 });
    bar.update('embed', 1, 2);
    chunks.length = 0;
    bar.log('a note');
    expect(chunks[0]).toBe('\r\x1b[K');
    expect(chunks[1]).toBe('a note\n');
    expect(chunks[2]).toContain('embed [');
  });

  it('cuts a line to the terminal width', () => {
    const chunks: string[] = [];
    const bar = new ProgressBar({ isTTY: true, columns: 20, write: (t: string) => chunks.push(t) }, { now: () => 0 });
    bar.update('a-very-long-stage-name', 1, 2);
    expect(chunks[0]!.replace('\r', '').replace('\x1b[K', '').length).toBeLessThan(20);
  });

  it('a terminal that reports 0 columns counts as 80 wide', () => {
    const chunks: string[] = [];
    const bar = new ProgressBar({ isTTY: true, columns: 0, write: (t: string) => chunks.push(t) }, { now: () => 0 });
    bar.update('index', 1, 2);
    expect(chunks[0]).toBe('\rindex [############------------]  50% 1/2\x1b[K');
  });
});

describe('formatBytes and byte stages', () => {
  it('uses powers of 1000 with one decimal', () => {
    expect([0, 999, 1000, 4_311_361, 12_000_000_000].map((n) => formatBytes(n))).toEqual(['0 B', '999 B', '1.0 kB', '4.3 MB', '12 GB']);
  });

  it('a byte stage shows sizes, not counts', () => {
    const chunks: string[] = [];
    const bar = new ProgressBar({ isTTY: false, write: (t: string) => chunks.push(t) }, { now: () => 0 });
    bar.update('download chunks.parquet', 0, 2_500_000, 'bytes');
    bar.update('download chunks.parquet', 2_500_000, 2_500_000, 'bytes');
    bar.end();
    expect(chunks.join('')).toBe('download chunks.parquet: 2.5 MB to do\ndownload chunks.parquet: done 2.5 MB of 2.5 MB in 0.0 s\n');
  });
});
