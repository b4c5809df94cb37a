/**
 * A BEIR dataset on the Hub (corpus, queries and qrels as parquet, e.g. BeIR/scifact): what the retrieval benchmark
 * reads from it, for the Benchmark tab's "Hub dataset" source and `rag-lab eval-beir --data hub:owner/name[@rev]`.
 * The token goes only to `opts.hubUrl` (hub-dataset.ts sends it with authorizedFetch to that host alone).
 */
import { sha256Hex } from '../checksum.ts';
import type { BeirQuery, Qrels } from './beir.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import { hubDatasetDocuments, inspectHubDataset, MAX_ROWS, type HubDatasetOptions } from './hub-dataset.ts';

export interface HubBeirDataset {
  dataset: string;
  /** The commit the files were read at. */
  revision: string | null;
  docs: SourceDocument[];
  queries: BeirQuery[];
  qrels: Qrels;
  /** First 16 hex digits of a SHA-256 over the documents (id, title, text): the data's content key. */
  docsKey: string;
  notes: string[];
}

/** Content key of a document list (id, title and text of each, in order). */
export const docsKey = async (docs: readonly SourceDocument[]) => (await sha256Hex(docs.map((d) => `${d.id}\u0001${d.title}\u0001${d.text}`).join('\u0000'))).slice(0, 16);

/** Reads a BEIR-layout Hub dataset; an error in words when it is not one or its queries and qrels cannot be read. */
export async function readHubBeir(req: { dataset: string; revision?: string | null }, opts: HubDatasetOptions, onStage?: (stage: 'inspect' | 'download', done: number, total: number) => void): Promise<HubBeirDataset> {
  const o: HubDatasetOptions = { ...opts, onProgress: (p) => { if (p.stage === 'download') onStage?.('download', p.done, p.total); opts.onProgress?.(p); } };
  onStage?.('inspect', 0, 1);
  const info = await inspectHubDataset({ dataset: req.dataset, ...(req.revision ? { revision: req.revision } : {}) }, o);
  if (!info.beir) throw new Error(`${info.dataset} is not in the BEIR layout (a corpus with queries and qrels): pick a BEIR dataset such as BeIR/scifact, or build it as a knowledge base in the Build tab.`);
  const revision = info.revision ?? req.revision ?? null;
  const docs = await hubDatasetDocuments({
    dataset: info.dataset, config: info.config, split: info.split, ...(revision ? { revision } : {}), columns: info.guess, maxRows: MAX_ROWS,
  }, o);
  if (!docs.queries || !docs.qrels) throw new Error(`${info.dataset}: its queries and qrels could not be read: pick a BEIR dataset such as BeIR/scifact.`);
  return { dataset: info.dataset, revision: info.revision, docs: docs.docs, queries: docs.queries, qrels: docs.qrels, docsKey: await docsKey(docs.docs), notes: docs.notes };
}
