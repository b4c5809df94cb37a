/**
 * Every content key the caches are addressed by, in one place: the tab and the CLI build the same key for the same
 * data, so a vector embedded by one is found by the other. A vector entry is then `<kb key>|<model>|<dtype>`
 * (store/vector-cache.ts `vectorKey`).
 */

/** How a knowledge base was chunked: false for whole documents, else its chunker's settings. */
type Chunking = false | object;

const chunkPart = (chunking: Chunking) => JSON.stringify(chunking);

/** A BEIR folder's data (first 16 hex of the corpus text's SHA-256). */
export const beirDataKey = (corpusHash: string) => `beir:${corpusHash}`;

/** A BEIR folder's document vectors. */
export const beirVectorKey = (corpusHash: string, chunking: Chunking) =>
  `beir:${corpusHash}:${chunking !== false ? 'chunk' : 'doc'}:${chunkPart(chunking)}`;

/** A Hub BEIR dataset's data. */
export const hubBeirDataKey = (docsKey: string) => `hub-dataset:${docsKey}`;

/** A Hub BEIR dataset's document vectors. */
export const hubBeirVectorKey = (dataset: string, docsKey: string, chunking: Chunking) =>
  `hub-dataset:${dataset}:${docsKey}:${chunking !== false ? `chunk:${chunkPart(chunking)}` : 'doc'}`;

/** A RAGBench subset's pooled documents' vectors. */
export const ragbenchVectorKey = (subset: string, docsHash: string, chunking: Chunking) =>
  `ragbench:${subset}:${docsHash}:${chunkPart(chunking)}`;

/** Any other knowledge base's vectors, under its id and a hash of its documents. */
export const kbVectorKey = (kbId: string, docsHash: string, chunking: Chunking) => `${kbId}:${docsHash}:${chunkPart(chunking)}`;

/** The first 16 hex digits of an artifact's meta.json SHA-256: the artifact's content key. */
export const metaKeyOf = (metaSha256: string) => metaSha256.slice(0, 16);

/** The start of every vector key of the artifact `kbId` (a local knowledge base's are removed with it). */
export const artifactVectorPrefix = (kbId: string) => `${kbId}:artifact:`;

/** An artifact's vectors embedded here (it shipped none, or none for this model). */
export const artifactVectorKey = (kbId: string, metaKey: string) => `${artifactVectorPrefix(kbId)}${metaKey}`;

/** An artifact's data (a retrieval run's identity). */
export const artifactDataKey = (metaKey: string) => `artifact:${metaKey}`;
