import type { RetrievalMode } from './modes.ts';

/** The unit every knowledge base is made of. */
export interface SourceDocument {
  id: string;
  title: string;
  text: string;
  /** Filterable metadata (year, president, party, …). */
  meta?: Record<string, string | number>;
}

/**
 * A query a knowledge base suggests on first open; `note` marks a special one (e.g. off-topic, to show rejection);
 * `mode`, when given, is the retrieval mode its chip searches with (stored ones are checked by examples.ts).
 */
export interface ExampleQuery {
  query: string;
  note?: string;
  mode?: RetrievalMode;
}
