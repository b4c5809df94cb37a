/**
 * BERT's basic tokenizer exactly as transformers.js applies a WordPiece `tokenizer.json` with BertNormalizer
 * (clean_text, handle_chinese_chars, lowercase, strip_accents) and BertPreTokenizer (@huggingface/tokenizers 0.x,
 * `src/core/normalizer/BertNormalizer.ts`, `src/core/preTokenizer/BertPreTokenizer.ts`), so the terms counted in
 * training are the words the tokenizer hands to WordPiece at inference. Pinned against the real tokenizer by
 * tests/unit/corpus-embedder-tokens.test.ts.
 */

/** The special tokens, in vocabulary order (ids 0–4). Matched in the raw text before normalisation, as added tokens are. */
export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** BertPreTokenizer's punctuation: Unicode P plus every ASCII symbol (`!`–`/`, `:`–`@`, `[`–`` ` ``, `{`–`~`). */
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PRE_TOKEN = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');
const ONE_PUNCT = new RegExp(`^[${PUNCT}]$`, 'u');
/** clean_text drops NUL, U+FFFD and control characters (Cc, Cf, Co, Cs) other than tab, newline and carriage return… */
const DROPPED = /[\u0000\uFFFD]|(?![\t\n\r])[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;
/** …then turns each remaining whitespace character (a UTF-16 `\s`, as its `/^\s$/` test sees one) into a space. */
const WHITESPACE = /\s/g;
/** handle_chinese_chars pads CJK ideographs with spaces; it tests UTF-16 code units, so only the BMP blocks apply. */
const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\uF900-\uFAFF]/g;
const MARKS = /\p{Mn}/gu;
const ADDED = /\[(?:PAD|UNK|CLS|SEP|MASK)\]/;

/** BertNormalizer with clean_text, handle_chinese_chars and lowercase on (strip_accents follows lowercase). */
export function bertNormalize(text: string): string {
  return text.replace(DROPPED, '').replace(WHITESPACE, ' ').replace(CJK, ' $& ').toLowerCase().normalize('NFD').replace(MARKS, '');
}

/** BertPreTokenizer: runs of non-space non-punctuation characters, and each punctuation character alone. */
export function bertPreTokenize(normalized: string): string[] {
  return normalized.trim().match(PRE_TOKEN) ?? [];
}

/**
 * The words WordPiece will see for `text`: special-token strings written in the text (`[SEP]`…) are split out first
 * and dropped (they become their own ids, whose vectors are zero), the rest normalised and pre-tokenised.
 */
export function bertWords(text: string): string[] {
  if (!ADDED.test(text)) return bertPreTokenize(bertNormalize(text));
  return text.split(new RegExp(ADDED.source, 'g')).flatMap((part) => bertPreTokenize(bertNormalize(part)));
}

/** A single punctuation character (BertPreTokenizer gives each one alone): never a vocabulary term. */
export const isPunctuation = (word: string): boolean => ONE_PUNCT.test(word);

/** WordPiece's max_input_chars_per_word: a longer word (in code points) is always [UNK]. */
export const MAX_WORD_CHARS = 100;
