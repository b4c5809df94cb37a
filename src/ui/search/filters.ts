/**
 * Facets (what the open knowledge base offers, from its descriptor and documents) and the filters the user set
 * (`MetaFilter[]` by field, in the Search state and its URL): edits from facet inputs, and fitting filters from a
 * link to the knowledge base that opened (a field or value it does not have is dropped, with a warning).
 */
import type { Facet } from '../../lib/data/kb-source.ts';
import type { MetaFilter } from '../../lib/retrieval/filter.ts';

/** A filter that restricts something (a bound or a value). */
export function isActive(f: MetaFilter): boolean {
  return f.min !== undefined || f.max !== undefined || (f.values?.length ?? 0) > 0;
}

function replaceFilter(filters: readonly MetaFilter[], field: string, next: MetaFilter): MetaFilter[] {
  const at = filters.findIndex((f) => f.field === field);
  const out = filters.filter((f) => f.field !== field);
  if (isActive(next)) out.splice(at < 0 ? out.length : at, 0, next);
  return out;
}

const filterOf = (filters: readonly MetaFilter[], field: string): MetaFilter => filters.find((f) => f.field === field) ?? { field };

/** The bound a range facet's input shows (null: none). */
export function boundOf(filters: readonly MetaFilter[], field: string, bound: 'min' | 'max'): number | null {
  return filterOf(filters, field)[bound] ?? null;
}

/** Sets or clears (null) one bound of a range filter. */
export function withBound(filters: readonly MetaFilter[], field: string, bound: 'min' | 'max', value: number | null): MetaFilter[] {
  const { [bound]: _old, ...rest } = filterOf(filters, field);
  return replaceFilter(filters, field, value === null ? rest : { ...rest, [bound]: value });
}

export function hasValue(filters: readonly MetaFilter[], field: string, value: string): boolean {
  return filterOf(filters, field).values?.includes(value) ?? false;
}

/** Turns one value of a values facet on or off. */
export function withValue(filters: readonly MetaFilter[], field: string, value: string, on: boolean): MetaFilter[] {
  const f = filterOf(filters, field);
  const values = (f.values ?? []).filter((x) => x !== value);
  if (on) values.push(value);
  const { values: _old, ...rest } = f;
  return replaceFilter(filters, field, values.length ? { ...rest, values } : rest);
}

/** How a dropped filter is told: 'Ignored' (a link's filter never applied), 'Cleared' (a switch removed one in use). */
export type FitVerb = 'Ignored' | 'Cleared';

/** The Search tab's notices about filters are about this state: they go when the knowledge base, query or filters change. */
export function filtersScope(kb: string | null, query: string, filters: readonly MetaFilter[]): string {
  return JSON.stringify([kb, query.trim(), filters.filter(isActive)]);
}

/**
 * The filters that apply to a knowledge base with these facets: a range bound on a range facet, values the values
 * facet lists. Everything else is dropped and named in `warnings` (`title`: the knowledge base, for the message).
 */
export function fitFilters(filters: readonly MetaFilter[], facets: readonly Facet[], title: string, verb: FitVerb = 'Ignored'): { filters: MetaFilter[]; warnings: string[] } {
  const warnings: string[] = [];
  const out: MetaFilter[] = [];
  for (const f of filters) {
    const facet = facets.find((x) => x.field === f.field);
    if (!facet) {
      if (isActive(f)) warnings.push(`${verb} the filter on "${f.field}": ${title} has no such filter.`);
      continue;
    }
    let next: MetaFilter = { field: f.field };
    if (facet.type === 'range') {
      if (f.values?.length) warnings.push(`${verb} the values given for "${f.field}": it is a range (min/max) filter.`);
      if (f.min !== undefined) next.min = f.min;
      if (f.max !== undefined) next.max = f.max;
    } else {
      if (f.min !== undefined || f.max !== undefined) warnings.push(`${verb} the range given for "${f.field}": it filters by value.`);
      const known = (f.values ?? []).filter((x) => facet.values.includes(x));
      const unknown = (f.values ?? []).filter((x) => !facet.values.includes(x));
      if (unknown.length) warnings.push(`${verb} ${unknown.map((x) => JSON.stringify(x)).join(', ')} for "${f.field}": ${title} has no such value.`);
      if (known.length) next = { ...next, values: known };
    }
    if (isActive(next)) out.push(next);
  }
  return { filters: out, warnings };
}
