/**
 * Reading values out of a shared link's parameters, the same way for every tab: a blank value counts as absent
 * (never as `Number('') === 0`), a list keeps each entry once, unknown entries are dropped, a parameter given twice
 * keeps its first value — each case with a warning for the user, so a hand-edited link never fails silently.
 */

/** Shown values are cut, so a huge parameter cannot flood the warnings. */
export const quote = (raw: string) => JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);

/** Characters of one link parameter's name or value (a tab may allow more for its free text, e.g. the query). */
export const MAX_LINK_VALUE_CHARS = 1_000;

/**
 * `p` without the parameters a tab `owns` whose name or value is over `max` characters, each named in a warning, so
 * a link with `bk=` of 200,000 characters runs its search without it and says why (never a 200,000-character
 * warning). Nothing longer than `max` is parsed or shown; the values of `free` (free text the tab cuts itself) are kept.
 */
export function dropOversized(p: URLSearchParams, owns: (key: string) => boolean, free: readonly string[] = [], max = MAX_LINK_VALUE_CHARS): { params: URLSearchParams; warnings: string[] } {
  const params = new URLSearchParams();
  const warnings: string[] = [];
  for (const [key, value] of p) {
    if (!owns(key)) continue;
    const n = Math.max(key.length, value.length);
    if (n <= max || free.includes(key)) { params.append(key, value); continue; }
    const what = key.length > max ? `a parameter whose name has ${key.length.toLocaleString('en-US')} characters (${quote(key)})` : `${key}= (its value has ${value.length.toLocaleString('en-US')} characters)`;
    warnings.push(`Ignored ${what} in the link: at most ${max.toLocaleString('en-US')}; the rest of the link is used.`);
  }
  return { params, warnings };
}

/** Whether a parameter's value is empty or only spaces (`?k=`, `?thr=%20`). */
export function isBlank(raw: string): boolean {
  return raw.trim() === '';
}

/** The warning for a blank parameter that is then treated as absent. */
export function blankWarning(param: string, fallback: string): string {
  return `Ignored the empty ${param}= in the link; using ${fallback}.`;
}

/** Warnings for each of `params` that the link gives more than once (the first value is the one used). */
export function repeatedParamWarnings(p: URLSearchParams, params: Iterable<string>): string[] {
  const out: string[] = [];
  for (const param of params) {
    const n = p.getAll(param).length;
    if (n > 1) out.push(`The link gives ${param} ${n} times; using the first (${quote(p.get(param) ?? '')}).`);
  }
  return out;
}

/**
 * `values` with blanks dropped and each entry once, in order of first appearance; `allowed`, when given, drops
 * unknown entries. Every change is named in `warnings`.
 */
export function uniqueList<T extends string>(
  values: readonly string[], param: string, allowed?: readonly T[],
): { values: T[]; warnings: string[] } {
  const warnings: string[] = [];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  const unknown: string[] = [];
  const out: T[] = [];
  for (const raw of values) {
    const x = raw.trim();
    if (x === '') continue;
    if (allowed && !(allowed as readonly string[]).includes(x)) { unknown.push(x); continue; }
    if (seen.has(x)) { repeated.add(x); continue; }
    seen.add(x);
    out.push(x as T);
  }
  if (unknown.length) warnings.push(`Ignored unknown ${param} ${unknown.map(quote).join(', ')} in the link${allowed ? ` (known: ${allowed.join(', ')})` : ''}.`);
  if (repeated.size) warnings.push(`The link lists ${[...repeated].map(quote).join(', ')} more than once in ${param}; each is used once.`);
  return { values: out, warnings };
}

/**
 * A link's "rows per subset" (`b_n`): `all` → null (every row), a whole number ≥ 1 → itself; a number beyond any
 * count (above 2^53 − 1) → all rows, with a warning; anything else is ignored with a warning (`n` absent).
 */
export function rowCountParam(raw: string | null, param: string): { n?: number | null; warning?: string } {
  if (raw === null) return {};
  if (isBlank(raw)) return { warning: blankWarning(param, 'the current number of rows') };
  if (raw.trim() === 'all') return { n: null };
  const x = Number(raw);
  if (!Number.isInteger(x) || x < 1) return { warning: `Ignored invalid ${param}=${quote(raw)} in the link (a whole number of rows from 1, or all).` };
  if (x > Number.MAX_SAFE_INTEGER) return { n: null, warning: `${param}=${quote(raw)} in the link is more rows than any dataset holds: using all rows.` };
  return { n: x };
}

/** The "rows per subset" box: empty → null (all), else a whole number ≥ 1; past 2^53 − 1, all rows (null). */
export function rowCountInput(raw: string): number | null {
  if (raw.trim() === '') return null;
  const x = Math.max(1, Math.round(Number(raw)));
  return Number.isSafeInteger(x) ? x : null;
}
