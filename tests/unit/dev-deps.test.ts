// The dev server's dependency scanner starts at index.html and follows imports, but not `new Worker(new URL(…))`: a
// package that only a worker reaches is found when the worker first runs, re-bundled, and the page reloads
// ("optimized dependencies changed. reloading": fflate on the first Train, issue 32). vite.config.ts lists every
// package the workers reach (static imports and `import()`) in optimizeDeps.include, so it is bundled up front.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import config from '../../vite.config.ts';

const root = resolve(import.meta.dirname, '../..');

/** The module specifiers a file loads at run time: imports and re-exports that are not type-only, and `import('…')`. */
function runtimeImports(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) out.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every bare module (package or package subpath) reachable from the entries, with a file that imports it. */
function bareModulesFrom(entries: string[]): Map<string, string> {
  const seen = new Set<string>();
  const bare = new Map<string, string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        if (!bare.has(spec)) bare.set(spec, file);
        continue;
      }
      const target = relative(root, resolve(root, dirname(file), spec));
      expect(statSync(join(root, target)).isFile(), `${file} imports ${spec}`).toBe(true);
      stack.push(target);
    }
  }
  return bare;
}

const workerEntries = readdirSync(join(root, 'workers')).filter((n) => n.endsWith('.worker.ts')).map((n) => `workers/${n}`);

describe('the dev server bundles what the workers import before the page runs', () => {
  it('finds the workers and the packages they reach, dynamic imports included', () => {
    expect(workerEntries).toContain('workers/build.worker.ts');
    const reached = bareModulesFrom(workerEntries);
    // zip.ts (build worker only), hnswlib through import(), pdf.js through import('./pdfjs.ts').
    expect([...reached.keys()]).toEqual(expect.arrayContaining(['fflate', 'hnswlib-wasm/dist/hnswlib.js', 'pdfjs-dist/legacy/build/pdf.mjs']));
  });

  it('lists every package a worker reaches in optimizeDeps.include', () => {
    const include = new Set(config.optimizeDeps?.include ?? []);
    const missing = [...bareModulesFrom(workerEntries)].filter(([spec]) => !include.has(spec)).map(([spec, file]) => `${spec} (imported by ${file})`);
    expect(missing).toEqual([]);
  });
});
