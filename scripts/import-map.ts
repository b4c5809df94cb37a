// The import map of the tree: lines per floor, imports that run from a lower floor to a higher one, circles between
// folders, and files over the size limit. `npm run import-map` prints it; tests/unit/layers.test.ts holds the rules.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Where each part of the tree stands; a part may import only from the parts it lists. */
export const FLOORS: Record<string, readonly string[]> = {
  'src/lib': ['src/lib'],
  workers: ['src/lib', 'workers'],
  cli: ['src/lib', 'cli'],
  'src/ui': ['src/lib', 'workers', 'src/ui'],
  scripts: ['src/lib', 'workers', 'cli', 'src/ui', 'scripts', 'tests'],
  tests: ['src/lib', 'workers', 'cli', 'src/ui', 'scripts', 'tests'],
};

/**
 * The floors inside src/lib, lowest first: a folder imports only from folders below it (and the root files, the
 * lowest floor). A folder of NESTED_FLOORS is no floor itself: each of its sub-folders is one (`eval/score`), and a
 * file directly in it stands on no floor. A new folder takes its place here; docs/architecture.md draws the same order.
 */
export const LIB_FLOORS = [
  '(root)', 'util', 'stats', 'hub', 'retrieval', 'data', 'models', 'llm', 'settings', 'artifact', 'store', 'ingest', 'kb-build', 'rag', 'reports',
  'eval/metrics', 'eval/core', 'eval/ragbench', 'eval/score', 'eval/ragbench-run', 'eval/analysis', 'eval/retrieval', 'tune',
] as const;

/** The folders of src/lib whose sub-folders are floors. */
const NESTED_FLOORS = ['eval'];

export const MAX_LINES = 400;
const ROOTS = ['src', 'workers', 'cli', 'scripts'];
const SOURCE = /\.(ts|svelte)$/;
/** Every kind of source file the repo has: all of them are held to MAX_LINES, wherever they are (fixtures aside). */
const SIZED = /\.(ts|svelte|py|js|mjs|cjs|css|html)$/;
const SIZED_ROOTS = [...ROOTS, 'tests', 'public'];

export interface SourceFile {
  path: string;
  lines: number;
  imports: string[];
}

/** The floor a file stands on: its first listed prefix (src/main.ts and the root components count as src/ui). */
export function floorOf(path: string): string {
  if (path.startsWith('src/lib/')) return 'src/lib';
  if (path.startsWith('src/')) return 'src/ui';
  return path.split('/')[0]!;
}

/**
 * The unit circles are counted between: a folder of src/lib (its root files are one unit; a sub-folder of a
 * NESTED_FLOORS folder is a unit of its own), else the floor.
 */
export function unitOf(path: string): string {
  if (path.startsWith('src/lib/')) {
    const parts = path.split('/');
    if (NESTED_FLOORS.includes(parts[2]!) && parts.length > 4) return `src/lib/${parts[2]}/${parts[3]}`;
    return parts.length > 3 ? `src/lib/${parts[2]}` : 'src/lib (root)';
  }
  return floorOf(path);
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function resolveImport(root: string, from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(root, dirname(from), spec);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')];
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return relative(root, c);
    } catch {
      // not this one
    }
  }
  return null;
}

function walk(root: string, dir: string, out: string[], kind = SOURCE): void {
  let names: string[];
  try {
    names = readdirSync(join(root, dir));
  } catch {
    return;
  }
  for (const name of names) {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) {
      if (name !== 'node_modules' && name !== '__pycache__' && path !== 'tests/fixtures') walk(root, path, out, kind);
    } else if (kind.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Lines of every source file of any kind (SIZED): the folders of the tree, tests/ and public/, and the root's files. */
export function readSizes(root: string): { path: string; lines: number }[] {
  const paths: string[] = readdirSync(root).filter((n) => SIZED.test(n) && statSync(join(root, n)).isFile());
  for (const r of SIZED_ROOTS) walk(root, r, paths, SIZED);
  return paths.sort().map((path) => ({ path, lines: lineCount(readFileSync(join(root, path), 'utf8')) }));
}

export function readTree(root: string): SourceFile[] {
  const paths: string[] = [];
  for (const r of ROOTS) walk(root, r, paths);
  return paths.sort().map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    const imports: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(root, path, m[1] ?? m[2]!);
      if (target && SOURCE.test(target)) imports.push(target);
    }
    return { path, lines: lineCount(text), imports };
  });
}

/** A src/lib unit's place in LIB_FLOORS (-1: not listed). */
function libFloor(unit: string): number {
  return (LIB_FLOORS as readonly string[]).indexOf(unit.replace(/^src\/lib(\/| )/, ''));
}

export interface ImportMap {
  linesPerFloor: Record<string, number>;
  linesPerUnit: Record<string, number>;
  upward: string[];
  circles: string[][];
  oversized: { path: string; lines: number }[];
}

/** Circles between units: each strongly connected component of more than one unit (Tarjan). */
function circlesOf(edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** The map of `files` (the import graph's .ts and .svelte); `sizes` (readSizes: every kind of source) for the size limit. */
export function importMap(files: SourceFile[], sizes: readonly { path: string; lines: number }[] = files): ImportMap {
  const linesPerFloor: Record<string, number> = {};
  const linesPerUnit: Record<string, number> = {};
  const upward: string[] = [];
  const unitEdges = new Map<string, Set<string>>();
  const fileEdges = new Map<string, Set<string>>();
  for (const f of files) {
    const floor = floorOf(f.path);
    linesPerFloor[floor] = (linesPerFloor[floor] ?? 0) + f.lines;
    linesPerUnit[unitOf(f.path)] = (linesPerUnit[unitOf(f.path)] ?? 0) + f.lines;
    fileEdges.set(f.path, new Set(f.imports));
    for (const target of f.imports) {
      if (!(FLOORS[floor] ?? []).includes(floorOf(target))) upward.push(`${f.path} → ${target}`);
      const a = unitOf(f.path);
      const b = unitOf(target);
      if (a !== b && a.startsWith('src/lib') && b.startsWith('src/lib') && libFloor(b) >= libFloor(a)) {
        upward.push(`${f.path} → ${target}${libFloor(a) < 0 || libFloor(b) < 0 ? ' (a folder not in LIB_FLOORS)' : ''}`);
      }
      if (a !== b) {
        if (!unitEdges.has(a)) unitEdges.set(a, new Set());
        unitEdges.get(a)!.add(b);
      }
    }
  }
  // A circle is one between folders, or one between files of the same folder.
  const circles = [...circlesOf(unitEdges), ...circlesOf(fileEdges)];
  const oversized = sizes.filter((f) => f.lines > MAX_LINES).map((f) => ({ path: f.path, lines: f.lines }));
  return { linesPerFloor, linesPerUnit, upward, circles, oversized };
}

function main(): void {
  const root = resolve(process.argv[2] ?? '.');
  const map = importMap(readTree(root), readSizes(root));
  console.log('lines per floor:', map.linesPerFloor);
  console.log('lines per src/lib folder:', Object.fromEntries(Object.entries(map.linesPerUnit).filter(([k]) => k.startsWith('src/lib'))));
  console.log(`upward imports (${map.upward.length}):`);
  for (const u of map.upward) console.log(`  ${u}`);
  console.log(`circles (${map.circles.length}):`);
  for (const c of map.circles) console.log(`  ${c.join(' ↔ ')}`);
  console.log(`files over ${MAX_LINES} lines (${map.oversized.length}):`);
  for (const o of map.oversized.sort((a, b) => b.lines - a.lines)) console.log(`  ${o.lines} ${o.path}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') process.exit(0); throw e; });
  main();
}
