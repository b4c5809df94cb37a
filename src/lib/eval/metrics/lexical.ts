/**
 * An offline TRACe evaluator: no model, no network, deterministic. It asks, sentence by sentence, whether what the
 * answer says can be found in the context, and where.
 *
 * Words. Content words: Unicode words, lower-cased, minus English function words (determiners, pronouns,
 * auxiliaries, prepositions, conjunctions, discourse adverbs) and words about the context or the act of answering
 * ("context", "provided", "mentioned", …), Porter-stemmed with the retrieval Analyzer. Numbers stay whole, so "1990"
 * never matches "1991". List markers ("1.", "-", "•") and citation markers ("[1]", "[2, 4]") are not words.
 *
 * Weights. A word's weight is its inverse document frequency over the context sentences,
 * idf = ln(1 + (N − n + 0.5)/(n + 0.5)) (BM25's), N = context sentences, n = those holding the word: a word the
 * context repeats everywhere says little; a rare one, or one absent from the context (n = 0, the largest weight),
 * carries the claim. Numbers always get that largest weight: a number is as specific as a claim gets.
 *
 * Support of an answer sentence, the mean of two shares in [0, 1]:
 *  - content: the weighted share of its content words found in the single context sentence that holds the most of
 *    that weight (a claim should be stated somewhere, not assembled from words scattered over the context);
 *  - phrasing: the share of its adjacent word pairs (all words, stemmed) found anywhere in the context (the words
 *    are used together as the context uses them).
 * A sentence makes no claim when it has no content word or abstains (a negation next to a word about the context or
 * the answer: "the context does not mention …", "I cannot answer …"); abstaining is not hallucinating.
 *
 * Adherence: the share of the answer's content that is supported, i.e. the mean support of its claim sentences
 * weighted by their number of content words (1 when the answer claims nothing). `aggregate: 'min'` (the least
 * supported sentence, closer to RAGBench's all-sentences-supported label but noisier on long answers) and 'mean'
 * are available.
 *
 * Relevance, utilization, completeness. A context sentence is utilized when it covers at least half the content
 * weight of an answer claim (or is a claim's best match with any overlap); it is relevant when it is utilized or
 * covers at least half the weight of the question's content words. The scores then follow from those keys exactly
 * as for an LLM judge (trace.ts): relevance = |relevant|/|V|, utilization = |utilized|/|V|,
 * completeness = |relevant ∩ utilized|/|relevant| (NaN when nothing is relevant).
 *
 * Parameters, fixed by the reasoning above and never tuned per dataset: the equal weight of content and phrasing,
 * the half-weight threshold of "utilized" and "relevant", and the content-weighted mean as the aggregate.
 */
import { Analyzer, wordSpans } from '../../retrieval/tokenize.ts';
import { keyDocuments, keyResponse } from './judge.ts';
import { traceFromKeys, type TraceScores } from './trace.ts';

/** English function words: they carry no claim of their own (matched before stemming, lower-cased). */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(`
a an the this that these those such some any each every either neither all both few many much more most less least
other another own same several enough no not nor none only just also too very so quite rather really even still yet
already almost again ever never always often sometimes usually generally typically mostly mainly particularly
especially specifically simply certainly probably possibly perhaps likely maybe overall additionally furthermore
moreover however therefore thus hence instead otherwise meanwhile nevertheless nonetheless accordingly consequently
although though while whereas because since unless until whether if then else when whenever where wherever why how
what which who whom whose whoever whatever whichever here there
i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves one ones someone something anyone anything everyone
everything nobody nothing
am is are was were be been being have has had having do does did doing done can could may might must shall should
will would ought need needs let lets
i'm i've i'll i'd you're you've you'll he's she's it's we're we've they're they've that's there's here's what's
isn't aren't wasn't weren't don't doesn't didn't haven't hasn't hadn't can't cannot couldn't won't wouldn't
shouldn't mustn't
of in on at to for from by with without within into onto upon about above below over under between among through
throughout during before after around across along against toward towards via per beyond behind beside besides
near off out up down like unlike despite except regarding concerning including include includes included
and or but nor as than etc e.g i.e
well yes ok okay please sorry thank thanks
`.trim().split(/\s+/));

/** Words about the context or the act of answering, not about the world: never evidence of a claim. */
export const META_WORDS: ReadonlySet<string> = new Set(`
context contexts document documents passage passages text texts source sources excerpt excerpts snippet snippets
provided provide provides providing given based according mention mentions mentioned mentioning stated specified
specify specifies explicitly directly clearly information info details detail answer answers answered answering
question questions response responses respond note noted indicates indicated indicate suggests suggested suggest
refer refers referred seems seem appears appear available find found following follows summary summarize
`.trim().split(/\s+/));

/** Negations that, next to a META word, make a sentence an abstention ("not mentioned in the context"). */
const NEGATIONS = /\b(?:not|no|cannot|can't|unable|neither|nor|none|nothing|without|insufficient|lack|lacks|unclear|unknown|n't)\b|n't\b/i;

/** Strips list markers at line starts ("1.", "2)", "-", "*", "•") and citation markers ("[1]", "[2, 4]", "[Context 1]"). */
export function stripMarkup(text: string): string {
  return text
    .replace(/(^|\n)[ \t]*(?:\(?\d{1,2}[.)]|[-*•·–]|#+)[ \t]+/g, '$1')
    .replace(/\[(?:(?:context|doc(?:ument)?|source|ref)\s*)?\d+(?:\s*[,;–-]\s*\d+)*\]/gi, ' ');
}

export interface LexicalOptions {
  /** Share of a claim's (or the question's) weight a context sentence must cover to count as utilized (relevant). Default 0.5. */
  coverThreshold?: number;
  /** How sentence supports make the answer's adherence. Default 'weighted' (by content words). */
  aggregate?: 'min' | 'mean' | 'weighted';
}

export interface LexicalInput {
  question: string;
  /** Raw documents (split into sentences here) or keyed sentences such as RAGBench's documents_sentences. */
  documents: readonly string[] | readonly (readonly (readonly [string, string])[])[];
  /** The answer as text (split here) or as keyed sentences (RAGBench's response_sentences). */
  response: string | readonly (readonly [string, string])[];
}

export interface SentenceSupport {
  key: string;
  text: string;
  /** False for sentences without content words and for abstentions. */
  claim: boolean;
  /** (content + phrasing) / 2; NaN when it is no claim. */
  support: number;
  /** Weighted share of its content words found in the best-matching context sentence (NaN when no claim). */
  content: number;
  /** Share of its adjacent word pairs found in the context (NaN when no claim). */
  phrasing: number;
  /** Distinct content words. */
  words: number;
  /** Key of the best-matching context sentence, null when nothing matched. */
  bestKey: string | null;
  /** Content words (stems) absent from the whole context. */
  unsupported: string[];
}

export interface LexicalResult extends TraceScores {
  sentences: SentenceSupport[];
  relevantKeys: string[];
  utilizedKeys: string[];
}

const DEFAULTS: Required<LexicalOptions> = { coverThreshold: 0.5, aggregate: 'weighted' };

const isNumber = (t: string) => /\p{N}/u.test(t);

function pairs(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < words.length; i++) out.push(`${words[i - 1]} ${words[i]}`);
  return out;
}

/** The lexical evaluator; reuse one instance for many rows (it memoises stems). */
export class LexicalEvaluator {
  readonly options: Required<LexicalOptions>;
  private readonly analyzer = new Analyzer({ removeStopWords: false });

  constructor(options: LexicalOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Per raw word: its stem (numbers unstemmed) and whether it is a content word. */
  private readonly words = new Map<string, { term: string; content: boolean }>();

  private word(token: string): { term: string; content: boolean } {
    let r = this.words.get(token);
    if (r === undefined) {
      const w = token.normalize('NFKC').toLowerCase().replace(/’/g, "'");
      const base = w.endsWith("'s") ? w.slice(0, -2) : w;
      const skip = (x: string) => x.length === 0 || FUNCTION_WORDS.has(x) || META_WORDS.has(x);
      if (isNumber(w)) r = { term: w, content: true };
      else r = { term: this.analyzer.term(base) ?? base, content: !skip(w) && !skip(base) };
      if (this.words.size > 500_000) this.words.clear();
      this.words.set(token, r);
    }
    return r;
  }

  /** All words of a text (stemmed, markup stripped) and its content words, in order, duplicates kept. */
  analyze(text: string): { all: string[]; content: string[] } {
    const all: string[] = [];
    const content: string[] = [];
    for (const { token } of wordSpans(stripMarkup(text))) {
      const w = this.word(token);
      all.push(w.term);
      if (w.content) content.push(w.term);
    }
    return { all, content };
  }

  /** Content words of a text, stemmed (numbers unstemmed), in order, duplicates kept. */
  contentWords(text: string): string[] {
    return this.analyze(text).content;
  }

  /** Adjacent word pairs of a text (all words, stemmed), as "a b" strings. */
  bigrams(text: string): string[] {
    return pairs(this.analyze(text).all);
  }

  /** True when a sentence declines to answer or says what the context lacks. */
  isAbstention(text: string): boolean {
    if (!NEGATIONS.test(text)) return false;
    for (const { token } of wordSpans(text)) if (META_WORDS.has(token.toLowerCase())) return true;
    return false;
  }

  evaluate(input: LexicalInput): LexicalResult {
    const o = this.options;
    const docs = input.documents.length > 0 && typeof input.documents[0] === 'string'
      ? keyDocuments(input.documents as readonly string[])
      : (input.documents as readonly (readonly (readonly [string, string])[])[]);
    const ctxBigrams = new Set<string>();
    const ctx = docs.flat().map(([key, text]) => {
      const a = this.analyze(text);
      for (const p of pairs(a.all)) ctxBigrams.add(p);
      return { key, words: new Set(a.content) };
    });
    const keys = ctx.map((c) => c.key);
    const N = ctx.length;
    const df = new Map<string, number>();
    for (const c of ctx) for (const t of c.words) df.set(t, (df.get(t) ?? 0) + 1);
    const maxIdf = Math.log(1 + (N + 0.5) / 0.5);
    const weight = (t: string) => {
      if (isNumber(t)) return maxIdf;
      const n = df.get(t) ?? 0;
      return Math.log(1 + (N - n + 0.5) / (n + 0.5));
    };
    /** Per context sentence: the share of `words`' weight it covers. */
    const coverage = (words: readonly string[]): number[] => {
      const w = words.map(weight);
      const total = w.reduce((a, b) => a + b, 0);
      return ctx.map((c) => {
        if (total === 0) return 0;
        let s = 0;
        words.forEach((t, i) => { if (c.words.has(t)) s += w[i]!; });
        return s / total;
      });
    };

    const responseSentences: readonly (readonly [string, string])[] = typeof input.response === 'string'
      ? keyResponse(input.response)
      : input.response;
    const utilized = new Set<string>();
    const sentences: SentenceSupport[] = responseSentences.map(([key, text]) => {
      const analysed = this.analyze(text);
      const words = [...new Set(analysed.content)];
      if (words.length === 0 || this.isAbstention(text)) {
        return { key, text, claim: false, support: NaN, content: NaN, phrasing: NaN, words: words.length, bestKey: null, unsupported: [] };
      }
      const total = words.reduce((a, t) => a + weight(t), 0);
      const cov = coverage(words);
      let best = -1;
      for (let i = 0; i < cov.length; i++) if (best < 0 || cov[i]! > cov[best]!) best = i;
      const matched = best >= 0 && cov[best]! > 0;
      cov.forEach((c, i) => { if (c >= o.coverThreshold) utilized.add(keys[i]!); });
      if (matched) utilized.add(keys[best]!);
      const content = total > 0 ? (matched ? cov[best]! : 0) : 1;
      const bg = pairs(analysed.all);
      const phrasing = bg.length > 0 ? bg.filter((b) => ctxBigrams.has(b)).length / bg.length : content;
      return {
        key, text, claim: true, support: (content + phrasing) / 2, content, phrasing, words: words.length,
        bestKey: matched ? keys[best]! : null,
        unsupported: words.filter((t) => !df.has(t)),
      };
    });

    const claims = sentences.filter((s) => s.claim);
    let adherence = 1;
    if (claims.length > 0) {
      if (o.aggregate === 'min') adherence = Math.min(...claims.map((s) => s.support));
      else if (o.aggregate === 'mean') adherence = claims.reduce((a, s) => a + s.support, 0) / claims.length;
      else {
        let num = 0, den = 0;
        for (const s of claims) { num += s.words * s.support; den += s.words; }
        adherence = num / den;
      }
    }

    const relevant = new Set(utilized);
    const qWords = [...new Set(this.contentWords(input.question))];
    if (qWords.length > 0) coverage(qWords).forEach((c, i) => { if (c >= o.coverThreshold) relevant.add(keys[i]!); });
    const trace = traceFromKeys(keys, { overall_supported: true, all_relevant_sentence_keys: [...relevant], all_utilized_sentence_keys: [...utilized] });
    return {
      ...trace,
      adherence,
      sentences,
      relevantKeys: keys.filter((k) => relevant.has(k)),
      utilizedKeys: keys.filter((k) => utilized.has(k)),
    };
  }
}

/** One-shot convenience: TRACe scores of one answer with default options. */
export function lexicalTrace(input: LexicalInput, options: LexicalOptions = {}): LexicalResult {
  return new LexicalEvaluator(options).evaluate(input);
}

