/**
 * The knowledge bases the picker offers: the embedded ones shipped with the build, Hub artifact repos the user added
 * (`{repo, revision, path}`), later uploads. Each has a stable id (`sotu`, `hub:owner/name/path@revision`) that is the
 * `kb=` link parameter and part of every config hash. A reference from a link or from storage is validated here
 * (valibot); an unknown or malformed one gets a warning and the default knowledge base, like other link parameters.
 */
import * as v from 'valibot';
import { LOCAL_KB_NAME } from './local-kb-meta.ts';
import { blankWarning, isBlank } from '../link-params.ts';
import type { KbSourceRef } from './kb-source.ts';
import { sotuDescriptor } from './sotu.ts';
import { RAGBENCH_SUBSETS } from './ragbench.ts';

export type HubKbRef = Extract<KbSourceRef, { kind: 'hub' }>;

/** One entry of the picker. */
export interface KbEntry {
  id: string;
  title: string;
  description: string;
  ref: KbSourceRef;
}

export const DEFAULT_KB: Readonly<KbEntry> = Object.freeze({
  id: sotuDescriptor.id, title: sotuDescriptor.title, description: sotuDescriptor.description, ref: sotuDescriptor.source,
});

/** Knowledge bases that ship with the build. */
export const EMBEDDED_KBS: readonly KbEntry[] = Object.freeze([DEFAULT_KB]);

/** A repo or path segment: starts with a letter or digit (so never `.` or `..`), then letters, digits, `._-`. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;
const segments = (s: string) => s.split('/');

const Repo = v.pipe(v.string(), v.check((s) => { const p = segments(s); return p.length === 2 && p.every((x) => SEGMENT.test(x)); },
  'the repo must be owner/name (letters, digits, . _ -)'));
/** A branch, tag or commit sha; `refs/pr/1` style names are allowed, `..` segments and `@` are not. */
const Revision = v.pipe(v.string(), v.maxLength(200), v.check((s) => segments(s).every((x) => SEGMENT.test(x)),
  'the revision must be a branch, tag or commit (letters, digits, . _ - /), without ".." or "@"'));
/** The index folder inside the repo ('' = the repo root, e.g. a seed-A layout); never climbs out of it. */
const IndexPath = v.pipe(v.string(), v.maxLength(300), v.check((s) => s === '' || segments(s).every((x) => SEGMENT.test(x)),
  'the index path must be a folder inside the repo (no leading "/", no ".." segment)'));

export const HubKbRefSchema = v.object({ kind: v.literal('hub'), repo: Repo, revision: Revision, path: IndexPath });

/** A knowledge base built in this browser: `local:<name>`. */
export const localKbId = (name: string) => `local:${name}`;

/** The stable id of a knowledge base source (the `kb=` link value). */
export function kbIdOf(ref: KbSourceRef): string {
  switch (ref.kind) {
    case 'embedded': return ref.id;
    case 'hub': return `hub:${ref.repo}${ref.path ? `/${ref.path}` : ''}@${ref.revision}`;
    case 'folder': return `folder:${ref.path}`;
    case 'beir': return `beir:${ref.path}`;
    case 'ragbench': return `ragbench:${ref.subset}`;
    case 'local': return localKbId(ref.name);
  }
}

/**
 * What a config hash records about the knowledge base: its id, plus the commit sha the artifact was read at when
 * the revision was a branch or tag (so a repo that moved on is a different knowledge base).
 */
export function kbConfigKey(ref: KbSourceRef, pinnedSha: string | null = null): string {
  const id = kbIdOf(ref);
  return ref.kind === 'hub' && pinnedSha && pinnedSha !== ref.revision ? `${id}#${pinnedSha}` : id;
}

/** A picker entry for a Hub artifact repo. */
export function hubEntry(ref: HubKbRef, title?: string, description?: string): KbEntry {
  const where = `${ref.repo}${ref.path ? `/${ref.path}` : ''}`;
  return { id: kbIdOf(ref), title: title || where, description: description || `Index artifact from the Hub dataset ${ref.repo} at ${ref.revision}.`, ref };
}

/** A picker entry for a knowledge base built in this browser (`local:<name>`); without a title, its name. */
export function localEntry(name: string, title?: string, description?: string): KbEntry {
  return { id: kbIdOf({ kind: 'local', name }), title: title || name, description: description || 'Built in this browser (Build tab).', ref: { kind: 'local', name } };
}

/**
 * A picker entry for a RAGBench test subset (`ragbench:<subset>`): every question's documents pooled, with the
 * questions' gold labels for the Ask tab (rag/kb-open-ragbench.ts opens it).
 */
export function ragbenchEntry(subset: string): KbEntry {
  return {
    id: kbIdOf({ kind: 'ragbench', subset }), title: `RAGBench ${subset}`, ref: { kind: 'ragbench', subset },
    description: `The documents of RAGBench's ${subset} test questions, pooled, with each question's gold labels (read from the Hub, or from the file picked for ${subset} in the Benchmark tab).`,
  };
}

/** The RAGBench subsets the picker offers. */
export const RAGBENCH_KBS: readonly KbEntry[] = Object.freeze(RAGBENCH_SUBSETS.map(ragbenchEntry));

/** A local knowledge base's search placeholder, from its title as it is now (its artifact's was made from the first title). */
export function localPlaceholder(title: string): string {
  return `Search ${title}`;
}

export type KbRefResult = { ok: true; ref: HubKbRef } | { ok: false; message: string };

/** Validates a Hub reference from a form, storage or a link; the message says what is wrong. */
export function parseHubRef(x: { repo: string; revision?: string; path?: string }): KbRefResult {
  const r = v.safeParse(HubKbRefSchema, { kind: 'hub', repo: x.repo.trim(), revision: (x.revision ?? '').trim() || 'main', path: (x.path ?? '').trim().replace(/\/+$/, '') });
  return r.success ? { ok: true, ref: r.output } : { ok: false, message: r.issues[0]!.message };
}

/** A repo as the user may type it: `owner/name`, or the dataset's Hub page URL. */
export function repoFromInput(raw: string): string {
  const s = raw.trim();
  const m = /^https?:\/\/[^/]+\/datasets\/([^/?#]+\/[^/?#]+)/.exec(s);
  return m ? m[1]! : s.replace(/^datasets\//, '');
}

/** `hub:owner/name[/path]@revision` → a Hub reference (revision `main` when absent). */
export function parseHubId(id: string): KbRefResult {
  if (!id.startsWith('hub:')) return { ok: false, message: 'a Hub knowledge base id starts with "hub:"' };
  const body = id.slice(4);
  const at = body.lastIndexOf('@');
  const where = at < 0 ? body : body.slice(0, at);
  const revision = at < 0 ? 'main' : body.slice(at + 1);
  const parts = segments(where);
  return parseHubRef({ repo: parts.slice(0, 2).join('/'), revision, path: parts.slice(2).join('/') });
}

const quote = (raw: string) => JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);

/**
 * The knowledge base a link's `kb=` names, among `known` (embedded and added ones) or as a Hub reference; anything
 * else gets a warning and the default.
 */
export function kbFromLink(raw: string | null, known: readonly KbEntry[] = EMBEDDED_KBS): { entry: KbEntry; warnings: string[] } {
  const fallback = (w: string) => ({ entry: DEFAULT_KB, warnings: [w] });
  if (raw === null) return { entry: DEFAULT_KB, warnings: [] };
  if (isBlank(raw)) return fallback(blankWarning('kb', DEFAULT_KB.title));
  const id = raw.trim();
  const found = known.find((k) => k.id === id);
  if (found) return { entry: found, warnings: [] };
  if (id.startsWith('local:')) {
    // Not listed (yet): opening it says whether this browser has it (KbState checks the local list).
    const name = id.slice(6);
    if (LOCAL_KB_NAME.test(name)) return { entry: localEntry(name), warnings: [] };
    return fallback(`The knowledge base ${quote(id)} in the link is not a valid local name (lower-case letters, digits, . _ -); opening ${DEFAULT_KB.title}.`);
  }
  if (id.startsWith('hub:')) {
    const r = parseHubId(id);
    if (r.ok) return { entry: known.find((k) => k.id === kbIdOf(r.ref)) ?? hubEntry(r.ref), warnings: [] };
    return fallback(`The knowledge base ${quote(id)} in the link is not a valid Hub reference (${r.message}); opening ${DEFAULT_KB.title}.`);
  }
  const subsets = known.filter((k) => k.ref.kind === 'ragbench').map((k) => (k.ref as { subset: string }).subset);
  const ids = [...known.filter((k) => k.ref.kind !== 'ragbench').map((k) => k.id), ...(subsets.length ? [`ragbench:<${subsets.join('|')}>`] : [])];
  return fallback(`Unknown knowledge base ${quote(id)} in the link (known: ${ids.join(', ')}, or hub:owner/name/path@revision); opening ${DEFAULT_KB.title}.`);
}

export const USER_KBS_KEY = 'rag-lab:knowledge-bases';
const StoredEntry = v.object({ ref: HubKbRefSchema, title: v.optional(v.pipe(v.string(), v.maxLength(200))), description: v.optional(v.pipe(v.string(), v.maxLength(2000))) });
/** At most this many added knowledge bases are kept. */
export const MAX_USER_KBS = 50;

/** The Hub knowledge bases the user added (localStorage); invalid records are dropped with a warning. */
export function parseStoredKbs(raw: string | null): { entries: KbEntry[]; warning: string | null } {
  if (raw === null) return { entries: [], warning: null };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { entries: [], warning: 'The list of added knowledge bases was unreadable and was reset.' };
  }
  if (!Array.isArray(json)) return { entries: [], warning: 'The list of added knowledge bases was not a list and was reset.' };
  const entries: KbEntry[] = [];
  let bad = 0;
  for (const x of json.slice(0, MAX_USER_KBS)) {
    const r = v.safeParse(StoredEntry, x);
    if (r.success && !entries.some((e) => e.id === kbIdOf(r.output.ref))) entries.push(hubEntry(r.output.ref, r.output.title, r.output.description));
    else if (!r.success) bad++;
  }
  return { entries, warning: bad ? `${bad} added knowledge base record(s) were invalid and were dropped.` : null };
}

/** What `parseStoredKbs` reads back. */
export function storedKbs(entries: readonly KbEntry[]): string {
  return JSON.stringify(entries.filter((e) => e.ref.kind === 'hub').slice(0, MAX_USER_KBS).map((e) => ({ ref: e.ref, title: e.title, description: e.description })));
}
