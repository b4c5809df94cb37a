/** The layout every report chart shares: the margins grow to fit tick labels, and a chart's own axis settings stay. */
import { describe, expect, test } from 'vitest';
import { chartLayout } from '../../src/ui/shared/plotly.ts';

describe('chartLayout', () => {
  test('both axes grow their margin to fit the tick labels', () => {
    const layout = chartLayout('Summary');
    expect(layout.xaxis).toEqual({ automargin: true });
    expect(layout.yaxis).toEqual({ automargin: true });
    expect(layout.title).toEqual({ text: 'Summary' });
  });

  test("a chart's axis settings are merged with automargin, not replaced", () => {
    const layout = chartLayout('ROC', { xaxis: { range: [0, 1], title: { text: 'fpr' } }, yaxis: { automargin: false }, showlegend: true });
    expect(layout.xaxis).toEqual({ automargin: true, range: [0, 1], title: { text: 'fpr' } });
    expect(layout.yaxis).toEqual({ automargin: false });
    expect((layout as Record<string, unknown>).showlegend).toBe(true);
  });
});
