/**
 * One build as the build worker runs it: the request checked → the source's documents → the build session
 * (`buildLocalKb`) → one put into the local store. Nothing is written before that final put, so a build that fails
 * or is cancelled (the page terminates the worker) leaves every saved knowledge base as it was.
 */
import type { BuildRequest } from './requests.ts';
import type { LoadedModelLike } from '../models/readiness.ts';
import type { TextEmbedder } from '../models/types.ts';
import { checkTitle, type LocalKbStore } from '../store/local-kb-store.ts';
import { buildLocalKb, BuildError } from './build-kb.ts';
import { checkBuildSettings, firstIssue, LocalKbNameSchema } from './schemas.ts';
import { sourceDocuments } from './sources.ts';
import type { BuildStage, OnBuildProgress } from '../data/source-documents.ts';
import type { BuildSummary, LocalKbMeta } from '../data/local-kb-meta.ts';

export const NO_EMBEDDER = 'load an embedding model first (Search tab → models)';
import { MAX_DESCRIPTION } from '../data/local-kb-meta.ts';

export { MAX_DESCRIPTION };
const SOURCE_KINDS = new Set(['files', 'hub-dataset', 'arxiv', 'web', 'rebuild']);

/** What the models worker offers the build (its Comlink API, or a stand-in in tests). */
export interface ModelsForBuild {
  loaded(): LoadedModelLike[] | Promise<LoadedModelLike[]>;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array>;
}

/** The embedder the models worker has loaded, as a TextEmbedder; none loaded → {@link NO_EMBEDDER}. */
export async function embedderFromModels(models: ModelsForBuild | null): Promise<TextEmbedder> {
  const info = models ? (await models.loaded()).find((m) => m.task === 'embedder') : undefined;
  if (!models || !info || info.dim === null) throw new BuildError(NO_EMBEDDER);
  return { spec: info.spec, dim: info.dim, embed: (texts, kind) => models.embed([...texts], kind) };
}

/** A build request from the page, checked before any work; a bad field is refused in words. */
export function checkBuildRequest(request: BuildRequest): BuildRequest {
  const nameIssue = firstIssue(LocalKbNameSchema, request?.name);
  if (nameIssue) throw new BuildError(`"${String(request?.name)}" cannot name a knowledge base: ${nameIssue}.`);
  const title = checkTitle(typeof request.title === 'string' ? request.title : '');
  const description = request.description ?? '';
  if (typeof description !== 'string' || description.length > MAX_DESCRIPTION) throw new BuildError(`A description can have at most ${MAX_DESCRIPTION} characters.`);
  if (!SOURCE_KINDS.has(request.source?.kind)) throw new BuildError(`Unknown build source "${String(request.source?.kind)}".`);
  return { ...request, title, description, settings: checkBuildSettings(request.settings) };
}

/** Time per stage from the progress events of one step (time between two events goes to the earlier's stage). */
function stageClock(onProgress?: OnBuildProgress) {
  const ms: Partial<Record<BuildStage, number>> = {};
  let stage: BuildStage | null = null;
  let since = performance.now();
  const close = () => {
    const now = performance.now();
    if (stage) ms[stage] = (ms[stage] ?? 0) + (now - since);
    since = now;
  };
  return {
    ms,
    progress: (p: Parameters<OnBuildProgress>[0]) => {
      if (p.stage !== stage) { close(); stage = p.stage; }
      onProgress?.(p);
    },
    stop: (fallback: BuildStage) => { if (!stage) stage = fallback; close(); stage = null; },
  };
}

export interface RunBuildDeps {
  store: LocalKbStore;
  /** The loaded embedder (asked only when the settings embed). */
  embedder?: () => Promise<TextEmbedder>;
  onProgress?: OnBuildProgress;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export async function runBuild(request: BuildRequest, deps: RunBuildDeps): Promise<BuildSummary> {
  const t0 = performance.now();
  const req = checkBuildRequest(request);
  // The embedder is asked for first: a missing one should not cost the user an extraction.
  const embedder = req.settings.embed ? await (deps.embedder ?? (() => embedderFromModels(null)))() : null;
  const clock = stageClock(deps.onProgress);
  const source = await sourceDocuments(req.source, {
    store: deps.store, onProgress: clock.progress,
    ...(deps.signal ? { signal: deps.signal } : {}), ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  clock.stop(req.source.kind === 'files' || req.source.kind === 'rebuild' ? 'extract' : 'download');
  deps.signal?.throwIfAborted();

  const built = await buildLocalKb(source, {
    name: req.name, title: req.title, settings: req.settings, embedder, priorStageMs: clock.ms,
    ...(req.description ? { description: req.description } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}), ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
  });

  const t1 = performance.now();
  deps.onProgress?.({ stage: 'save', done: 1, total: 2, item: 'browser storage' });
  // Only the list entry is needed (its creation date), not the previous version's files.
  const previous = (await deps.store.list().catch(() => [])).find((m) => m.name === req.name) ?? null;
  const now = new Date().toISOString();
  const summary = built.summary;
  const meta: LocalKbMeta = {
    name: req.name, title: req.title, description: req.description ?? '',
    createdAt: previous?.createdAt ?? now, updatedAt: now, settings: req.settings, summary,
  };
  deps.signal?.throwIfAborted();
  await deps.store.put({ meta, entry: built.entry, files: built.files });
  deps.onProgress?.({ stage: 'save', done: 2, total: 2, item: 'browser storage' });
  const saveMs = performance.now() - t1;
  return {
    ...summary,
    stageMs: { ...summary.stageMs, save: (summary.stageMs.save ?? 0) + saveMs },
    totalMs: performance.now() - t0,
  };
}
