/** The find boxes: rows of one report (rowFinder) and the Reports list (ReportFinder), prefix and typo matches. */
import { describe, expect, it } from 'vitest';
import { ReportFinder, rowFinder } from '../../src/lib/reports/find.ts';

const rows = [
  { key: 'r1', question: 'How do I reset the thermostat?', answer: 'Hold the power button.' },
  { key: 'r2', question: 'Which battery does the remote use?', answer: 'Two AAA batteries.' },
  { key: 'r3', question: 'Is the display waterproof?', answer: 'No, keep the thermostat dry.' },
];

describe('rowFinder', () => {
  const find = rowFinder(rows);
  it('null for an empty query (no filter)', () => {
    expect(find('')).toBeNull();
    expect(find('   ')).toBeNull();
  });
  it('matches prefixes in questions and answers', () => {
    expect(find('thermo')).toEqual(new Set(['r1', 'r3']));
    expect(find('batter')).toEqual(new Set(['r2']));
  });
  it('tolerates a typo (fuzzy 0.2) and needs every word', () => {
    expect(find('thermostta')).toEqual(new Set(['r1', 'r3']));
    expect(find('thermostat dry')).toEqual(new Set(['r3']));
    expect(find('zebra')).toEqual(new Set());
  });
});

describe('ReportFinder', () => {
  it('says which reports match and why, and forgets a deleted one', () => {
    const f = new ReportFinder();
    f.set('a', { title: 'Lexical baseline', notes: 'first try' }, rows);
    f.set('b', { title: 'NLI thermostat run', notes: '' }, null);
    expect(f.find('')).toEqual([]);
    const hits = f.find('thermostat');
    expect(hits.map((h) => h.id).sort()).toEqual(['a', 'b']);
    expect(hits.find((h) => h.id === 'a')).toEqual({ id: 'a', fields: ['question', 'answer'], rows: 2 });
    expect(hits.find((h) => h.id === 'b')).toEqual({ id: 'b', fields: ['title'], rows: 0 });
    expect(f.find('lexcal')).toEqual([{ id: 'a', fields: ['title'], rows: 0 }]);
    expect(f.find('fir')).toEqual([{ id: 'a', fields: ['notes'], rows: 0 }]);
    f.set('a', { title: 'renamed', notes: '' }, []);
    expect(f.find('thermostat').map((h) => h.id)).toEqual(['b']);
    f.delete('b');
    expect(f.find('thermostat')).toEqual([]);
    expect(f.has('b')).toBe(false);
  });
});
