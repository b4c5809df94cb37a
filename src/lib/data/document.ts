/** The unit every knowledge base is made of. */
export interface SourceDocument {
  id: string;
  title: string;
  text: string;
  /** Filterable metadata (year, president, party, …). */
  meta?: Record<string, string | number>;
}

/** A query a knowledge base suggests on first open; `note` marks a special one (e.g. off-topic, to show rejection). */
export interface ExampleQuery {
  query: string;
  note?: string;
}
