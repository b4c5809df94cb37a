/**
 * What the build worker is asked to do (a build, a publish) and where a build reads its documents from: contract
 * types of the knowledge-base build session (`run-build.ts`, `sources.ts`, `saved-kb.ts`), re-exported by the worker
 * API (`workers/build-api.ts`).
 */
import type { ArxivRequest } from '../data/arxiv.ts';
import type { WebRequest } from '../data/web-urls.ts';
import type { HubDatasetRequest } from '../data/hub-dataset.ts';
import type { InputFile } from '../data/source-documents.ts';
import type { BuildSettings } from '../data/local-kb-meta.ts';
import type { HubAccess } from '../hub/access.ts';
import type { TabSourceKind } from './build-sources.ts';

/** Re-exported for the worker API: the one definition is `hub/access.ts`. */
export type { HubAccess };

/** What a build reads its documents from. */
export type BuildSource =
  | { kind: 'files'; files: InputFile[] }
  | { kind: 'hub-dataset'; request: HubDatasetRequest; access: HubAccess }
  /** `proxyUrl`: the proxy the user set in Settings (the tab cannot call arXiv directly: no CORS). */
  | { kind: 'arxiv'; request: ArxivRequest; proxyUrl: string }
  /** Web pages, fetched through the same proxy as arXiv (most sites send no CORS headers). */
  | { kind: 'web'; request: WebRequest; proxyUrl: string }
  /** The documents of a knowledge base already built here, built again with other settings. */
  | { kind: 'rebuild'; name: string };

// The tab's sources are exactly the entries of BUILD_SOURCES it reads: fails to compile when either gains one.
type SameKinds = [BuildSource['kind']] extends [TabSourceKind] ? ([TabSourceKind] extends [BuildSource['kind']] ? true : false) : false;
const _sameKinds: SameKinds = true;
void _sameKinds;

export interface BuildRequest {
  /** The local knowledge base's name (`LOCAL_KB_NAME`); one of the same name is replaced only when the build succeeds. */
  name: string;
  title: string;
  description?: string;
  source: BuildSource;
  settings: BuildSettings;
}

export interface PublishRequest {
  name: string;
  /** `owner/name` of an existing Hub dataset repo. */
  repo: string;
  access: HubAccess & { token: string };
  /** A test set of this knowledge base stored in this browser (store/test-set-store.ts) to carry as its queries and qrels. */
  testSetId?: string | null;
}

/** A publish done: the repo, its commit and the index folder, as the page shows them. */
export interface PublishResult {
  repo: string;
  commit: string;
  /** The index folder in the repo (the knowledge base's name). */
  path: string;
  /** The `kb=` id that opens it for anyone: `hub:owner/name/path@commit`. */
  kbId: string;
}
