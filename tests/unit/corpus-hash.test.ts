import { describe, expect, it } from 'vitest';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import type { OpenedArtifact } from '../../src/lib/artifact/types.ts';
import { writeArtifact } from '../../src/lib/artifact/write.ts';
import { corpusHashOf, kbCorpusHash, kbTrainingTexts } from '../../src/lib/models/corpus-embedder/corpus-hash.ts';
import { trainCorpusEmbedder } from '../../src/lib/models/corpus-embedder/train.ts';
import { KbSession } from '../../src/lib/rag/kb-session.ts';
import type { TransformCache } from '../../src/lib/rag/transforms.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';

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

describe("an artifact's corpus hash (meta.json corpus_sha256)", () => {
  const docs = Array.from({ length: 6 }, (_, d) => ({ id: `d${d}`, title: `Title ${d}`, text: `First sentence of ${d} about rivers. `.repeat(8 + d) }));
  const kb = KnowledgeBase.build(docs, { chunking: { ...DEFAULT_CHUNKING, chunkSize: 120, overlap: 20 }, cdfQueries: 0 });
  const written = () => writeArtifact({ id: 'kb', title: 'KB', fields: [], kb, created: '2026-01-01T00:00:00.000Z' });
  const transformCache = { get: async () => undefined, put: async () => {} } as unknown as TransformCache;
  /** A session opening `files` as a Hub artifact at path '' (openArtifact possibly wrapped). */
  const session = (files: Map<string, Uint8Array>, open: typeof openArtifact = openArtifact) => new KbSession({
    artifacts: {
      listIndexes, openArtifact: open,
      hubSource: async () => Object.assign(memorySource(files), { revisionSha: 'a'.repeat(40), notes: [] }),
      httpFolderSource: () => { throw new Error('not used'); },
    },
    localKbs: () => { throw new Error('not used'); },
    transformCache,
  });
  const hubRequest = { kind: 'hub' as const, repo: 'o/r', revision: 'main', path: '', hubUrl: 'http://127.0.0.1:9', token: null };

  it('is written by the artifact writer and equals the hash of the reopened items, as a model trained on them records it', async () => {
    const { meta, files } = await written();
    expect(meta.corpus_sha256).toBe(await corpusHashOf(kbTrainingTexts(kb)));
    const opened = await openArtifact(memorySource(files), '');
    expect(opened.corpusHash).toBe(meta.corpus_sha256);
    expect(await kbCorpusHash(opened.kb)).toBe(meta.corpus_sha256);
  });

  it('the session takes it from meta.json without hashing the texts, and computes it for an artifact written before the field', async () => {
    const { meta, files } = await written();
    // A meta.json claim is what the session reports: it is read, not recomputed.
    const claimed = (o: OpenedArtifact): OpenedArtifact => ({ ...o, corpusHash: 'c'.repeat(64) });
    expect((await session(files, async (...a) => claimed(await openArtifact(...a))).open(hubRequest, () => {})).corpusHash).toBe('c'.repeat(64));
    // Without it (older artifacts): hashed here, the same value.
    const older = (o: OpenedArtifact): OpenedArtifact => ({ ...o, corpusHash: null });
    expect((await session(files, async (...a) => older(await openArtifact(...a))).open(hubRequest, () => {})).corpusHash).toBe(meta.corpus_sha256);
  });
});
