// The docs' references to the code, checked: every file path, exported name and relative link that README.md and
// docs/**/*.md write must still exist. `npx tsx scripts/docs-refs.ts` lists what is stale; tests/unit/docs-refs.test.ts
// holds the rule. What counts (in an inline code span `…`, outside fenced blocks):
//   - a path under a root of the tree (src/ workers/ cli/ scripts/ tests/ docs/ public/): a file or folder of the tree;
//   - a file name (`x.ts`, `eval/x.ts`, `App.svelte`): some file of the tree ends with it;
//   - a code name: camelCase (`openArtifact`), PascalCase of two or more words (`KnowledgeBase`), UPPER_CASE with an
//     underscore (`REPORT_METRICS`), optionally `Type.member` or called `name()`. A PascalCase name must be exported (or
//     be a component's file name) by src/ workers/ cli/ scripts/ tests/helpers/ or the build's config files; a camelCase or
//     UPPER_CASE one must occur in that code (an export, a field, a method, an environment variable it reads);
// Flags (`--kb`), commands, settings values and prose stay unchecked; NOT_CODE lists the few code-shaped terms that
// name something outside the tree. Relative Markdown links ([x](other.md#part)) must point to a file of the tree, and a
// section named in words (`docs/build.md "From web pages"`, in a doc or in the code) must be a heading of that doc.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';

/** Code-shaped words in the docs that are not this tree's code: environment variables, HTTP headers, other libraries. */
export const NOT_CODE = new Set([
  // the platform
  'AbortSignal', 'MessagePort', 'CompressionStream', 'SOURCE_DATE_EPOCH',
  // libraries: transformers.js, minisearch, pdf.js, fflate
  'BertTokenizer', 'utils/cache.js', 'utils/hub.js', 'getCache', 'tryCache', 'SearchableMap', 'pdf.worker.mjs', 'unzipSync',
]);

const PATH_ROOTS = ['src/', 'workers/', 'cli/', 'scripts/', 'tests/', 'docs/', 'public/'];
const CODE_ROOTS = ['src', 'workers', 'cli', 'scripts', 'tests/helpers'];
/** The build's configuration files at the root: their names count as the code's too. */
const ROOT_CODE = new Set(['vite.config.ts', 'vitest.config.ts', 'svelte.config.js']);
const CODE_FILE = /\.(ts|svelte|js|mjs|py)$/;
const FILE_NAME = /^\w[\w.-]*(\/[\w.-]+)*\.(ts|svelte|js|mjs|py|json|md|css|html)$/;
const CAMEL = /^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/;
const PASCAL = /^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$/;
const UPPER = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

export interface DocRef {
  doc: string;
  line: number;
  ref: string;
  kind: 'path' | 'file' | 'name' | 'link' | 'section';
}

export interface Tree {
  /** Every file and folder, relative to the root ('src/lib/x.ts', 'src/lib'). */
  paths: Set<string>;
  /** Names the code exports (and component names). */
  exported: Set<string>;
  /** Every identifier that occurs in the code (fields, methods, parameters…). */
  words: Set<string>;
  /** The headings of each Markdown file ('docs/build.md' → ['Building a knowledge base', 'The Build tab', …]). */
  headings: Map<string, string[]>;
}

function walk(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name.startsWith('.') || name === 'dist') continue;
    const path = dir ? `${dir}/${name}` : name;
    out.push(path);
    if (statSync(join(root, path)).isDirectory()) walk(root, path, out);
  }
}

const EXPORT_DECL = /export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g;
const EXPORT_LIST = /export\s+(?:type\s+)?\{([^}]*)\}/g;

/** The exported names and the words of one source text. */
export function namesOf(path: string, text: string): { exported: string[]; words: string[] } {
  const exported = [...text.matchAll(EXPORT_DECL)].map((m) => m[1]!);
  for (const m of text.matchAll(EXPORT_LIST)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, '').trim();
      if (name) exported.push(name);
    }
  }
  if (path.endsWith('.svelte')) exported.push(path.split('/').pop()!.replace(/\.svelte$/, ''));
  if (path.endsWith('.py')) exported.push(...[...text.matchAll(/^(?:def|class)\s+(\w+)|^([A-Z][A-Z0-9_]+)\s*=/gm)].map((m) => (m[1] ?? m[2])!));
  // Words of the code, not of its comments: a name that only a comment still mentions is gone.
  const code = path.endsWith('.py') ? text.replace(/^\s*#.*$/gm, '') : text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
  return { exported, words: code.match(/[A-Za-z_$][\w$]*/g) ?? [] };
}

export function readTree(root: string): Tree {
  const all: string[] = [];
  walk(root, '', all);
  const tree: Tree = { paths: new Set(all), exported: new Set(), words: new Set(), headings: new Map() };
  for (const path of all) {
    if (path.endsWith('.md')) tree.headings.set(path, headingsOf(readFileSync(join(root, path), 'utf8')));
    if ((!CODE_ROOTS.some((r) => path.startsWith(`${r}/`)) && !ROOT_CODE.has(path)) || !CODE_FILE.test(path) || path === 'scripts/docs-refs.ts') continue;
    const { exported, words } = namesOf(path, readFileSync(join(root, path), 'utf8'));
    for (const n of exported) tree.exported.add(n);
    for (const w of words) tree.words.add(w);
  }
  return tree;
}

/** The headings of a Markdown text, outside fenced blocks. */
export function headingsOf(text: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && /^#{1,6}\s/.test(line)) out.push(line.replace(/^#+\s+/, '').trim());
  }
  return out;
}

/** A doc's section named in words: `docs/build.md "From web pages"`, `docs/hub.md, "Reports in a dataset repo"`. */
const SECTION = /`?((?:docs\/[\w/.-]+|README)\.md)`?,? "([^"\n]+)"/g;

/** The sections any text (a doc, a code comment, a message) names, with their line numbers. */
export function sectionRefsOf(file: string, text: string): DocRef[] {
  return [...text.matchAll(SECTION)].map((m) => ({ doc: file, line: text.slice(0, m.index).split('\n').length, ref: `${m[1]}#${m[2]}`, kind: 'section' as const }));
}

/** The references one Markdown text makes (fenced blocks skipped), with their line numbers. */
export function refsOf(doc: string, text: string): DocRef[] {
  const refs: DocRef[] = [];
  const lines = text.split('\n');
  let fenced = false;
  // Inline code may wrap onto the next line: read paragraph by paragraph, remembering where each starts.
  let para: string[] = [];
  let start = 0;
  const flush = () => {
    const body = para.join('\n');
    const lineAt = (i: number) => start + body.slice(0, i).split('\n').length;
    for (const m of body.matchAll(/(`+)([^`]+?)\1/g)) {
      const ref = m[2]!.replace(/\s+/g, ' ').trim();
      const kind = classify(ref);
      if (kind) refs.push({ doc, line: lineAt(m.index!), ref, kind });
    }
    for (const m of body.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:|^#|^\/\//i.test(target)) continue;
      refs.push({ doc, line: lineAt(m.index!), ref: target, kind: 'link' });
    }
    para = [];
  };
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      if (!fenced) flush();
      fenced = !fenced;
      start = i + 1;
      return;
    }
    if (fenced) return;
    if (line.trim() === '') {
      flush();
      start = i + 1;
      return;
    }
    if (para.length === 0) start = i;
    para.push(line);
  });
  flush();
  return refs;
}

/** What an inline code span is, for the check; null: not a reference to the tree (a flag, a value, prose). */
export function classify(ref: string): DocRef['kind'] | null {
  if (/[\s<>{}*|…]|\.\.\./.test(ref)) return null; // a command line, a placeholder or a pattern
  const path = ref.replace(/:\d+(-\d+)?$/, '').replace(/#.*$/, '');
  if (PATH_ROOTS.some((r) => path.startsWith(r))) return 'path';
  if (FILE_NAME.test(path) && /\.(ts|svelte|js|mjs|py)$/.test(path)) return NOT_CODE.has(path) ? null : 'file';
  const name = ref.replace(/\(\)$/, '');
  const [head, member, ...rest] = name.split('.');
  if (rest.length > 0 || !head) return null;
  if (member !== undefined && !(PASCAL.test(head) && /^[A-Za-z_$][\w$]*$/.test(member))) return null;
  if (CAMEL.test(head) || PASCAL.test(head) || UPPER.test(head)) return NOT_CODE.has(head) ? null : 'name';
  return null;
}

/** Why a reference is stale, or null when it resolves. */
export function problemOf(ref: DocRef, tree: Tree): string | null {
  switch (ref.kind) {
    case 'path': {
      const path = ref.ref.replace(/:\d+(-\d+)?$/, '').replace(/#.*$/, '').replace(/\/$/, '');
      return tree.paths.has(path) ? null : 'no such file or folder';
    }
    case 'file': {
      const path = ref.ref.replace(/:\d+(-\d+)?$/, '');
      for (const p of tree.paths) if (p === path || p.endsWith(`/${path}`)) return null;
      return 'no file of the tree has this name';
    }
    case 'name': {
      const [head, member] = ref.ref.replace(/\(\)$/, '').split('.') as [string, string | undefined];
      const known = tree.exported.has(head) || (!PASCAL.test(head) && tree.words.has(head));
      if (!known) return PASCAL.test(head) ? 'not exported by the code' : 'not a name the code declares';
      return member === undefined || tree.words.has(member) ? null : `${head} has no member ${member}`;
    }
    case 'section': {
      const [doc, title] = [ref.ref.slice(0, ref.ref.indexOf('#')), ref.ref.slice(ref.ref.indexOf('#') + 1)];
      const headings = tree.headings.get(doc);
      if (!headings) return `no such file: ${doc}`;
      return headings.some((h) => h === title || h.startsWith(title)) ? null : `${doc} has no section "${title}"`;
    }
    case 'link': {
      const target = normalize(join(dirname(ref.doc), decodeURI(ref.ref.replace(/#.*$/, '')))).replace(/\/$/, '');
      return target === '' || tree.paths.has(target) ? null : `links to ${target}, which does not exist`;
    }
  }
}

/** The Markdown files the check reads: README.md and docs/**. */
export function docFiles(root: string): string[] {
  const all: string[] = [];
  walk(root, 'docs', all);
  return ['README.md', ...all.filter((p) => p.endsWith('.md')).sort()];
}

export interface StaleRef extends DocRef {
  problem: string;
}

export function staleRefs(root: string): { refs: DocRef[]; stale: StaleRef[] } {
  const tree = readTree(root);
  const refs = docFiles(root).flatMap((doc) => refsOf(doc, readFileSync(join(root, doc), 'utf8')));
  // Sections named by the docs and by the code (comments and messages that send the reader to a doc).
  const all: string[] = [];
  walk(root, '', all);
  for (const file of [...docFiles(root), ...all.filter((p) => CODE_FILE.test(p) && CODE_ROOTS.some((r) => p.startsWith(`${r}/`)) && p !== 'scripts/docs-refs.ts')]) {
    refs.push(...sectionRefsOf(file, readFileSync(join(root, file), 'utf8')));
  }
  const stale: StaleRef[] = [];
  for (const r of refs) {
    const problem = problemOf(r, tree);
    if (problem) stale.push({ ...r, problem });
  }
  return { refs, stale };
}

function main(): void {
  const root = resolve(process.argv[2] ?? '.');
  const { refs, stale } = staleRefs(root);
  const count = (k: DocRef['kind']) => refs.filter((r) => r.kind === k).length;
  console.log(`${refs.length} references checked (${count('path')} paths, ${count('file')} file names, ${count('name')} code names, ${count('link')} links, ${count('section')} named sections)`);
  console.log(`stale (${stale.length}):`);
  for (const s of stale) console.log(`  ${relative(root, join(root, s.doc))}:${s.line}  ${s.ref}  (${s.problem})`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
