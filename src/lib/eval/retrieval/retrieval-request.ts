/**
 * One retrieval run, request → result: the data opened (retrieval-data.ts: its knowledge base and content keys), the
 * models the modes need loaded by the caller (the tab's models worker, the CLI's model folder) and the dense side
 * attached, the environment, then `runRetrievalSession` (config, config hash, the per-query loop, the report). The
 * Benchmark tab's bench worker and `rag-lab eval-beir` both run this, so the same run gets the same identity, config
 * hash and rows from either.
 */
import { attachArtifactDense, embedderMismatch } from '../../artifact/attach.ts';
import type { JsonValue } from '../../reports/format.ts';
import { remainingMs } from '../core/eta.ts';
import type { EmbedProgress } from './retrieval-tab-config.ts';
import { reportEnvironment, type RunEnvironment } from '../ragbench/report-from-run.ts';
import { MODE_IDS, MODES, type RetrievalMode } from '../../retrieval/modes.ts';
import type { SearchModels } from '../../retrieval/search.ts';
import type { ModelSpec, TextEmbedder } from '../../models/types.ts';
import { attachDense } from '../../store/dense-loader.ts';
import type { RetrievalProgress, RetrievalRowCache } from './retrieval-bench.ts';
import { openRetrievalData, type OpenDataOptions, type RetrievalData, type RetrievalDataProgress, type RetrievalDataRef } from './retrieval-data.ts';
import { runCandidateK, runRetrievalSession, type RetrievalRunSettings, type RetrievalSession } from './retrieval-session.ts';
import { modelKey, namedRunModels, runModelInfo, withCorpus, type RunModelInfo } from '../score/run-models.ts';
import { chooseRunEmbedder, corpusText, datasetCorpusHash, type EmbedderCorpus, type EmbedderPick, type TrainedRef } from './run-embedder.ts';

export interface RetrievalRunRequest {
  data: RetrievalDataRef;
  settings: RetrievalRunSettings;
  modes: readonly RetrievalMode[];
  /** Where the data came from, as the report's config.source records it (never a token); a function of the opened data. */
  source: JsonValue | ((data: RetrievalData) => JsonValue);
}

/** The models a run has: what searches, their ids (`id@dtype`, part of the config hash) and what the report lists. */
export interface RunModels {
  search: SearchModels;
  embedder: string | null;
  reranker: string | null;
  loaded: RunModelInfo[];
  /** What the embedder was trained on (run-embedder.ts); null or absent for a pretrained one. */
  embedderCorpus?: EmbedderCorpus | null;
  /** Modes that cannot run (their model did not load), with the reason. */
  unavailable?: ReadonlyArray<{ mode: RetrievalMode; reason: string }>;
  /** What the report's notes say about the models and the dense side. */
  notes?: string[];
}

export type RetrievalRunProgress = RetrievalDataProgress | EmbedProgress | ({ phase: 'run' } & RetrievalProgress);

export interface RetrievalRunDeps {
  /** Where it runs (the report's environment). */
  runtime: Omit<RunEnvironment, 'models'>;
  /** The models the modes need (`need`), for the opened data; the knowledge base given its dense side. */
  models(data: RetrievalData, need: { dense: boolean; reranker: boolean }): Promise<RunModels>;
  check?: OpenDataOptions['check'];
  cache?: RetrievalRowCache | null;
  runLines?: string[];
  onProgress?: (p: RetrievalRunProgress) => void;
  signal?: AbortSignal;
}

export interface RetrievalRunResult extends RetrievalSession {
  data: RetrievalData;
  models: RunModels;
  /** Candidates per retriever (the α simulator reads the same). */
  candidateK: number;
  /** The data's and the models' notes (the report's first run notes). */
  notes: string[];
}

/** Which models the modes need. */
export const modelsNeeded = (modes: readonly RetrievalMode[]) => ({ dense: modes.some((m) => MODES[m].needsDense), reranker: modes.some((m) => MODES[m].needsReranker) });

/** The modes that cannot run because a model they need did not load (`failed`: why), with the reason. */
export function unavailableModes(modes: readonly RetrievalMode[], failed: { dense?: string | null; reranker?: string | null }): Array<{ mode: RetrievalMode; reason: string }> {
  return modes.flatMap((mode) => {
    const reason = MODES[mode].needsDense && failed.dense ? `the embedding model could not load (${failed.dense})`
      : MODES[mode].needsReranker && failed.reranker ? `the cross-encoder could not load (${failed.reranker})` : null;
    return reason ? [{ mode, reason }] : [];
  });
}

/** The models named by id (default: the registry's) and dtype, as a run's config and environment name them. */
export function namedModels(ids: { embedder?: string | undefined; reranker?: string | undefined; dtype: string }, need: { dense: boolean; reranker: boolean }, device: string): Pick<RunModels, 'embedder' | 'reranker' | 'loaded'> {
  const { embedder, reranker, loaded } = namedRunModels(ids, { embedder: need.dense, reranker: need.reranker }, device);
  return { embedder, reranker, loaded };
}

export async function runRetrievalRun(req: RetrievalRunRequest, deps: RetrievalRunDeps): Promise<RetrievalRunResult> {
  const { settings, modes } = req;
  const data = await openRetrievalData(req.data, settings, {
    ...(deps.signal ? { signal: deps.signal } : {}), ...(deps.onProgress ? { onProgress: deps.onProgress } : {}), ...(deps.check ? { check: deps.check } : {}),
  });
  const models = await deps.models(data, modelsNeeded(modes));
  const notes = [...data.notes, ...(models.notes ?? [])];
  const session = await runRetrievalSession({
    kb: data.kb, queries: data.queries, qrels: data.qrels, settings, modes, models: models.search, source: typeof req.source === 'function' ? req.source(data) : req.source,
    ...(models.unavailable ? { unavailable: models.unavailable.filter((u) => modes.includes(u.mode)) } : {}),
    identity: { dataKey: data.dataKey, dataset: data.dataset, kb: data.kbId, embedder: models.embedder, reranker: models.reranker, embedderCorpus: models.embedderCorpus ?? null },
    data: { dataset: data.dataset, revision: data.revision, subsets: [settings.split], source: data.source, kb: data.kbId },
    environment: reportEnvironment({ ...deps.runtime, models: models.loaded.map((m) => (m.task === 'embedder' ? withCorpus(m, models.embedderCorpus ?? null) : m)) }, null, null),
    runNotes: notes,
    ...(deps.cache !== undefined ? { cache: deps.cache } : {}), ...(deps.runLines ? { runLines: deps.runLines } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.onProgress ? { onProgress: (p: RetrievalProgress) => deps.onProgress!({ phase: 'run', ...p }) } : {}),
  });
  return { ...session, data, models, candidateK: runCandidateK(settings, data.kb), notes };
}

/**
 * The tab's dense side: the artifact's shipped vectors when `embedder` made them, else the documents embedded (or
 * read from the vector cache) under the data's vector key. Returns the notes the report keeps.
 */
export async function attachRunDense(
  data: RetrievalData, embedder: TextEmbedder, opts: { signal?: AbortSignal; onProgress?: (p: RetrievalRunProgress) => void } = {},
): Promise<string[]> {
  const unit = data.kb.options.chunking === false ? 'documents' : 'chunks';
  const t0 = Date.now();
  // The ETA from the embedding's own pace (eval/core/eta.ts): the time so far over the items done.
  const progress = (done: number, total: number) => opts.onProgress?.({ phase: 'embed', done, total, unit, etaMs: remainingMs(Date.now() - t0, done, total - done) });
  if (data.shipped && !embedderMismatch(data.shipped, embedder)) {
    progress(0, 1);
    await attachArtifactDense(data.kb, data.shipped, embedder);
    progress(1, 1);
    return [`the vectors shipped with the knowledge base (${embedder.spec.id})`];
  }
  const notes = data.shipped ? [`${embedderMismatch(data.shipped, embedder)}: the documents were embedded here`] : [];
  const setup = await attachDense(data.kb, embedder, {
    kbKey: data.vectorKey, ...(opts.signal ? { signal: opts.signal } : {}), onProgress: (stage, done, total) => { if (stage === 'embed') progress(done, total); },
  });
  if (setup.cacheNote) notes.push(setup.cacheNote);
  return notes;
}

/** A service that holds loaded models (the tab's models worker): which are loaded, their embed and rerank, and loading a trained embedder. */
export interface ModelService {
  loaded(): Promise<ReadonlyArray<{ task: string; spec: ModelSpec; dim: number | null }>>;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array>;
  rerank(query: string, passages: string[]): Promise<number[]>;
  /** Loads a corpus-trained embedder (the run's dataset's own, chooseRunEmbedder); absent: none is loaded. */
  loadEmbedder?(spec: ModelSpec): Promise<unknown>;
}

export interface ServiceModelsOptions {
  signal?: AbortSignal;
  onProgress?: (p: RetrievalRunProgress) => void;
  /** The embedder asked for: 'auto' (default) or one picked by id (run-embedder.ts). */
  pick?: EmbedderPick;
  /** The corpus-trained models of this browser (the trained-model store). */
  trained?: () => Promise<readonly TrainedRef[]>;
}

/**
 * The run's models from a model service: its embedder (chooseRunEmbedder: never one trained on another corpus unless
 * picked; the dense side attached) and cross-encoder when the modes need them; the dense modes unavailable, with the
 * reason, when no embedder may run.
 */
export function serviceModels(m: ModelService | null, opts: ServiceModelsOptions = {}): RetrievalRunDeps['models'] {
  return async (data, need) => {
    let have = m ? await m.loaded() : [];
    const out: RunModels = { search: {}, embedder: null, reranker: null, loaded: [], notes: [] };
    let info = have.find((x) => x.task === 'embedder');
    if (m && need.dense) {
      const datasetHash = await datasetCorpusHash(data.kb);
      const choice = chooseRunEmbedder({ loaded: info?.spec.id ?? null, trained: opts.trained ? await opts.trained() : [], datasetHash, pick: opts.pick ?? 'auto' });
      if (choice.kind === 'none') {
        info = undefined;
        out.unavailable = [...MODE_IDS].filter((x) => MODES[x].needsDense).map((mode) => ({ mode, reason: choice.reason }));
      } else {
        if (choice.kind === 'load') {
          if (!m.loadEmbedder) throw new Error(`${choice.id} cannot be loaded here`);
          await m.loadEmbedder({ id: choice.id, dtype: 'q8', device: 'wasm' });
          have = await m.loaded();
          info = have.find((x) => x.task === 'embedder' && x.spec.id === choice.id);
        }
        out.embedderCorpus = choice.corpus;
        const trained = corpusText(choice.corpus);
        if (info && trained) out.notes!.push(`the dense modes use ${info.spec.id}, ${trained}${choice.corpus && !choice.corpus.thisDataset ? ' (chosen explicitly)' : ''}`);
      }
    }
    const ce = have.find((x) => x.task === 'cross-encoder');
    if (m && info && info.dim !== null && need.dense) {
      out.notes!.push(...await attachRunDense(data, { spec: info.spec, dim: info.dim, embed: (texts, kind) => m.embed([...texts], kind) }, opts));
      out.search.encoder = { embedQuery: (q) => m.embed([q], 'query') };
      out.embedder = modelKey(info.spec);
    }
    if (m && ce && need.reranker) {
      out.search.reranker = { rerank: (q, ps) => m.rerank(q, [...ps]) };
      out.reranker = modelKey(ce.spec);
    }
    out.loaded = have.filter((x) => (x.task === 'embedder' && out.embedder && modelKey(x.spec) === out.embedder) || (x.task === 'cross-encoder' && out.reranker))
      .map((x) => runModelInfo(x.task, x.spec));
    return out;
  };
}
