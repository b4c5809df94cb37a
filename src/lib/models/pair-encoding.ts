/**
 * Pure helpers for (text A, text B) inputs of cross-encoders and NLI models.
 *
 * transformers.js truncates a pair by cutting the joined ids at max_length, which drops the final separator and
 * whatever of B (the passage or hypothesis) falls past it. Sentence-Transformers and HF tokenizers instead trim the
 * longer text ('longest_first') and keep every special token. These helpers do the latter for any template
 * (BERT `[CLS] A [SEP] B [SEP]`, RoBERTa `<s> A </s></s> B </s>`, DeBERTa-v3…): they find where A and B sit in the
 * model's own pair encoding and rebuild it from slices, so special tokens and token types stay the model's.
 */

export interface Encoding {
  input_ids: number[];
  attention_mask: number[];
  token_type_ids?: number[];
}

/** Where the two texts sit inside a pair encoding of `length` tokens. */
export interface PairLayout {
  aStart: number;
  aLen: number;
  bStart: number;
  bLen: number;
  length: number;
}

function matchesAt(hay: readonly number[], needle: readonly number[], at: number): boolean {
  if (at + needle.length > hay.length) return false;
  for (let i = 0; i < needle.length; i++) if (hay[at + i] !== needle[i]) return false;
  return true;
}

/**
 * Finds A's and B's standalone ids (tokenized without special tokens) inside the pair's ids; null when they do not
 * appear as contiguous runs in that order (a tokenizer whose pieces depend on context).
 */
export function locatePair(full: readonly number[], a: readonly number[], b: readonly number[]): PairLayout | null {
  let aStart = -1;
  if (a.length === 0) aStart = 0;
  else for (let i = 0; i + a.length <= full.length; i++) if (matchesAt(full, a, i)) { aStart = i; break; }
  if (aStart < 0) return null;
  let bStart = -1;
  if (b.length === 0) bStart = full.length;
  else for (let i = aStart + a.length; i + b.length <= full.length; i++) if (matchesAt(full, b, i)) { bStart = i; break; }
  if (bStart < 0) return null;
  return { aStart, aLen: a.length, bStart, bLen: b.length, length: full.length };
}

/** Number of special tokens the template adds around the two texts. */
export function specialCount(layout: PairLayout): number {
  return layout.length - layout.aLen - layout.bLen;
}

/**
 * Rebuilds the pair keeping tokens [aFrom, aTo) of A and [bFrom, bTo) of B (offsets within each text) and every
 * template token, for each per-token field of the encoding.
 */
export function slicePair(full: Encoding, layout: PairLayout, a: readonly [number, number], b: readonly [number, number]): Encoding {
  const { aStart, aLen, bStart, bLen, length } = layout;
  const cut = (xs: readonly number[]) => [
    ...xs.slice(0, aStart),
    ...xs.slice(aStart + a[0], aStart + Math.min(a[1], aLen)),
    ...xs.slice(aStart + aLen, bStart),
    ...xs.slice(bStart + b[0], bStart + Math.min(b[1], bLen)),
    ...xs.slice(bStart + bLen, length),
  ];
  const out: Encoding = { input_ids: cut(full.input_ids), attention_mask: cut(full.attention_mask) };
  if (full.token_type_ids) out.token_type_ids = cut(full.token_type_ids);
  return out;
}

/**
 * 'longest_first' truncation of two lengths to at most `budget` tokens together: one token at a time from the
 * longer text (from B on ties), as in Hugging Face tokenizers. Returns the kept lengths.
 */
export function longestFirst(aLen: number, bLen: number, budget: number): [number, number] {
  let a = aLen;
  let b = bLen;
  const cap = Math.max(0, budget);
  if (a + b <= cap) return [a, b];
  // Closed form of the one-at-a-time loop: the shorter keeps min(len, its fair share), the longer gets the rest.
  const half = Math.floor(cap / 2);
  if (a > b) {
    b = Math.min(b, half);
    a = cap - b;
  } else {
    a = Math.min(a, cap - half);
    b = cap - a;
  }
  return [a, b];
}

export interface TokenWindow {
  /** First token of the window (inclusive), offset within the text. */
  start: number;
  /** End (exclusive). */
  end: number;
}

/**
 * Overlapping windows of at most `size` tokens covering `[0, total)`: steps of `size - overlap`, the last window
 * pulled back so it ends at `total` and stays full-size. One window when the text fits.
 */
export function planWindows(total: number, size: number, overlap: number): TokenWindow[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`window size must be a positive integer, got ${size}`);
  if (total <= size) return [{ start: 0, end: Math.max(0, total) }];
  const ov = Math.min(Math.max(0, Math.floor(overlap)), size - 1);
  const stride = size - ov;
  const out: TokenWindow[] = [];
  for (let start = 0; ; start += stride) {
    if (start + size >= total) {
      out.push({ start: total - size, end: total });
      break;
    }
    out.push({ start, end: start + size });
  }
  return out;
}

export interface PremiseWindowPlan {
  /** Windows over the premise tokens. */
  windows: TokenWindow[];
  /** Hypothesis tokens kept (the hypothesis is cut only if it would leave the premise less than half the room). */
  hypothesisTokens: number;
  /** Premise tokens per window. */
  premiseBudget: number;
}

/**
 * Premise windows for NLI: premise + hypothesis + `specials` must fit `maxLength`. The hypothesis is kept whole when
 * it leaves at least half of the room to the premise (else cut to that half); the premise is split into windows of
 * the remaining size overlapping by `overlapRatio` of it.
 */
export function planPremiseWindows(
  premiseTokens: number,
  hypothesisTokens: number,
  specials: number,
  maxLength: number,
  overlapRatio = 0.25,
): PremiseWindowPlan {
  const room = maxLength - specials;
  if (room < 2) throw new RangeError(`max length ${maxLength} leaves no room for text next to ${specials} special tokens`);
  const hyp = premiseTokens + hypothesisTokens <= room ? hypothesisTokens : Math.min(hypothesisTokens, Math.floor(room / 2));
  const budget = room - hyp;
  const windows = planWindows(premiseTokens, budget, Math.floor(budget * overlapRatio));
  return { windows, hypothesisTokens: hyp, premiseBudget: budget };
}

/** Right-pads encodings to a common length: ids with `padId`, mask and token types with 0. */
export function padBatch(encodings: readonly Encoding[], padId: number): { input_ids: number[][]; attention_mask: number[][]; token_type_ids?: number[][] } {
  const len = Math.max(0, ...encodings.map((e) => e.input_ids.length));
  const pad = (xs: readonly number[], v: number) => [...xs, ...new Array<number>(len - xs.length).fill(v)];
  const out: { input_ids: number[][]; attention_mask: number[][]; token_type_ids?: number[][] } = {
    input_ids: encodings.map((e) => pad(e.input_ids, padId)),
    attention_mask: encodings.map((e) => pad(e.attention_mask, 0)),
  };
  if (encodings.length > 0 && encodings.every((e) => e.token_type_ids)) out.token_type_ids = encodings.map((e) => pad(e.token_type_ids!, 0));
  return out;
}
