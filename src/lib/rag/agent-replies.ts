/**
 * Parsing the agentic workflow's replies (agentic.ts), tolerantly: the grades of the sources (JSON in its many
 * shapes, or "Source 1: relevant" lines) and the reflection ("ok" or "search for X").
 */
import { parseJsonLoose, stripFences } from './transforms.ts';

/** True / false from the many ways a model writes a verdict; null when it is none of them. */
function verdictOf(x: unknown): boolean | null {
  if (typeof x === 'boolean') return x;
  if (typeof x === 'number') return x >= 0.5;
  if (typeof x !== 'string') return null;
  const s = x.trim().toLowerCase();
  if (/^(not|no|n|false|irrelevant|not relevant|unrelated|0)\b/.test(s)) return false;
  if (/^(yes|y|true|relevant|partially relevant|partly relevant|partial|1)\b/.test(s)) return true;
  return null;
}

const ID_KEYS = ['source', 'id', 'n', 'index', 'number', 'source_id', 'sourceId', 'doc', 'document', 'passage'];
const VERDICT_KEYS = ['relevant', 'is_relevant', 'isRelevant', 'relevance', 'score', 'binary_score', 'grade', 'verdict', 'label', 'judgement', 'judgment'];

function numberOf(x: unknown): number | null {
  if (typeof x === 'number' && Number.isInteger(x)) return x;
  if (typeof x === 'string') {
    const m = /\d+/.exec(x);
    return m ? Number(m[0]) : null;
  }
  return null;
}

function gradesFromJson(x: unknown, count: number, out: Map<number, boolean>): void {
  if (Array.isArray(x)) {
    if (x.length > 0 && x.every((e) => typeof e === 'number' || (typeof e === 'string' && /^\s*(source\s*)?#?\d+\s*$/i.test(e)))) {
      // a list of the relevant sources
      const rel = new Set(x.map(numberOf));
      for (let n = 1; n <= count; n++) out.set(n, rel.has(n));
      return;
    }
    if (x.length > 0 && x.every((e) => verdictOf(e) !== null && typeof e !== 'object')) {
      x.forEach((e, i) => out.set(i + 1, verdictOf(e)!)); // verdicts by position
      return;
    }
    x.forEach((e, i) => {
      if (!e || typeof e !== 'object') return;
      const o = e as Record<string, unknown>;
      const idKey = ID_KEYS.find((k) => k in o);
      const n = idKey ? numberOf(o[idKey]) : i + 1;
      const vKey = VERDICT_KEYS.find((k) => k in o);
      const v = vKey ? verdictOf(o[vKey]) : null;
      if (n !== null && v !== null) out.set(n, v);
    });
    return;
  }
  if (!x || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  for (const [k, val] of Object.entries(o)) {
    if (/^(relevant|relevant_sources|relevant_ids|relevantSources|keep)$/i.test(k) && Array.isArray(val)) {
      const rel = new Set(val.map(numberOf));
      for (let n = 1; n <= count; n++) out.set(n, rel.has(n));
      return;
    }
  }
  for (const val of Object.values(o)) {
    if (Array.isArray(val)) {
      gradesFromJson(val, count, out);
      if (out.size > 0) return;
    }
  }
  for (const [k, val] of Object.entries(o)) {
    const n = numberOf(k);
    const v = verdictOf(typeof val === 'object' && val !== null ? (val as Record<string, unknown>)[VERDICT_KEYS.find((vk) => vk in (val as object)) ?? ''] : val);
    if (n !== null && v !== null) out.set(n, v);
  }
}

/**
 * The grader's verdicts by source number (1..count). Accepts {"grades": [{"source": 1, "relevant": true}]}, a
 * list of relevant numbers, {"relevant": [1, 3]}, {"1": "yes"}, verdicts by position, or lines such as
 * "Source 2: not relevant". Sources the reply does not judge are absent from the map.
 */
export function parseGrades(reply: string, count: number): Map<number, boolean> {
  const out = new Map<number, boolean>();
  const json = parseJsonLoose(reply);
  if (json !== null) gradesFromJson(json, count, out);
  if (out.size === 0) {
    const line = /(?:source|passage|document|doc|\[)?\s*#?(\d{1,3})\]?\s*(?:[:=)\-–.]|is)?\s*(?:is\s+)?(not relevant|irrelevant|relevant|yes|no|true|false)\b/gi;
    for (const m of stripFences(reply).matchAll(line)) out.set(Number(m[1]), verdictOf(m[2])!);
  }
  for (const n of [...out.keys()]) if (n < 1 || n > count) out.delete(n);
  return out;
}

/**
 * One source's verdict (per-document grading): {"relevant": true}, {"binary_score": "yes"}, a bare true / "yes" /
 * "not relevant", or the batch forms for a single source; null when the reply judges nothing.
 */
export function parseOneGrade(reply: string): boolean | null {
  const json = parseJsonLoose(reply);
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const key = VERDICT_KEYS.find((k) => k in o && !Array.isArray(o[k]));
    const v = key ? verdictOf(o[key]) : null;
    if (v !== null) return v;
  } else if (json !== null) {
    const v = verdictOf(json);
    if (v !== null) return v;
  }
  const bare = verdictOf(stripFences(reply).trim().replace(/^["'`]+|["'`.]+$/g, ''));
  return bare ?? parseGrades(reply, 1).get(1) ?? null;
}

export type Reflection = { kind: 'ok' } | { kind: 'search'; query: string };

/** "ok" or "search for X" (also as JSON, quoted, or with Markdown); an unreadable reply counts as ok. */
export function parseReflection(reply: string): { verdict: Reflection; understood: boolean } {
  const t = stripFences(reply).trim();
  const json = parseJsonLoose(t);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const q = o.search ?? o.query ?? o.search_for;
    if (typeof q === 'string' && q.trim()) return { verdict: { kind: 'search', query: cleanQuery(q) }, understood: true };
    const v = String(o.verdict ?? o.action ?? o.result ?? '').toLowerCase();
    if (v === 'ok') return { verdict: { kind: 'ok' }, understood: true };
  }
  const first = t.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  if (/^[\s"'*`_]*ok(ay)?[\s"'*`_.!]*$/i.test(first)) return { verdict: { kind: 'ok' }, understood: true };
  const m = /search\s+for\s*[:\-–]?\s*(.+)/i.exec(t);
  if (m) {
    const query = cleanQuery(m[1]!.split(/\r?\n/)[0]!);
    if (query) return { verdict: { kind: 'search', query }, understood: true };
  }
  if (/^[\s"'*`_]*ok(ay)?\b/i.test(first)) return { verdict: { kind: 'ok' }, understood: true };
  return { verdict: { kind: 'ok' }, understood: false };
}

function cleanQuery(q: string): string {
  let s = q.trim();
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(/^[\s<"'“‘`*_:]+|[\s>"'”’`*_.!]+$/g, '');
  }
  return s;
}
