import { describe, expect, it } from 'vitest';
import { corpusHashOf } from '../../src/lib/models/corpus-embedder/corpus-hash.ts';
import { trainCorpusEmbedder } from '../../src/lib/models/corpus-embedder/train.ts';

describe('corpusHashOf', () => {
  it('is the SHA-256 of the length-prefixed texts (hand-computed with hashlib)', async () => {
    expect(await corpusHashOf(['ab', 'c'])).toBe('430fb1b4ac43316eca81fab27a1930ab8eff8fef6a1dc7903dce44bbc2790dc5');
    expect(await corpusHashOf(['a', 'bc'])).toBe('5310a58788781ab25d5ad7c3f85035824b4eb7bdfa394e0ac2186271472b5492');
  });

  it('is recorded by the trainer in the summary and config.json', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `document ${i} about topic ${i % 3} with words alpha beta gamma ${i % 2 ? 'delta' : 'omega'}`);
    const model = await trainCorpusEmbedder(texts, { dim: 4 });
    const hash = await corpusHashOf(texts);
    expect(model.summary.corpusHash).toBe(hash);
    expect(JSON.parse(new TextDecoder().decode(model.files['config.json'])).corpus_embedder.corpus_sha256).toBe(hash);
  });
});
