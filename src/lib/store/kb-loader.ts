/**
 * Opens a knowledge base: from the IndexedDB cache when a valid record exists for exactly these documents and
 * options, otherwise by building it (chunk → index → calibrate) and caching the result.
 */
import { isCoarseCdf } from '../retrieval/calibrate.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import { DEFAULT_KB_OPTIONS, KnowledgeBase, type BuildStage, type KbOptions } from '../retrieval/knowledge-base.ts';
import { sha256Hex } from '../checksum.ts';
import { loadIndex, saveIndex } from './index-cache.ts';

export type OpenStage = BuildStage | 'cache-load' | 'cache-save';

export interface OpenResult {
  kb: KnowledgeBase;
  source: 'cache' | 'built';
  /** Why the cache was not used or not written, for the user (null when all went well). */
  cacheNote: string | null;
  buildMs: number;
  cacheKey: string;
}

export async function openKnowledgeBase(
  corpusId: string,
  docs: readonly SourceDocument[],
  corpusHash: string,
  options: Partial<KbOptions> = {},
  onProgress?: (stage: OpenStage, done: number, total: number) => void,
): Promise<OpenResult> {
  const opts: KbOptions = { ...DEFAULT_KB_OPTIONS, ...options };
  const key = `${corpusId}:${corpusHash}:${(await sha256Hex(JSON.stringify(opts))).slice(0, 16)}`;
  const t0 = performance.now();
  onProgress?.('cache-load', 0, 1);
  const cached = await loadIndex(key);
  let cacheNote: string | null = null;
  if (cached.status === 'hit' && cached.data.sparseCdf && isCoarseCdf(cached.data.sparseCdf)) {
    // Saved before issue 32: its BM25 corpus-CDF table kept 4,096 scores (calibrate.ts); built again, whole.
    cacheNote = 'The cached index has an older, coarser corpus-CDF table (4,096 scores); it was rebuilt.';
  } else if (cached.status === 'hit') {
    try {
      const kb = KnowledgeBase.fromData(docs, cached.data);
      onProgress?.('cache-load', 1, 1);
      return { kb, source: 'cache', cacheNote: null, buildMs: performance.now() - t0, cacheKey: key };
    } catch (e) {
      cacheNote = `The cached index did not fit the documents (${(e as Error).message}); it was rebuilt.`;
    }
  } else if (cached.status === 'invalid') {
    cacheNote = `The cached index was not usable: ${cached.reason}. It was rebuilt.`;
  }
  const kb = KnowledgeBase.build(docs, opts, onProgress);
  const buildMs = performance.now() - t0;
  onProgress?.('cache-save', 0, 1);
  const saved = await saveIndex(key, kb.data);
  onProgress?.('cache-save', 1, 1);
  if (!saved.ok) cacheNote = `${cacheNote ? cacheNote + ' ' : ''}Caching failed: ${saved.reason}.`;
  return { kb, source: 'built', cacheNote, buildMs, cacheKey: key };
}
