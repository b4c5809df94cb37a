/**
 * The corpus seam: what a knowledge base says about itself (id, title, the metadata its documents carry, example
 * queries) and where it comes from. The UI renders facets, hit metadata and placeholders from a descriptor, never
 * from knowledge of a particular corpus; a loader (sotu.ts, the artifact reader, beir.ts, ragbench-kb.ts) makes it.
 */
import type { ExampleQuery, SourceDocument } from '../retrieval/document.ts';
import { own } from '../dict.ts';

/** One metadata field of the documents: `number` fields facet as a range, `string` fields as a set of values. */
export interface MetaField {
  name: string;
  label: string;
  type: 'number' | 'string';
  /** Shown as a filter (default true for both types when the corpus has more than one value). */
  facet?: boolean;
}

export interface KbDescriptor {
  /** Stable id, part of the URL state and of every config hash. */
  id: string;
  title: string;
  description: string;
  /** The fields documents carry in `meta`, in display order. */
  fields: MetaField[];
  examples: ExampleQuery[];
  /** Text of the search box before typing, e.g. "Search the State of the Union addresses". */
  placeholder: string;
  /** Where it comes from. */
  source: KbSourceRef;
}

/** Where a knowledge base comes from; serialisable (URL state, reports). */
export type KbSourceRef =
  | { kind: 'embedded'; id: string }
  | { kind: 'hub'; repo: string; revision: string; path: string }
  | { kind: 'folder'; path: string }
  | { kind: 'beir'; path: string }
  | { kind: 'ragbench'; subset: string }
  /** Built in this browser (Build tab), kept in IndexedDB under its name (`src/lib/store/local-kb-store.ts`). */
  | { kind: 'local'; name: string };

/** A facet computed from the documents for one field. */
export type Facet =
  | { field: string; label: string; type: 'range'; min: number; max: number }
  | { field: string; label: string; type: 'values'; values: string[] };

/** A string field with more distinct values than this is not a facet (an id, a URL): chips would not help. */
export const MAX_FACET_VALUES = 50;

/**
 * Facets of the fields marked for faceting, from the documents' metadata; a field with one value or none, or a string
 * field with more than {@link MAX_FACET_VALUES} values, is left out.
 */
export function facetsOf(fields: readonly MetaField[], docs: readonly SourceDocument[]): Facet[] {
  const out: Facet[] = [];
  for (const f of fields) {
    if (f.facet === false) continue;
    if (f.type === 'number') {
      let min = Infinity, max = -Infinity;
      for (const d of docs) {
        const val = own(d.meta, f.name);
        const x = Number(val);
        if (val === undefined || !Number.isFinite(x)) continue;
        if (x < min) min = x;
        if (x > max) max = x;
      }
      if (min < max) out.push({ field: f.name, label: f.label, type: 'range', min, max });
    } else {
      const values = new Set<string>();
      for (const d of docs) { const val = own(d.meta, f.name); if (val !== undefined) values.add(String(val)); }
      if (values.size > 1 && values.size <= MAX_FACET_VALUES) out.push({ field: f.name, label: f.label, type: 'values', values: [...values].sort() });
    }
  }
  return out;
}
