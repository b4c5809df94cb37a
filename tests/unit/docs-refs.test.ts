// The docs name only what exists (scripts/docs-refs.ts): every path, file name, code name and relative link that
// README.md and docs/**/*.md write resolves in the tree; `npx tsx scripts/docs-refs.ts` lists the stale ones.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LINES } from '../../scripts/import-map.ts';
import { classify, docFiles, headingsOf, namesOf, problemOf, refsOf, sectionRefsOf, staleRefs, type DocRef, type Tree } from '../../scripts/docs-refs.ts';

const root = resolve(import.meta.dirname, '../..');

describe('the docs reference only what exists', () => {
  it('checks many references, and every one resolves', () => {
    const { refs, stale } = staleRefs(root);
    expect(refs.length).toBeGreaterThan(500);
    expect(stale.map((s) => `${s.doc}:${s.line} ${s.ref} (${s.problem})`)).toEqual([]);
  });

  it(`keeps every doc at most ${MAX_LINES} lines, as the code`, () => {
    const long = docFiles(root).map((doc) => ({ doc, lines: readFileSync(join(root, doc), 'utf8').trimEnd().split('\n').length })).filter((d) => d.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

describe('what counts as a reference', () => {
  it('takes paths, file names and code-shaped names; leaves flags, commands, values and prose', () => {
    expect(classify('src/lib/stats/paired.ts')).toBe('path');
    expect(classify('docs/cli.md')).toBe('path');
    expect(classify('cli/')).toBe('path');
    expect(classify('paired-stats.ts')).toBe('file');
    expect(classify('eval/analysis.ts')).toBe('file');
    expect(classify('App.svelte')).toBe('file');
    for (const name of ['setLoaded', 'KnowledgeBase', 'REPORT_METRICS', 'openArtifact()', 'KnowledgeBase.fromItems', 'CHROMIUM_PATH']) expect(classify(name)).toBe('name');
    for (const other of ['--kb', 'rag-lab ask', 'sotu', 'ndcg@10', 'hybrid_calibrated', 'Authorization', 'meta.json', 'summary.extra.modes', 'reports/report_<id>.json', 'null', 'AbortSignal', 'pdf.worker.mjs']) {
      expect(classify(other), other).toBeNull();
    }
  });

  it('reads inline code outside fenced blocks, and relative links, with line numbers', () => {
    const text = 'Intro `setLoaded` here.\n\n```sh\nnpx `notARef`\n```\nThe `--kb` flag\nand `src/lib/x.ts`, [a](cli.md#flags), [b](https://x.org/y.md).\n';
    expect(refsOf('docs/a.md', text).map((r) => [r.line, r.ref, r.kind])).toEqual([
      [1, 'setLoaded', 'name'],
      [7, 'src/lib/x.ts', 'path'],
      [7, 'cli.md#flags', 'link'],
    ]);
  });

  it('finds exported names, components, and the words of the code without its comments', () => {
    const ts = namesOf('src/lib/x.ts', 'export function runIt() {}\nexport { a as shownName, type B };\n// gone: setLoaded\nconst field = { candidateK: 1 };\n');
    expect(ts.exported).toEqual(['runIt', 'shownName', 'B']);
    expect(ts.words).toContain('candidateK');
    expect(ts.words).not.toContain('setLoaded');
    expect(namesOf('src/ui/tabs/BenchTab.svelte', '<script></script>').exported).toEqual(['BenchTab']);
    expect(namesOf('scripts/m.py', 'def make_model():\n    pass\nOPSET = 17\n').exported).toEqual(['make_model', 'OPSET']);
  });

  it('resolves each kind against the tree, and names what is stale', () => {
    const tree: Tree = {
      paths: new Set(['src', 'src/lib', 'src/lib/stats', 'src/lib/stats/paired.ts', 'docs', 'docs/cli.md']),
      exported: new Set(['KnowledgeBase', 'REPORT_METRICS']),
      words: new Set(['KnowledgeBase', 'fromItems', 'loaded', 'REPORT_METRICS', 'CHROMIUM_PATH']),
      headings: new Map([['docs/cli.md', ['The CLI', 'Flag ranges (checked before a run)']]]),
    };
    const ref = (r: string, kind: DocRef['kind'], doc = 'docs/internals/x.md'): DocRef => ({ doc, line: 1, ref: r, kind });
    expect(problemOf(ref('src/lib/stats/paired.ts', 'path'), tree)).toBeNull();
    expect(problemOf(ref('src/lib/stats/', 'path'), tree)).toBeNull();
    expect(problemOf(ref('src/lib/stats/paired-stats.ts', 'path'), tree)).toBe('no such file or folder');
    expect(problemOf(ref('stats/paired.ts', 'file'), tree)).toBeNull();
    expect(problemOf(ref('paired-stats.ts', 'file'), tree)).toBe('no file of the tree has this name');
    expect(problemOf(ref('KnowledgeBase.fromItems', 'name'), tree)).toBeNull();
    expect(problemOf(ref('KnowledgeBase.fromText', 'name'), tree)).toBe('KnowledgeBase has no member fromText');
    expect(problemOf(ref('CHROMIUM_PATH', 'name'), tree)).toBeNull();
    expect(problemOf(ref('setLoaded', 'name'), tree)).toBe('not a name the code declares');
    expect(problemOf(ref('ModelsState', 'name'), tree)).toBe('not exported by the code');
    expect(problemOf(ref('../cli.md#flags', 'link'), tree)).toBeNull();
    expect(problemOf(ref('../build.md', 'link'), tree)).toBe('links to docs/build.md, which does not exist');
    expect(problemOf(ref('docs/cli.md#Flag ranges', 'section'), tree)).toBeNull();
    expect(problemOf(ref('docs/cli.md#Confidence and rejection', 'section'), tree)).toBe('docs/cli.md has no section "Confidence and rejection"');
    expect(problemOf(ref('docs/build.md#From arXiv', 'section'), tree)).toBe('no such file: docs/build.md');
  });

  it('finds sections named in words, in docs and in code, and the headings outside fenced blocks', () => {
    const code = "// see docs/cli.md \"Flag ranges\"\nthrow new Error('… (`docs/build.md`, \"From web pages\")');\n";
    expect(sectionRefsOf('src/x.ts', code).map((r) => [r.line, r.ref])).toEqual([[1, 'docs/cli.md#Flag ranges'], [2, 'docs/build.md#From web pages']]);
    expect(headingsOf('# Title\n\n```sh\n# not a heading\n```\n### A part (`x.ts`)\n')).toEqual(['Title', 'A part (`x.ts`)']);
  });
});
