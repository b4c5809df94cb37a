/**
 * A knowledge base: source documents, the items retrieval ranks (chunks, or whole documents), the BM25 index over
 * them and the corpus-CDF table of BM25 scores. Built in stages (chunk → index → calibrate) with progress, and
 * serialisable to plain data for the IndexedDB cache.
 */
import type { SourceDocument } from './document.ts';
import { seededRandom } from '../random.ts';
import { Bm25Index, DEFAULT_BM25, type Bm25Data, type Bm25Options } from './bm25.ts';
import type { AnalyzerOptions } from './tokenize.ts';
import { buildCdf, type CdfTable } from './calibrate.ts';
import { chunkText, DEFAULT_CHUNKING, type ChunkOptions } from './chunk.ts';
import type { DenseRetriever } from './dense.ts';
import { wordSpans } from './tokenize.ts';

export interface KbOptions {
  /** Chunking, or false to index whole documents. Default 800/120 chunks. */
  chunking: ChunkOptions | false;
  bm25: Bm25Options;
  /** Prefix each item's indexed text with its document title. Default true. */
  indexTitle: boolean;
  /** Sample queries for the BM25 corpus-CDF table (0 = no table). Default 100. */
  cdfQueries: number;
  /** Seed for sampling the CDF queries. Default 13. */
  seed: number;
}

export const DEFAULT_KB_OPTIONS: Readonly<KbOptions> = Object.freeze({
  chunking: DEFAULT_CHUNKING,
  bm25: DEFAULT_BM25,
  indexTitle: true,
  cdfQueries: 100,
  seed: 13,
});

export type BuildStage = 'chunk' | 'index' | 'calibrate';
export type BuildProgress = (stage: BuildStage, done: number, total: number) => void;

/** Everything needed to restore a knowledge base next to its documents. */
export interface KbData {
  version: 1;
  options: KbOptions;
  docCount: number;
  itemDoc: Uint32Array;
  itemChunk: Uint32Array;
  itemStart: Uint32Array;
  itemEnd: Uint32Array;
  bm25: Bm25Data;
  sparseCdf: CdfTable | null;
}

/** Items (chunks or whole documents) given from outside, as `KnowledgeBase.fromItems` takes them. */
export interface KbItems {
  itemDoc: Uint32Array;
  itemChunk: Uint32Array;
  itemStart: Uint32Array;
  itemEnd: Uint32Array;
  /** Item texts, when the documents do not hold them (a seed-A folder without docs.parquet). */
  texts?: readonly string[];
  /** Item ids, when they are not the derived `docId#chunkIndex` (or the document id for whole documents). */
  ids?: readonly string[];
}

export class KnowledgeBase {
  /** Set when an embedding model has produced vectors for the items (models issue). */
  dense: DenseRetriever | null = null;
  denseCdf: CdfTable | null = null;
  /** Items left out of dense search (1 = their vector held NaN/infinite values; vector-check.ts), or null. */
  denseSkip: Uint8Array | null = null;

  private constructor(
    readonly docs: readonly SourceDocument[],
    readonly data: KbData,
    readonly bm25: Bm25Index,
    /** Item texts kept apart from the documents (artifacts whose documents carry no text). */
    private readonly texts: readonly string[] | null = null,
    /** Item ids given by the source, when they are not the derived ones. */
    private readonly ids: readonly string[] | null = null,
  ) {}

  get size(): number {
    return this.data.itemDoc.length;
  }

  get options(): KbOptions {
    return this.data.options;
  }

  get sparseCdf(): CdfTable | null {
    return this.data.sparseCdf;
  }

  /** Stable id: the document id for whole documents, `docId#chunkIndex` for chunks. */
  itemId = (i: number): string => {
    if (this.ids) return this.ids[i]!;
    const doc = this.docs[this.data.itemDoc[i]!]!;
    return this.data.options.chunking === false ? doc.id : `${doc.id}#${this.data.itemChunk[i]}`;
  };

  docOf(i: number): SourceDocument {
    return this.docs[this.data.itemDoc[i]!]!;
  }

  docIndexOf(i: number): number {
    return this.data.itemDoc[i]!;
  }

  itemText(i: number): string {
    if (this.texts) return this.texts[i]!;
    return this.docOf(i).text.slice(this.data.itemStart[i], this.data.itemEnd[i]);
  }

  /** The text the retrievers index: the title line (when `indexTitle`) and the item text. */
  indexedText(i: number): string {
    const doc = this.docOf(i);
    return (this.data.options.indexTitle && doc.title ? `${doc.title}\n` : '') + this.itemText(i);
  }

  itemSpan(i: number): { chunkIndex: number; start: number; end: number } {
    return { chunkIndex: this.data.itemChunk[i]!, start: this.data.itemStart[i]!, end: this.data.itemEnd[i]! };
  }

  /**
   * The same items and postings under other BM25 parameters: the index is not rebuilt (k1 and b enter only at query
   * time), the corpus-CDF table is made again from the same pseudo-queries, and the dense side (vectors, CDF, skips)
   * is shared. What the tuner's BM25 trials run on (tune/); equal to a build with those parameters.
   */
  withBm25(params: Bm25Options): KnowledgeBase {
    const { k1, b } = params;
    if (!(k1 >= 0) || !(b >= 0 && b <= 1)) throw new Error(`withBm25: need k1 >= 0 and 0 <= b <= 1, got k1=${k1} b=${b}`);
    const bm25 = Bm25Index.fromData({ ...this.data.bm25, params: { k1, b } });
    const options: KbOptions = { ...this.data.options, bm25: { k1, b } };
    const texts = Array.from({ length: this.size }, (_, i) => this.indexedText(i));
    const sparseCdf = this.data.sparseCdf === null ? null : sparseCdfTable(bm25, texts, options.cdfQueries, options.seed);
    const kb = new KnowledgeBase(this.docs, { ...this.data, options, bm25: bm25.toData(), sparseCdf }, bm25, this.texts, this.ids);
    kb.dense = this.dense;
    kb.denseCdf = this.denseCdf;
    kb.denseSkip = this.denseSkip;
    return kb;
  }

  /**
   * The same items, postings and dense calibration with another vector index over the same vectors (the tuner's
   * index-kind trials): only the dense retriever differs.
   */
  withDenseIndex(index: DenseRetriever): KnowledgeBase {
    if (index.size !== this.size) throw new Error(`withDenseIndex: the index holds ${index.size} vectors, the knowledge base ${this.size} items`);
    const kb = new KnowledgeBase(this.docs, this.data, this.bm25, this.texts, this.ids);
    kb.dense = index;
    kb.denseCdf = this.denseCdf;
    kb.denseSkip = this.denseSkip;
    return kb;
  }

  /** The same items and postings with no dense side: for another embedder's vectors (the tuner's embedder trials). */
  withoutDense(): KnowledgeBase {
    return new KnowledgeBase(this.docs, this.data, this.bm25, this.texts, this.ids);
  }

  /** `analyzer` sets the BM25 tokenizer (default: the English analyzer: stop words, Porter stems). */
  static build(docs: readonly SourceDocument[], options: Partial<KbOptions> = {}, onProgress?: BuildProgress, analyzer?: Partial<AnalyzerOptions>): KnowledgeBase {
    const opts: KbOptions = { ...DEFAULT_KB_OPTIONS, ...options };
    const itemDoc: number[] = [], itemChunk: number[] = [], itemStart: number[] = [], itemEnd: number[] = [];
    const texts: string[] = [];
    docs.forEach((doc, d) => {
      const prefix = opts.indexTitle && doc.title ? `${doc.title}\n` : '';
      if (opts.chunking === false) {
        itemDoc.push(d); itemChunk.push(0); itemStart.push(0); itemEnd.push(doc.text.length);
        texts.push(prefix + doc.text);
      } else {
        for (const c of chunkText(doc.id, doc.text, opts.chunking)) {
          itemDoc.push(d); itemChunk.push(c.chunkIndex); itemStart.push(c.start); itemEnd.push(c.end);
          texts.push(prefix + c.text);
        }
      }
      if (onProgress && (d % 20 === 0 || d === docs.length - 1)) onProgress('chunk', d + 1, docs.length);
    });
    const items = { itemDoc: Uint32Array.from(itemDoc), itemChunk: Uint32Array.from(itemChunk), itemStart: Uint32Array.from(itemStart), itemEnd: Uint32Array.from(itemEnd) };
    return KnowledgeBase.assemble(docs, opts, items, texts, analyzer ? { analyzer } : {}, null, onProgress);
  }

  /**
   * A knowledge base over items given from outside (an artifact's chunks), with the BM25 index and CDF table given
   * (restored postings) or built here from the items' indexed text (title line when `indexTitle`, then the item
   * text: the chunk's slice of its document, or `items.texts[i]` when the documents carry no text).
   * `analyzer` sets the tokenizer of a rebuilt index (default: the English analyzer).
   */
  static fromItems(
    docs: readonly SourceDocument[],
    items: KbItems,
    options: Partial<KbOptions> = {},
    given: { bm25?: Bm25Data; sparseCdf?: CdfTable | null; analyzer?: Partial<AnalyzerOptions> } = {},
    onProgress?: BuildProgress,
  ): KnowledgeBase {
    const opts: KbOptions = { ...DEFAULT_KB_OPTIONS, ...options };
    const n = items.itemDoc.length;
    if (items.itemChunk.length !== n || items.itemStart.length !== n || items.itemEnd.length !== n ||
        (items.texts && items.texts.length !== n) || (items.ids && items.ids.length !== n)) {
      throw new Error('KnowledgeBase: item arrays of different lengths');
    }
    for (let i = 0; i < n; i++) {
      if (items.itemDoc[i]! >= docs.length) throw new Error(`KnowledgeBase: item ${i} names document ${items.itemDoc[i]} of ${docs.length}`);
    }
    const texts: string[] = [];
    for (let i = 0; i < n; i++) {
      const doc = docs[items.itemDoc[i]!]!;
      const body = items.texts ? items.texts[i]! : doc.text.slice(items.itemStart[i], items.itemEnd[i]);
      texts.push((opts.indexTitle && doc.title ? `${doc.title}\n` : '') + body);
    }
    if (given.bm25 && given.bm25.docLengths.length !== n) throw new Error('KnowledgeBase: the BM25 index does not match the items');
    return KnowledgeBase.assemble(docs, opts, items, texts, given, items.texts ?? null, onProgress, items.ids ?? null);
  }

  private static assemble(
    docs: readonly SourceDocument[],
    opts: KbOptions,
    items: Omit<KbItems, 'texts' | 'ids'>,
    texts: readonly string[],
    given: { bm25?: Bm25Data; sparseCdf?: CdfTable | null; analyzer?: Partial<AnalyzerOptions> },
    itemTexts: readonly string[] | null,
    onProgress?: BuildProgress,
    ids: readonly string[] | null = null,
  ): KnowledgeBase {
    const bm25 = given.bm25 ? Bm25Index.fromData(given.bm25) : Bm25Index.build(texts, opts.bm25, given.analyzer ?? {}, (done, total) => onProgress?.('index', done, total));
    const sparseCdf = given.sparseCdf !== undefined ? given.sparseCdf
      : opts.cdfQueries > 0 ? sparseCdfTable(bm25, texts, opts.cdfQueries, opts.seed, onProgress) : null;
    const data: KbData = {
      version: 1,
      options: opts,
      docCount: docs.length,
      itemDoc: items.itemDoc,
      itemChunk: items.itemChunk,
      itemStart: items.itemStart,
      itemEnd: items.itemEnd,
      bm25: bm25.toData(),
      sparseCdf,
    };
    return new KnowledgeBase(docs, data, bm25, itemTexts, ids);
  }

  /** Restores from `data` saved for exactly these documents; throws if they do not fit together. */
  static fromData(docs: readonly SourceDocument[], data: KbData): KnowledgeBase {
    if (data?.version !== 1) throw new Error(`KnowledgeBase: unsupported data version ${String(data?.version)}`);
    const n = data.itemDoc.length;
    if (data.docCount !== docs.length || data.itemStart.length !== n || data.itemEnd.length !== n ||
        data.itemChunk.length !== n || data.bm25.docLengths.length !== n) {
      throw new Error('KnowledgeBase: saved index does not match the documents');
    }
    return new KnowledgeBase(docs, data, Bm25Index.fromData(data.bm25));
  }
}

/**
 * Pseudo-queries for corpus-CDF tables: 4–8 consecutive words of a random item each (seeded, reproducible).
 */
export function samplePseudoQueries(itemCount: number, textOf: (i: number) => string, n: number, seed: number): string[] {
  if (itemCount === 0) return [];
  const rand = seededRandom(seed);
  const out: string[] = [];
  for (let q = 0; q < n; q++) {
    const words = wordSpans(textOf(Math.floor(rand() * itemCount)));
    const len = 4 + Math.floor(rand() * 5);
    const from = Math.floor(rand() * Math.max(1, words.length - len + 1));
    if (words.length > 0) out.push(words.slice(from, from + len).map((w) => w.token).join(' '));
  }
  return out;
}

/**
 * Corpus-CDF table for BM25: pseudo-queries scored against every item. Only positive scores enter the table: a
 * BM25 score of 0 means "no query term occurs", not a low score, and counting those would push every match to
 * the top percentile.
 */
function sparseCdfTable(bm25: Bm25Index, texts: readonly string[], queries: number, seed: number, onProgress?: BuildProgress): CdfTable | null {
  if (texts.length === 0) return null;
  const lists: Float64Array[] = [];
  const sample = samplePseudoQueries(texts.length, (i) => texts[i]!, queries, seed);
  sample.forEach((q, i) => {
    lists.push(bm25.scoreAll(q).filter((s) => s > 0));
    if (onProgress && (i % 10 === 0 || i === sample.length - 1)) onProgress('calibrate', i + 1, sample.length);
  });
  return buildCdf(lists);
}
