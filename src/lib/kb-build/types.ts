/**
 * The build contract as the build session's callers name it: the source contract (`src/lib/data/source-documents.ts`:
 * documents, skipped inputs, stages and progress) and the record of a knowledge base built here
 * (`src/lib/data/local-kb-meta.ts`), which live below data/, ingest/ and store/ so those never import kb-build/.
 */
export { BUILD_STAGES, type BuildOrigin, type BuildProgress, type BuildStage, type InputFile, type OnBuildProgress, type SkippedItem, type SourceDocuments } from '../data/source-documents.ts';
export { LOCAL_KB_NAME, type BuildSettings, type BuildSummary, type LocalKbMeta } from '../data/local-kb-meta.ts';
