/** Chart colours and theme (src/ui/shared/chart-style.ts): no two series of a chart share a colour; the layout takes the theme. */
import { describe, expect, test } from 'vitest';
import { assignColors, PALETTE, themedLayout, themedTraces, traceColor } from '../../src/ui/shared/chart-style.ts';
import { meansChart, rocChart } from '../../src/ui/reports/report-charts.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const SUBSETS = ['covidqa', 'cuad', 'delucionqa', 'emanual', 'expertqa', 'finqa', 'hagrid', 'hotpotqa', 'msmarco', 'pubmedqa', 'tatqa', 'techqa'];

/** A validate report over every RAGBench subset with the three baselines' figures and reference scores. */
function everySubset() {
  const rows = SUBSETS.flatMap((g, j) => Array.from({ length: 4 }, (_, i) => ({
    ...validateRow(i, (i + j) / 10, i % 2 === 0, g),
    reference: { ragas_faithfulness: i / 4, trulens_groundedness: (4 - i) / 4, gpt3_adherence: (i % 3) / 2 },
  })));
  const baselines = [...SUBSETS, null].flatMap((group) => ['ragas', 'trulens', 'gpt3'].map((evaluator, k) => ({ group, evaluator, metric: 'auroc', value: 0.5 + k / 10 })));
  return testReport(rows, { baselines, iterations: 20 });
}

const distinct = (colors: Array<string | undefined>) => new Set(colors).size === colors.length && colors.every((c) => c !== undefined);

describe('series colours', () => {
  test('12 subsets, "all" and three baselines in the means chart: 16 colours, no two alike (Plotly\'s colorway repeats after 10)', () => {
    const spec = meansChart(everySubset())!;
    expect(spec.traces.map((t) => t.name)).toEqual([...SUBSETS, 'all', 'RAGAS', 'TruLens', 'GPT-3.5']);
    const colored = assignColors(spec.traces);
    expect(distinct(colored.map(traceColor))).toBe(true);
    expect(colored.map(traceColor).slice(0, 3)).toEqual(PALETTE.slice(0, 3));
  });

  test('a trace\'s own colour stays and is not given to another; beyond the palette, colours are still distinct', () => {
    const roc = assignColors(rocChart(everySubset())!.traces);
    expect(roc.map((t) => t.name.split(' ')[0])).toEqual(['RAG', 'RAGAS', 'TruLens', 'GPT-3.5', 'chance']);
    expect(traceColor(roc[4]!)).toBe('#aaa');
    expect(distinct(roc.map(traceColor))).toBe(true);
    const many = assignColors(Array.from({ length: 60 }, (_, i) => ({ type: 'scatter', name: `s${i}`, line: i === 5 ? { color: PALETTE[0]! } : {} })));
    expect(distinct(many.map(traceColor))).toBe(true);
    expect(traceColor(many[5]!)).toBe(PALETTE[0]);
  });
});

describe('theme colours', () => {
  test('the layout takes the theme\'s paper, text and grid colours, keeping what it sets itself; whiskers the muted colour', () => {
    const c = { text: 'rgb(228, 231, 238)', paper: 'rgb(26, 30, 39)', grid: 'rgb(39, 44, 55)', muted: 'rgb(163, 171, 187)' };
    const layout = { title: { text: 'T' }, xaxis: { title: { text: 'gold' }, range: [0, 1] }, legend: { orientation: 'h' } };
    const out = themedLayout(layout, c) as Record<string, Record<string, unknown>>;
    expect(out['paper_bgcolor']).toBe(c.paper);
    expect(out['plot_bgcolor']).toBe(c.paper);
    expect(out['font']).toEqual({ color: c.text });
    expect(out['xaxis']).toEqual({ title: { text: 'gold' }, range: [0, 1], gridcolor: c.grid, zerolinecolor: c.grid, linecolor: c.grid });
    expect(out['yaxis']!['gridcolor']).toBe(c.grid);
    expect(out['legend']).toEqual({ orientation: 'h', font: { color: c.text } });
    expect(layout.xaxis).toEqual({ title: { text: 'gold' }, range: [0, 1] });
    const [bar, line] = themedTraces([{ name: 'a', error_y: { visible: true } }, { name: 'b' }], c);
    expect(bar!.error_y).toEqual({ visible: true, color: c.muted });
    expect(line).toEqual({ name: 'b' });
  });
});
