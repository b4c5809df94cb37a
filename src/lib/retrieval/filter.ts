/** Metadata filters over source documents (year range, party, …), compiled to a per-document mask. */
import type { SourceDocument } from './document.ts';
import { own } from '../dict.ts';

export interface MetaFilter {
  field: string;
  /** Inclusive numeric bounds. */
  min?: number;
  max?: number;
  /** Allowed values (string match); empty or absent = any. */
  values?: readonly string[];
}

/** Returns mask[d] = 1 when document d passes every filter, or null when there is nothing to filter. */
export function compileFilters(docs: readonly SourceDocument[], filters: readonly MetaFilter[]): Uint8Array | null {
  const active = filters.filter((f) => f.min !== undefined || f.max !== undefined || (f.values && f.values.length > 0));
  if (active.length === 0) return null;
  const mask = new Uint8Array(docs.length);
  docs.forEach((doc, d) => {
    mask[d] = active.every((f) => {
      const v = own(doc.meta, f.field);
      if (v === undefined) return false;
      if (f.min !== undefined && !(Number(v) >= f.min)) return false;
      if (f.max !== undefined && !(Number(v) <= f.max)) return false;
      if (f.values && f.values.length > 0 && !f.values.includes(String(v))) return false;
      return true;
    }) ? 1 : 0;
  });
  return mask;
}
