/**
 * The Search tab's state in the page URL (`?q=…&mode=…`), so a search is a shareable link and nothing typed is
 * lost on reload. Unknown or invalid values fall back to defaults, blank ones count as absent, repeated filter values
 * are kept once — each with a warning for the user.
 *
 * Filters are generic, by metadata field: `f.<field>=value` (repeatable) for a values facet, `min.<field>=` and
 * `max.<field>=` for a range facet. Older links' `ymin`, `ymax` and `party` still mean `min.year`, `max.year` and
 * `f.party`. Which fields exist is only known once the knowledge base is open (`fitFilters` in filters.ts).
 */
import * as v from 'valibot';
import { blankWarning, dropOversized, isBlank, repeatedParamWarnings, uniqueList } from '../../lib/link-params.ts';
import type { MetaFilter } from '../../lib/retrieval/filter.ts';
import { SEARCH_DEFAULTS, SEARCH_SETTINGS, type SearchSettings } from '../../lib/settings/search.ts';
import { urlCodec } from '../../lib/settings/url-codec.ts';
import type { Setting } from '../../lib/settings/schema.ts';

/** The query, the search settings (src/lib/settings/search.ts: their parameters, defaults and bounds) and the filters. */
export interface SearchUrlState extends SearchSettings {
  q: string;
  /** Metadata filters, one per field, in the order the link gave them. */
  filters: MetaFilter[];
}

export const DEFAULT_URL_STATE: Readonly<SearchUrlState> = Object.freeze({ q: '', ...SEARCH_DEFAULTS, filters: [] });

const SETTINGS = urlCodec(SEARCH_SETTINGS);

/** The URL parameters the Search tab owns (plus the filter parameters, see `isSearchParam`). */
export const SEARCH_PARAMS: ReadonlySet<string> = new Set(['q', ...SETTINGS.params, 'ymin', 'ymax', 'party']);
/** A metadata field name as filter parameters carry it. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const FILTER_PARAM = /^(f|min|max)\.(.*)$/s;
/** Older links' filter parameters (the embedded corpus's year range and party). */
const LEGACY_FILTERS: Readonly<Record<string, { field: string; kind: 'min' | 'max' | 'values' }>> = {
  ymin: { field: 'year', kind: 'min' }, ymax: { field: 'year', kind: 'max' }, party: { field: 'party', kind: 'values' },
};

/** Whether the Search tab owns this URL parameter. */
export function isSearchParam(key: string): boolean {
  return SEARCH_PARAMS.has(key) || FILTER_PARAM.test(key);
}

/** Longest query kept in the URL (and searched). */
export const MAX_QUERY_CHARS = 10_000;
/** Longest filter value kept from a link. */
const MAX_VALUE_CHARS = 100;
/** Filter bounds: any finite number in this range (years, counts, scores…). */
const MAX_BOUND = 1e15;

const NumIn = (lo: number, hi: number) => v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(lo), v.maxValue(hi));
const Bound = NumIn(-MAX_BOUND, MAX_BOUND);

/** The filters a link gives, by field; every value dropped is named in `warnings`. */
function parseFilters(p: URLSearchParams, warnings: string[]): MetaFilter[] {
  const byField = new Map<string, MetaFilter>();
  const values = new Map<string, { param: string; raw: string[] }>();
  const seen = new Set<string>();
  for (const param of new Set(p.keys())) {
    const legacy = LEGACY_FILTERS[param];
    const m = legacy ? null : FILTER_PARAM.exec(param);
    if (!legacy && !m) continue;
    const field = legacy ? legacy.field : m![2]!;
    const kind = legacy ? legacy.kind : m![1] === 'f' ? 'values' : (m![1] as 'min' | 'max');
    if (!FIELD_NAME.test(field)) { warnings.push(`Ignored ${param}= in the link: "${field.slice(0, 60)}" is not a field name.`); continue; }
    const filter = byField.get(field) ?? { field };
    byField.set(field, filter);
    if (kind === 'values') {
      const v = values.get(field) ?? { param, raw: [] };
      v.raw.push(...p.getAll(param));
      values.set(field, v);
      continue;
    }
    // The same bound twice (min.year and the old ymin): the first one given is used.
    const slot = `${kind}.${field}`;
    const all = p.getAll(param);
    if (seen.has(slot) || all.length > 1) warnings.push(`The link gives ${kind}.${field} more than once; using the first.`);
    if (seen.has(slot)) continue;
    seen.add(slot);
    const raw = all[0]!;
    if (isBlank(raw)) { warnings.push(blankWarning(param, 'no limit')); continue; }
    const r = v.safeParse(Bound, raw);
    if (r.success) filter[kind] = r.output;
    else warnings.push(`Ignored invalid ${param}="${raw.slice(0, 60)}" in the link.`);
  }
  for (const [field, { param, raw }] of values) {
    const kept = raw.filter((x) => x.length <= MAX_VALUE_CHARS);
    if (kept.length < raw.length) warnings.push(`Ignored ${raw.length - kept.length} ${param} value(s) longer than ${MAX_VALUE_CHARS} characters in the link.`);
    const list = uniqueList(kept, param);
    warnings.push(...list.warnings);
    if (list.values.length) byField.get(field)!.values = list.values;
  }
  return [...byField.values()].filter((f) => f.min !== undefined || f.max !== undefined || f.values !== undefined);
}

/**
 * The Search tab's state from a link. A parameter of the tab over `MAX_LINK_VALUE_CHARS` (the query: over
 * `MAX_QUERY_CHARS`, then cut) is named and ignored before anything is parsed; the search runs with the rest.
 */
export function parseUrlState(search: string): { state: SearchUrlState; warnings: string[] } {
  const sized = dropOversized(new URLSearchParams(search), isSearchParam, ['q']);
  const p = sized.params;
  const q = p.get('q');
  const state: SearchUrlState = { ...DEFAULT_URL_STATE, filters: [] };
  const warnings: string[] = [...sized.warnings, ...repeatedParamWarnings(p, [...SEARCH_PARAMS].filter((k) => !(k in LEGACY_FILTERS)))];
  if (q !== null) {
    state.q = q.slice(0, MAX_QUERY_CHARS);
    if (q.length > MAX_QUERY_CHARS) warnings.push(`The query in the link was cut to ${MAX_QUERY_CHARS} characters.`);
  }
  SETTINGS.parse(p, state, warnings);
  state.filters = parseFilters(p, warnings);
  return { state, warnings };
}

/**
 * A nullable setting's field value: a value its declaration takes (bounds, whole when an int), else null (blank: what
 * null means, e.g. the knowledge base's own k1).
 */
export function optionalValue(s: Setting, value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= s.min! && n <= s.max! && (s.type !== 'int' || Number.isInteger(n)) ? n : null;
}

/** A bm25_k / dense_k / fusion_top_k field's value: a whole number in [1, 1000], else null (blank: candidate_k). */
export const optionalK = (value: unknown): number | null => optionalValue(SEARCH_SETTINGS.bm25K, value);

/** Only non-default values are written, so links stay short. */
export function serializeUrlState(s: SearchUrlState): string {
  const p = new URLSearchParams();
  if (s.q) p.set('q', s.q.slice(0, MAX_QUERY_CHARS));
  SETTINGS.serialize(s, p);
  for (const f of s.filters) {
    if (f.min !== undefined) p.set(`min.${f.field}`, String(f.min));
    if (f.max !== undefined) p.set(`max.${f.field}`, String(f.max));
    for (const x of f.values ?? []) p.append(`f.${f.field}`, x);
  }
  const out = p.toString();
  return out ? `?${out}` : '';
}
