/**
 * `analysis: 'stems'`: the SVD counts the index terms of BM25's analyzer (src/lib/retrieval/tokenize.ts: stop words
 * dropped, Porter stem) of each BERT basic token, while the model's vocabulary keeps the surface words, so the
 * tokenizer and ONNX graph stay a WordPiece lookup + one Gather: every surface word seen in the corpus whose stem s
 * is a term gets the row of s (all its inflections share one vector); stop words, and words whose stem is no term,
 * are left out of the vocabulary (→ [UNK] → a zero vector). The stem of a token is `Analyzer.term`, the very call
 * BM25 makes on its words, applied to the word WordPiece sees at inference.
 */
import { Analyzer } from '../../retrieval/tokenize.ts';
import { SPECIAL_TOKENS } from './bert-tokens.ts';
import { usable, type Vocabulary } from './vocabulary.ts';

export type Analysis = 'words' | 'stems';
export const ANALYSES: readonly Analysis[] = ['words', 'stems'];

/** The model's tokens and, for each, the term row whose vector it takes (−1 for the special tokens). */
export interface TokenTable {
  tokens: string[];
  rowOf: Int32Array;
}

/** Maps BERT basic tokens to BM25's terms, remembering each surface word seen and its stem. */
export class StemAnalysis {
  private readonly analyzer = new Analyzer();
  /** Surface word → its stem, or null for a stop word or punctuation. */
  readonly stemOf = new Map<string, string | null>();

  /** The terms the SVD counts for one document's BERT basic tokens (punctuation and stop words dropped). */
  terms(words: readonly string[]): string[] {
    const out: string[] = [];
    for (const w of words) {
      let s = this.stemOf.get(w);
      if (s === undefined) {
        s = usable(w) ? this.analyzer.term(w) : null;
        this.stemOf.set(w, s);
      }
      if (s !== null) out.push(s);
    }
    return out;
  }

  /** The surface words whose stem is a term of `vocab`, ordered by their stem's row, then by code-unit order. */
  tokenTable(vocab: Vocabulary): TokenTable {
    const words: Array<[string, number]> = [];
    for (const [w, s] of this.stemOf) {
      const r = s === null ? undefined : vocab.termRow.get(s);
      if (r !== undefined) words.push([w, r]);
    }
    words.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return {
      tokens: [...SPECIAL_TOKENS, ...words.map(([w]) => w)],
      rowOf: Int32Array.from([...SPECIAL_TOKENS.map(() => -1), ...words.map(([, r]) => r)]),
    };
  }
}

/** `analysis: 'words'`: the terms are the tokens themselves. */
export function wordTable(vocab: Vocabulary): TokenTable {
  const specials = vocab.tokens.length - vocab.df.length;
  return { tokens: vocab.tokens, rowOf: Int32Array.from(vocab.tokens, (_, i) => i - specials).map((r) => (r < 0 ? -1 : r)) };
}
