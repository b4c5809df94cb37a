/**
 * What the build worker reads documents from (`BuildSource`, workers/build-api.ts) → `SourceDocuments`: dropped
 * files through the ingest code, a Hub dataset, an arXiv query or web pages through the user's proxy, or a knowledge base already
 * built here (rebuilt with other settings: its documents, queries and judgements read back from its artifact). One
 * reader per source of `BUILD_SOURCES` the tab reads (build-sources.ts), in `TAB_READERS`.
 */
import type { BuildSource } from './requests.ts';
import type { TabSourceKind } from './build-sources.ts';
import { memorySource } from '../artifact/memory-source.ts';
import { openArtifact } from '../artifact/read.ts';
import { arxivDocuments } from '../data/arxiv.ts';
import { arxivProxyProblem } from '../data/arxiv-query.ts';
import { hubDatasetDocuments } from '../data/hub-dataset.ts';
import { extractDocuments } from '../ingest/extract.ts';
import { webDocuments } from '../ingest/web-pages.ts';
import { localKbId } from '../data/kb-registry.ts';
import { missingMessage, type LocalKbRecord, type LocalKbStore } from '../store/local-kb-store.ts';
import type { OnBuildProgress, SourceDocuments } from '../data/source-documents.ts';

export interface SourceOptions {
  /** The knowledge bases saved here (for `rebuild`). */
  store: LocalKbStore;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
  fetch?: typeof fetch;
}

export const NO_WEB_PROXY = 'Most web sites send no CORS headers, so a browser tab cannot read their pages directly: set a proxy URL in Settings first (the one arXiv uses), or build with the CLI (rag-lab build-index --urls FILE).';

export const NO_ARXIV_PROXY = 'arXiv cannot be called from a browser tab directly (it sends no CORS headers): set an arXiv proxy URL in Settings first, or build with the CLI (rag-lab build-index --arxiv).';

/** The documents of a saved knowledge base, with its queries and judgements, as a source for a new build. */
export async function rebuildDocuments(record: LocalKbRecord, opts: { signal?: AbortSignal; onProgress?: OnBuildProgress } = {}): Promise<SourceDocuments> {
  const name = record.meta.name;
  const source = memorySource(record.files, localKbId(name));
  opts.onProgress?.({ stage: 'extract', done: 0, total: 1, item: name });
  const opened = await openArtifact(source, '', { dense: 'none', ...(opts.signal ? { signal: opts.signal } : {}) });
  opts.onProgress?.({ stage: 'extract', done: 1, total: 1, item: name });
  const previous = record.meta.summary;
  const notes = [...opened.notes];
  if (previous.skippedCount > 0) notes.push(`Rebuilt from the ${opened.kb.docs.length} documents of "${record.meta.title}"; the ${previous.skippedCount} inputs its first build skipped are not part of it.`);
  return {
    docs: [...opened.kb.docs],
    fields: opened.descriptor.fields,
    pages: previous.pages,
    skipped: [],
    notes,
    ...(opened.descriptor.examples.length ? { examples: opened.descriptor.examples } : {}),
    ...(opened.queries ? { queries: opened.queries } : {}),
    ...(opened.qrels ? { qrels: opened.qrels } : {}),
    origin: previous.origin,
  };
}

type Common = { signal?: AbortSignal; onProgress?: OnBuildProgress };
type Reader<K extends TabSourceKind> = (source: Extract<BuildSource, { kind: K }>, opts: SourceOptions, common: Common, fetcher: { fetch?: typeof fetch }) => Promise<SourceDocuments>;

/** How the tab reads each of its sources (a source of `BUILD_SOURCES` with `tab` and no reader here does not compile). */
export const TAB_READERS: { readonly [K in TabSourceKind]: Reader<K> } = {
  files: (source, _o, common) => extractDocuments(source.files, common),
  'hub-dataset': (source, _o, common, fetcher) =>
    hubDatasetDocuments(source.request, { hubUrl: source.access.hubUrl, token: source.access.token, ...fetcher, ...common }),
  arxiv: (source, _o, common, fetcher) => {
    const proxy = source.proxyUrl.trim();
    if (!proxy) throw new Error(NO_ARXIV_PROXY);
    // Settings checks the proxy when it is typed; a request from elsewhere meets the same rule here.
    const problem = arxivProxyProblem(proxy);
    if (problem) throw new Error(`The arXiv proxy URL ${problem}.`);
    return arxivDocuments(source.request, { endpoint: proxy, ...fetcher, ...common });
  },
  web: (source, _o, common, fetcher) => {
    const proxy = source.proxyUrl.trim();
    if (!proxy) throw new Error(NO_WEB_PROXY);
    const problem = arxivProxyProblem(proxy);
    if (problem) throw new Error(`The proxy URL ${problem}.`);
    return webDocuments(source.request, { proxyUrl: proxy, ...fetcher, ...common });
  },
  rebuild: async (source, opts, common) => {
    const record = await opts.store.get(source.name);
    if (!record) throw new Error(missingMessage(source.name));
    return rebuildDocuments(record, common);
  },
};

export async function sourceDocuments(source: BuildSource, opts: SourceOptions): Promise<SourceDocuments> {
  const common = { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) };
  const fetcher = opts.fetch ? { fetch: opts.fetch } : {};
  return (TAB_READERS[source.kind] as Reader<TabSourceKind>)(source as never, opts, common, fetcher);
}
