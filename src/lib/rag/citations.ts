/**
 * Inline citations in an answer: [N], [N, M], [N][M], [N-M] (a short range), optionally written [Source N]. Each
 * number maps back to the source it names (doc_id, chunk_id); numbers naming no source are flagged.
 */

export interface Citation {
  n: number;
  doc_id: string;
  chunk_id: string;
}

/** Where a bracket group stands in the answer (for highlighting) and the numbers it holds. */
export interface CitationMark {
  start: number;
  end: number;
  /** Each number once, in order of first appearance ([1, 1] → 1; [1-3, 2] → 1, 2, 3): the UI keys buttons by it. */
  numbers: number[];
}

export interface CitationReport {
  /** Valid citations, each source once, in order of first appearance. */
  citations: Citation[];
  /** Cited numbers that name no source, each once, in order of first appearance. */
  invalidCitations: number[];
  marks: CitationMark[];
}

const REF = String.raw`(?:(?:sources?|src|refs?)\s*)?#?\d{1,4}(?:\s*[-–]\s*\d{1,4})?`;
/** A bracket group of references, not followed by `(` (a Markdown link) . */
const GROUP = new RegExp(String.raw`\[\s*${REF}(?:\s*[,;]\s*${REF})*\s*\](?!\()`, 'gi');
const MAX_RANGE = 20;

/**
 * The bracket groups of `answer` with their numbers ([2-4] → 2, 3, 4; ranges over 20 keep their ends only), each
 * number once per group.
 */
export function findCitations(answer: string): CitationMark[] {
  const out: CitationMark[] = [];
  for (const m of answer.matchAll(GROUP)) {
    const numbers: number[] = [];
    for (const ref of m[0].slice(1, -1).split(/[,;]/)) {
      const nums = (ref.match(/\d+/g) ?? []).map(Number);
      const [a, b] = nums;
      if (a === undefined) continue;
      if (b !== undefined && b >= a && b - a <= MAX_RANGE) for (let x = a; x <= b; x++) numbers.push(x);
      else numbers.push(...nums);
    }
    out.push({ start: m.index, end: m.index + m[0].length, numbers: [...new Set(numbers)] });
  }
  return out;
}

/** Maps the answer's citations to the sources (`n` → doc_id, chunk_id) and flags numbers without a source. */
export function mapCitations(answer: string, sources: ReadonlyArray<{ n: number; doc_id: string; chunk_id: string }>): CitationReport {
  const byN = new Map(sources.map((s) => [s.n, s]));
  const marks = findCitations(answer);
  const citations: Citation[] = [];
  const invalid: number[] = [];
  const seen = new Set<number>();
  for (const n of marks.flatMap((m) => m.numbers)) {
    if (seen.has(n)) continue;
    seen.add(n);
    const s = byN.get(n);
    if (s) citations.push({ n, doc_id: s.doc_id, chunk_id: s.chunk_id });
    else invalid.push(n);
  }
  return { citations, invalidCitations: invalid, marks };
}
