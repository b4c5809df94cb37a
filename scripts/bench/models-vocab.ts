/**
 * A WordPiece vocabulary for the random MiniLM-shaped benchmark model that tokenizes English like a real BERT
 * vocabulary does: whole words are single tokens.
 *
 * `scripts/make-fixture-models.py --minilm` fills its 30,522-token vocabulary with ~250 real words and 30k
 * placeholders (`w123`) and has no punctuation, so real text falls apart into letters: the benchmark's State of the
 * Union chunks (673 characters on average) come to ~390 tokens each, some cut at 512, where bert-base-uncased (the
 * vocabulary of all-MiniLM-L6-v2) would give roughly 140–160 (estimated; the real tokenizer is not available
 * offline). Latency grows faster than linearly with sequence length, so the benchmark swaps in this vocabulary: the
 * fixture's special, single-character and `##` tokens (same ids), every punctuation character, then the corpus's
 * words by frequency up to the model's vocabulary size. Every corpus word is then one token, as is every punctuation
 * mark (~5.3 characters per token, 128 tokens per chunk on average): somewhat fewer tokens than bert-base-uncased,
 * which splits rarer words into pieces, so latencies measured with it are slightly optimistic.
 */

interface TokenizerJson {
  model: { type: string; vocab: Record<string, number> };
  [key: string]: unknown;
}

/** ASCII punctuation as BERT's pre-tokenizer defines it, plus Unicode punctuation (General_Category P). */
const PRE_TOKEN = /[^\s\p{P}!-\/:-@\[-`{-~]+|[\p{P}!-\/:-@\[-`{-~]/gu;

/** BertNormalizer (lowercase, accents stripped) then BertPreTokenizer: words and single punctuation marks. */
export function preTokens(text: string): string[] {
  return text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '').match(PRE_TOKEN) ?? [];
}

export interface VocabStats {
  /** Tokens in the new vocabulary (= the model's vocab_size). */
  size: number;
  /** Distinct corpus pre-tokens, and the share of corpus pre-tokens that are whole tokens of the vocabulary. */
  distinctCorpusWords: number;
  corpusCoverage: number;
}

/** The fixture's tokenizer.json with its vocabulary replaced (see the module comment). */
export function corpusVocabTokenizer(fixture: TokenizerJson, texts: readonly string[], size: number): { tokenizer: TokenizerJson; stats: VocabStats } {
  const base = Object.entries(fixture.model.vocab)
    .sort((a, b) => a[1] - b[1])
    .map(([t]) => t)
    .filter((t) => /^\[[A-Z]+\]$/.test(t) || [...t].length === 1 || t.startsWith('##'));
  const counts = new Map<string, number>();
  let total = 0;
  for (const text of texts) {
    for (const w of preTokens(text)) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      total++;
    }
  }
  const tokens: string[] = [];
  const seen = new Set<string>();
  const add = (t: string) => { if (tokens.length < size && !seen.has(t)) { seen.add(t); tokens.push(t); } };
  base.forEach(add);
  const byFrequency = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [w] of byFrequency) if ([...w].length === 1) add(w);
  for (const [w] of byFrequency) add(w);
  for (let i = 0; tokens.length < size; i++) add(`unused${i}`);
  // The special tokens keep their ids, so added_tokens and the post-processor's ids stay valid.
  for (const [t, id] of Object.entries(fixture.model.vocab)) {
    if (/^\[[A-Z]+\]$/.test(t) && tokens[id] !== t) throw new Error(`special token ${t} moved from id ${id}`);
  }
  let covered = 0;
  for (const [w, c] of counts) if (seen.has(w)) covered += c;
  const vocab = Object.fromEntries(tokens.map((t, i) => [t, i]));
  return {
    tokenizer: { ...fixture, model: { ...fixture.model, vocab } },
    stats: { size: tokens.length, distinctCorpusWords: counts.size, corpusCoverage: total ? covered / total : 0 },
  };
}
