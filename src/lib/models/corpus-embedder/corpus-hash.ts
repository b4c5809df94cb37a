/**
 * The identity of the corpus a corpus-trained embedder was trained on: the SHA-256 of its training texts (each
 * text's UTF-16 length in decimal, a colon, the text; in order). A knowledge base and a benchmark dataset compute
 * the same hash over the texts they would train on (`kbTrainingTexts`, the dataset's documents or chunks), so a
 * model "belongs" to a corpus by its content, not by its name. Recorded as `corpus_sha256` in the model's
 * config.json and as `corpusHash` in the tab's trained-model list.
 */
import { sha256Hex } from '../../checksum.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';

export async function corpusHashOf(texts: readonly string[]): Promise<string> {
  // length-prefixed so that ['ab', 'c'] and ['a', 'bc'] differ
  const parts: string[] = [];
  for (const t of texts) parts.push(`${t.length}:`, t);
  return sha256Hex(parts.join(''));
}

/** The texts a knowledge base trains on: every chunk as the retrievers index it (title line and chunk text). */
export function kbTrainingTexts(kb: Pick<KnowledgeBase, 'size' | 'indexedText'>): string[] {
  const out: string[] = [];
  for (let i = 0; i < kb.size; i++) out.push(kb.indexedText(i));
  return out;
}

/** A knowledge base's corpus hash: `corpusHashOf(kbTrainingTexts(kb))`. */
export const kbCorpusHash = (kb: Pick<KnowledgeBase, 'size' | 'indexedText'>): Promise<string> => corpusHashOf(kbTrainingTexts(kb));
