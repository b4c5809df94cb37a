/**
 * trainCorpusEmbedder: an unsupervised, corpus-trained embedding model (latent semantic indexing, Deerwester et al.
 * 1990) learned from a knowledge base's documents only, written as a transformers.js feature-extraction model in
 * Hub layout. Token vectors E[w] = idf_w · U_k[w], the rows of the truncated SVD of the tf-idf term–document
 * matrix (zero rows for the special tokens); mean pooling then L2 normalisation of a text's token vectors is LSI's
 * fold-in q̂ ∝ Σ_t idf_t U_k[t] ranked by cosine. By default (analysis 'stems') the terms are BM25's stems and each
 * surface word takes its stem's row (stem-analysis.ts). Pure TypeScript, no Node APIs: runs in a Web Worker as in the CLI.
 */
import { bertWords } from './bert-tokens.ts';
import { corpusHashOf } from './corpus-hash.ts';
import { configJson, tokenizerConfigJson, tokenizerJson, type CorpusEmbedderInfo } from './hub-files.ts';
import { embeddingModelFp32, embeddingModelQ8 } from './onnx-graph.ts';
import { randomizedSvd } from './rsvd.ts';
import { ANALYSES, StemAnalysis, wordTable, type Analysis } from './stem-analysis.ts';
import { inverseDocumentFrequency, tfidfMatrix } from './tfidf.ts';
import { buildVocabulary, DEFAULT_MAX_VOCAB, termCounts, type TermCounts } from './vocabulary.ts';

export type TrainStage = 'tokenize' | 'vocabulary' | 'matrix' | 'svd' | 'write';

export interface TrainProgress {
  stage: TrainStage;
  done: number;
  total: number;
}

export interface TrainOptions {
  /** Embedding size k. Default 256; clamped to the corpus rank (see `TrainSummary.notes`). */
  dim?: number;
  /** Seed of the Gaussian test matrix. Default 0. */
  seed?: number;
  /** A word is a term when at least this many documents hold it. Default 2. */
  minDf?: number;
  /** At most this many terms, the most frequent by df. Default 50,000. */
  maxVocab?: number;
  /** Power iterations of the randomized SVD. Default 3. */
  powerIterations?: number;
  /**
   * β in E[w] = idf_w^β · U_k[w]. Default 1 (LSI's fold-in of a tf·idf query). Larger β quiets frequent words, which
   * the mean pooling counts at raw tf (docs/corpus-embedder.md has the SciFact sweep). 0–8.
   */
  idfPower?: number;
  /**
   * What the SVD counts. 'stems' (default): BM25's terms of the BERT basic tokens (stop words dropped, Porter stem),
   * each surface word of the corpus taking its stem's row (stem-analysis.ts); chosen on RAGBench's seven subsets held
   * out from SciFact (docs/corpus-embedder.md). 'words': the BERT basic tokens themselves.
   */
  analysis?: Analysis;
  /** What the documents were, recorded in config.json (`trained_on`). Default 'documents'. */
  trainedOn?: string;
  onProgress?: (p: TrainProgress) => void;
  signal?: AbortSignal;
}

export interface TrainSummary {
  method: 'lsi';
  documents: number;
  /** Terms in the vocabulary (special tokens not counted): the SVD's rows (stems under analysis 'stems'). */
  vocabulary: number;
  /** Tokens of the model's tokenizer (special tokens counted): the terms plus 5, or the surface words plus 5 under 'stems'. */
  tokens: number;
  /** The dimension used (≤ the one asked for). */
  dim: number;
  requestedDim: number;
  seconds: number;
  /** Singular values σ_1 ≥ … ≥ σ_dim. */
  singularValues: number[];
  /** Clamps and caps applied, in words. */
  notes: string[];
  /** SHA-256 of the training texts (`corpusHashOf`): the corpus this model belongs to. */
  corpusHash: string;
}

export interface TrainedModel {
  /** Path in the model folder → bytes: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx, onnx/model_quantized.onnx. */
  files: Record<string, Uint8Array>;
  summary: TrainSummary;
  /** The token vectors the ONNX graphs hold: row i of `vectors` (tokens.length × dim, row-major) is token i's. */
  embeddings: { tokens: string[]; vectors: Float32Array; dim: number };
}

/** A corpus the trainer cannot learn from, or options out of range: the message is for the user. */
export class CorpusEmbedderError extends Error {
  override name = 'CorpusEmbedderError';
}

export const TRAIN_DEFAULTS = { dim: 256, seed: 0, minDf: 2, maxVocab: DEFAULT_MAX_VOCAB, powerIterations: 3, oversample: 10, idfPower: 1, analysis: 'stems' as Analysis } as const;
const WEIGHTING = 'w = (1 + ln tf) · ln(N / df)';
const pow = (beta: number) => (beta === 1 ? '' : `^${beta}`);
const tokenVectors = (beta: number, analysis: Analysis) => (analysis === 'stems'
  ? `E[w] = idf_s${pow(beta)} · U_k[s], s = the BM25 analyzer's Porter stem of w (stop words not in the vocabulary); zero for [PAD] [UNK] [CLS] [SEP] [MASK]`
  : `E[w] = idf_w${pow(beta)} · U_k[w]; zero for [PAD] [UNK] [CLS] [SEP] [MASK]`);
/** Singular values below this fraction of σ_1 are numerically zero: the corpus has no more directions. */
const RANK_TOLERANCE = 1e-9;

function intOption(name: string, v: number | undefined, fallback: number, min: number): number {
  const n = v ?? fallback;
  if (!Number.isInteger(n) || n < min) throw new CorpusEmbedderError(`${name} must be an integer ≥ ${min}, got ${String(v)}`);
  return n;
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** Lets the event loop run (progress messages, an abort) and stops if the signal was aborted. */
async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  await new Promise<void>((r) => setTimeout(r, 0));
  signal?.throwIfAborted();
}

/** Trains on `texts` (one string per document: its title and text) and returns the model's files and a summary. */
export async function trainCorpusEmbedder(texts: readonly string[], opts: TrainOptions = {}): Promise<TrainedModel> {
  const t0 = now();
  const requestedDim = intOption('dim', opts.dim, TRAIN_DEFAULTS.dim, 1);
  const seed = intOption('seed', opts.seed, TRAIN_DEFAULTS.seed, 0);
  const minDf = intOption('minDf', opts.minDf, TRAIN_DEFAULTS.minDf, 1);
  const maxVocab = intOption('maxVocab', opts.maxVocab, TRAIN_DEFAULTS.maxVocab, 1);
  const powerIterations = intOption('powerIterations', opts.powerIterations, TRAIN_DEFAULTS.powerIterations, 0);
  const idfPower = opts.idfPower ?? TRAIN_DEFAULTS.idfPower;
  if (!(Number.isFinite(idfPower) && idfPower >= 0 && idfPower <= 8)) throw new CorpusEmbedderError(`idfPower must be a number from 0 to 8, got ${String(opts.idfPower)}`);
  const analysis = opts.analysis ?? TRAIN_DEFAULTS.analysis;
  if (!ANALYSES.includes(analysis)) throw new CorpusEmbedderError(`analysis must be one of ${ANALYSES.join(', ')}, got ${String(opts.analysis)}`);
  const stems = analysis === 'stems' ? new StemAnalysis() : null;
  const { signal, onProgress } = opts;
  const progress = (stage: TrainStage, done: number, total: number) => onProgress?.({ stage, done, total });
  const n = texts.length;
  if (n < 2) throw new CorpusEmbedderError(`training needs at least 2 documents, got ${n}`);
  const notes: string[] = [];

  const docs: TermCounts[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 256 === 0) { progress('tokenize', i, n); await checkpoint(signal); }
    const t = texts[i];
    const words = typeof t === 'string' ? bertWords(t) : [];
    docs.push(termCounts(stems ? stems.terms(words) : words));
  }
  progress('tokenize', n, n);

  progress('vocabulary', 0, 1);
  await checkpoint(signal);
  const vocab = buildVocabulary(docs, minDf, maxVocab);
  const terms = vocab.df.length;
  if (terms === 0) throw new CorpusEmbedderError(`no word occurs in at least ${minDf} of the ${n} documents: nothing to learn from`);
  if (vocab.eligible > terms) notes.push(`vocabulary capped at ${terms} of ${vocab.eligible} terms (maxVocab)`);
  progress('vocabulary', 1, 1);

  progress('matrix', 0, 1);
  await checkpoint(signal);
  const idf = inverseDocumentFrequency(vocab.df, n);
  const a = tfidfMatrix(docs, vocab, idf);
  docs.length = 0;
  progress('matrix', 1, 1);

  const maxRank = Math.max(1, Math.min(terms, n) - 1);
  let k = Math.min(requestedDim, maxRank);
  if (k < requestedDim) notes.push(`dim ${requestedDim} clamped to ${k}: ${terms} terms and ${n} documents allow at most min(terms, documents) − 1`);
  progress('svd', 0, 2 * powerIterations + 2);
  await checkpoint(signal);
  const svd = await randomizedSvd(a, k, {
    seed, powerIterations, oversample: TRAIN_DEFAULTS.oversample,
    onStep: async (done, total) => { progress('svd', done, total); await checkpoint(signal); },
  });
  const s1 = svd.s[0] ?? 0;
  if (!(s1 > 0)) throw new CorpusEmbedderError('the tf-idf matrix is zero (every term occurs in every document): nothing to learn from');
  const rank = svd.s.findIndex((s) => !(s > RANK_TOLERANCE * s1));
  if (rank !== -1 && rank < k) {
    notes.push(`dim ${k} clamped to ${rank}: the corpus's tf-idf matrix has numerical rank ${rank}`);
    k = rank;
  }

  progress('write', 0, 1);
  await checkpoint(signal);
  const { tokens, rowOf } = stems ? stems.tokenTable(vocab) : wordTable(vocab);
  const e = new Float32Array(tokens.length * k);
  for (let i = 0; i < tokens.length; i++) {
    const r = rowOf[i]!;
    if (r < 0) continue; // a special token: zero
    const o = i * k, weight = idf[r]! ** idfPower;
    for (let c = 0; c < k; c++) e[o + c] = weight * svd.u[c * terms + r]!; // E[w] = idf_w^β · U_k[w] (w's stem under 'stems')
  }
  const corpusHash = await corpusHashOf(texts);
  const info: CorpusEmbedderInfo = {
    method: 'lsi', corpus_trained: true, dim: k, documents: n, vocabulary: terms, trained_on: opts.trainedOn ?? 'documents',
    corpus_sha256: corpusHash,
    analysis, tokens: tokens.length,
    weighting: WEIGHTING, token_vectors: tokenVectors(idfPower, analysis), idf_power: idfPower, seed, min_df: minDf, power_iterations: powerIterations,
    oversample: TRAIN_DEFAULTS.oversample, singular_values: Array.from(svd.s.subarray(0, Math.min(k, 16)), (v) => Number(v.toPrecision(6))),
    created: new Date().toISOString(),
  };
  const doc = `Corpus-trained LSI token embeddings (${k}-d, ${terms} ${stems ? 'stems' : 'terms'}, ${n} documents of ${info.trained_on}); not a pretrained model.`;
  const files: Record<string, Uint8Array> = {
    'config.json': configJson(info, tokens.length),
    'tokenizer.json': tokenizerJson(tokens),
    'tokenizer_config.json': tokenizerConfigJson(),
    'onnx/model.onnx': embeddingModelFp32(e, tokens.length, k, doc),
    'onnx/model_quantized.onnx': embeddingModelQ8(e, tokens.length, k, doc),
  };
  progress('write', 1, 1);
  return {
    files,
    embeddings: { tokens, vectors: e, dim: k },
    summary: { method: 'lsi', documents: n, vocabulary: terms, tokens: tokens.length, dim: k, requestedDim, seconds: (now() - t0) / 1000, singularValues: Array.from(svd.s.subarray(0, k)), notes, corpusHash },
  };
}
