/** needsEmbedder (src/lib/models/needs-embedder.ts): the one wording of "needs an embedding model". */
import { describe, expect, test } from 'vitest';
import { NEED_EMBEDDER } from '../../src/lib/models/readiness.ts';
import { needsEmbedder, NEEDS_EMBEDDER } from '../../src/lib/models/needs-embedder.ts';
import { EMBED_NEEDS_EMBEDDER } from '../../src/ui/build/build-view.ts';

describe('needsEmbedder', () => {
  test('subject, need, remedy and full stop', () => {
    expect(needsEmbedder('Dense search')).toBe('Dense search needs an embedding model: load one under Settings → Models.');
    expect(needsEmbedder('The hybrid retrieval of the Ask tab\'s pipeline', 'choose sparse retrieval in the Ask tab'))
      .toBe('The hybrid retrieval of the Ask tab\'s pipeline needs an embedding model: load one under Settings → Models, or choose sparse retrieval in the Ask tab.');
    expect(NEEDS_EMBEDDER).toBe('needs an embedding model: load one under Settings → Models');
  });
  test('the wordings that exist say the same: readiness\'s dense reason, the Build tab\'s', () => {
    expect(needsEmbedder('Dense search')).toBe(NEED_EMBEDDER);
    expect(EMBED_NEEDS_EMBEDDER).toBe('Embedding the chunks needs an embedding model: load one under Settings → Models, or build without vectors (BM25 works without).');
  });
});
