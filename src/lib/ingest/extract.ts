/**
 * Files → documents, for the Build tab and `rag-lab build-index --data <folder>` alike: PDF (text layer per page via
 * pdfjs-dist, page numbers kept), TXT, MD and HTML; every file that cannot be used is listed with its reason while the
 * others are used. CONTRACT STUB (issue 12): the ingest helper implements it.
 */
import type { InputFile, OnBuildProgress, SourceDocuments } from '../build/types.ts';

export interface IngestOptions {
  signal?: AbortSignal;
  /** Progress of stage `extract`, per file (`item` = its path). */
  onProgress?: OnBuildProgress;
}

export async function extractDocuments(_files: readonly InputFile[], _opts: IngestOptions = {}): Promise<SourceDocuments> {
  throw new Error('File extraction is not built yet.');
}
