/** The unit every knowledge base is made of. */
export interface SourceDocument {
  id: string;
  title: string;
  text: string;
  /** Filterable metadata (year, president, party, …). */
  meta?: Record<string, string | number>;
}
