/**
 * The model's vocabulary from document frequencies: the special tokens, then the words of at least `minDf`
 * documents (single punctuation characters and words WordPiece always maps to [UNK] left out), the `maxVocab` most
 * frequent by document frequency (ties by code-unit order of the word, so the choice is deterministic).
 */
import { isPunctuation, MAX_WORD_CHARS, SPECIAL_TOKENS } from './bert-tokens.ts';

/** Default cap on the number of terms (special tokens not counted): bounds the model at 50,000 × dim floats. */
export const DEFAULT_MAX_VOCAB = 50_000;

/** One document's words with their counts (term frequency). */
export type TermCounts = Map<string, number>;

export function termCounts(words: readonly string[]): TermCounts {
  const tf: TermCounts = new Map();
  for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
  return tf;
}

export interface Vocabulary {
  /** Token strings by id: SPECIAL_TOKENS then the terms. */
  tokens: string[];
  /** Term → row of the term–document matrix (id − SPECIAL_TOKENS.length). */
  termRow: Map<string, number>;
  /** Document frequency of each term row. */
  df: Int32Array;
  /** Terms with df ≥ minDf before the cap (for the summary). */
  eligible: number;
}

/** Not a single punctuation character and not longer than WordPiece takes: a word that can be a term. */
export const usable = (w: string): boolean => !isPunctuation(w) && [...w].length <= MAX_WORD_CHARS;

/** Document frequencies over `docs`, then the selection described in the module comment. */
export function buildVocabulary(docs: readonly TermCounts[], minDf: number, maxVocab: number): Vocabulary {
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const kept = [...df].filter(([w, n]) => n >= minDf && usable(w));
  kept.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const terms = kept.slice(0, maxVocab);
  return {
    tokens: [...SPECIAL_TOKENS, ...terms.map(([w]) => w)],
    termRow: new Map(terms.map(([w], i) => [w, i])),
    df: Int32Array.from(terms, ([, n]) => n),
    eligible: kept.length,
  };
}
