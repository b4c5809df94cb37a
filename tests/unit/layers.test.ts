// The floors of the tree (scripts/import-map.ts FLOORS): no import runs from a lower floor to a higher one, no folder
// of src/lib and no file is in an import circle, no source file is over the size limit, and the shells stay thin.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { floorOf, importMap, LIB_FLOORS, MAX_LINES, readSizes, readTree, unitOf, type SourceFile } from '../../scripts/import-map.ts';

const root = resolve(import.meta.dirname, '../..');
const tree = readTree(root);
const map = importMap(tree, readSizes(root));

/** workers/ + cli/ together: the shells call sessions of src/lib; issue 23's bar. */
const SHELL_LINES_CEILING = 2500;
describe('the import map of the tree', () => {
  it('reads the tree: every floor has files, and imports resolve to files of the tree', () => {
    for (const floor of ['src/lib', 'src/ui', 'workers', 'cli', 'scripts']) expect(map.linesPerFloor[floor]).toBeGreaterThan(0);
    expect(tree.find((f) => f.path === 'cli/main.ts')?.imports.length).toBeGreaterThan(0);
  });

  it('lists every src/lib folder in LIB_FLOORS', () => {
    const units = new Set(tree.filter((f) => f.path.startsWith('src/lib/')).map((f) => unitOf(f.path).replace(/^src\/lib(\/| )/, '')));
    expect([...units].filter((u) => !(LIB_FLOORS as readonly string[]).includes(u))).toEqual([]);
  });

  it('has no import from a lower floor to a higher one', () => {
    expect(map.upward).toEqual([]);
  });

  it('has no circle between src/lib folders or between files', () => {
    expect(map.circles).toEqual([]);
  });

  it(`has no source file of any kind (.ts, .svelte, .py, .js, .css, .html) over ${MAX_LINES} lines`, () => {
    expect(map.oversized).toEqual([]);
  });

  it('counts every kind of source file, the tests and the scripts in Python included', () => {
    const sizes = readSizes(root).map((f) => f.path);
    for (const p of ['scripts/make-fixture-models.py', 'src/ui/app.css', 'index.html', 'cli/rag-lab.js', 'tests/unit/layers.test.ts', 'src/ui/App.svelte']) expect(sizes).toContain(p);
    expect(sizes.filter((p) => p.startsWith('tests/fixtures/') || p.includes('node_modules'))).toEqual([]);
  });

  it('keeps the shells thin: workers/ and cli/ together at most 2,500 lines', () => {
    expect((map.linesPerFloor['workers'] ?? 0) + (map.linesPerFloor['cli'] ?? 0)).toBeLessThanOrEqual(SHELL_LINES_CEILING);
  });
});

describe('the import map itself', () => {
  const files = (edges: Record<string, string[]>): SourceFile[] => Object.entries(edges).map(([path, imports]) => ({ path, lines: 10, imports }));

  it('counts an import from a lower src/lib folder to a higher one as upward, and one downward as fine', () => {
    const m = importMap(files({ 'src/lib/retrieval/x.ts': ['src/lib/eval/score/y.ts', 'src/lib/dict.ts'], 'src/lib/eval/score/y.ts': ['src/lib/stats/z.ts'], 'src/lib/dict.ts': [], 'src/lib/stats/z.ts': [] }));
    expect(m.upward).toEqual(['src/lib/retrieval/x.ts → src/lib/eval/score/y.ts']);
    expect(m.circles).toEqual([]);
  });

  it('places files on their floors and units', () => {
    expect(floorOf('src/lib/retrieval/bm25.ts')).toBe('src/lib');
    expect(floorOf('src/ui/App.svelte')).toBe('src/ui');
    expect(floorOf('src/main.ts')).toBe('src/ui');
    expect(floorOf('workers/search.worker.ts')).toBe('workers');
    expect(unitOf('src/lib/retrieval/bm25.ts')).toBe('src/lib/retrieval');
    expect(unitOf('src/lib/dict.ts')).toBe('src/lib (root)');
    expect(unitOf('src/lib/models/corpus-embedder/rsvd.ts')).toBe('src/lib/models');
    expect(unitOf('src/lib/eval/score/evaluators.ts')).toBe('src/lib/eval/score');
  });

  it('takes each sub-folder of eval/ as a floor: an import from a lower one to a higher one is upward', () => {
    const m = importMap(files({
      'src/lib/eval/metrics/a.ts': ['src/lib/eval/score/b.ts'],
      'src/lib/eval/score/b.ts': ['src/lib/eval/metrics/c.ts', 'src/lib/reports/d.ts'],
      'src/lib/eval/metrics/c.ts': [],
      'src/lib/reports/d.ts': [],
    }));
    expect(m.upward).toEqual(['src/lib/eval/metrics/a.ts → src/lib/eval/score/b.ts']);
    expect(m.circles).toContainEqual(['src/lib/eval/metrics', 'src/lib/eval/score']);
  });

  it('puts a file directly in eval/ on no floor', () => {
    expect(importMap(files({ 'src/lib/eval/x.ts': ['src/lib/stats/z.ts'], 'src/lib/stats/z.ts': [] })).upward).toEqual(['src/lib/eval/x.ts → src/lib/stats/z.ts (a folder not in LIB_FLOORS)']);
  });

  it('finds an upward import, a folder circle and a file circle', () => {
    const m = importMap(files({
      'src/lib/retrieval/x.ts': ['src/lib/data/y.ts'],
      'src/lib/data/y.ts': ['src/lib/retrieval/z.ts'],
      'src/lib/retrieval/z.ts': ['src/ui/v.ts'],
      'src/ui/v.ts': [],
      'workers/w.ts': ['src/lib/retrieval/x.ts'],
      'cli/p.ts': ['cli/q.ts'],
      'cli/q.ts': ['cli/p.ts'],
    }));
    expect(m.upward).toEqual(['src/lib/retrieval/x.ts → src/lib/data/y.ts', 'src/lib/retrieval/z.ts → src/ui/v.ts']);
    expect(m.circles).toContainEqual(['src/lib/data', 'src/lib/retrieval']);
    expect(m.circles).toContainEqual(['cli/p.ts', 'cli/q.ts']);
    expect(m.circles).toHaveLength(2);
  });
});
