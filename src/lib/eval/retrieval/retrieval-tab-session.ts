/**
 * The Benchmark tab's retrieval benchmark as one session, for the bench worker: the BEIR folder last picked, the tab's
 * source as a run's data reference (that folder, a Hub BEIR dataset, or an artifact that carries queries and qrels:
 * a Hub artifact or one built in this browser, opened through the caller's artifact reader), the run
 * (`runRetrievalRun`, the session eval-beir runs too) and the last run, which the α simulator reads.
 */
import { beirFolderCounts, readBeirFolder, type BeirFileEntry, type BeirFolder } from '../../data/beir-folder.ts';
import { kbIdOf } from '../../data/kb-registry.ts';
import { openLocalKb } from '../../kb-build/open-local.ts';
import type { ArtifactAccess } from '../../rag/kb-open.ts';
import type { JsonValue } from '../../reports/format.ts';
import { fusionCandidates as candidatesOf, type FusionCandidates } from '../../retrieval/alpha-sim.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import type { LocalKbStore } from '../../store/local-kb-store.ts';
import type { BeirFilesReport, RetrievalBenchConfig, RetrievalBenchProgress, RetrievalBenchResult } from './retrieval-tab-config.ts';
import type { RunEnvironment } from '../ragbench/report-from-run.ts';
import type { RetrievalRowCache } from './retrieval-bench.ts';
import type { RetrievalDataRef } from './retrieval-data.ts';
import { datasetModelKbId, datasetTrainingTexts, type TrainedRef } from './run-embedder.ts';
import { openRetrievalData } from './retrieval-data.ts';
import { runRetrievalRun, serviceModels, type ModelService } from './retrieval-request.ts';
import { corpusHash, runSettings, type RetrievalRunSettings } from './retrieval-session.ts';

export interface BenchRetrievalDeps {
  artifacts: Pick<ArtifactAccess, 'hubSource' | 'openArtifact'>;
  /** Knowledge bases built in this browser. */
  localKbs: () => LocalKbStore;
  /** The row cache of runs (a rerun takes its finished rows from it). */
  cache: RetrievalRowCache | null;
  /** Where it runs (the report's environment). */
  runtime: Omit<RunEnvironment, 'models'>;
  /** The corpus-trained models of this browser (which one belongs to the dataset: run-embedder.ts); default none. */
  trained?: () => Promise<readonly TrainedRef[]>;
}

/** What the α simulator reads: the last run's knowledge base (with its dense side), queries and judgements. */
interface LastRun { kb: KnowledgeBase; queries: Map<string, string>; qrels: Map<string, Map<string, number>>; dense: boolean; candidateK: number; settings: RetrievalRunSettings }

export class BenchRetrievalSession {
  private folder: (BeirFolder & { hash: string }) | null = null;
  private last: LastRun | null = null;

  constructor(private readonly deps: BenchRetrievalDeps) {}

  /** Reads a picked BEIR folder (kept for `run`); the counts are of `split`, else of its first split. */
  async loadFolder(files: readonly BeirFileEntry[], split = 'test'): Promise<BeirFilesReport> {
    try {
      const f = await readBeirFolder(files);
      this.folder = { ...f, hash: await corpusHash(f.corpusText), corpusText: '' };
      return { ...beirFolderCounts(f, f.qrels.has(split) ? split : [...f.qrels.keys()][0]!), error: null };
    } catch (e) {
      return { documents: 0, queries: 0, judged: 0, splits: [], issues: [], error: (e as Error).message || String(e) };
    }
  }

  /** The tab's source as the run's data reference (a folder or artifact opened here). */
  private async dataRef(c: RetrievalBenchConfig, token: string | null, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalDataRef> {
    const s = c.source;
    if (s.kind === 'hub-dataset') return { kind: 'hub-dataset', dataset: s.dataset, revision: s.revision ?? null, hubUrl: s.hubUrl, token };
    if (s.kind === 'files') {
      const f = this.folder;
      if (!f) throw new Error('No BEIR folder is loaded (the page was reloaded?): pick the folder again.');
      const qrels = f.qrels.get(c.split);
      if (!qrels) throw new Error(`qrels/${c.split}.tsv is not in the folder ${f.name} (it has ${[...f.qrels.keys()].map((x) => `qrels/${x}.tsv`).join(', ')}): choose one of those splits.`);
      return { kind: 'beir-folder', name: f.name, docs: f.docs, queries: f.queries, qrels, corpusHash: f.hash };
    }
    const { artifacts } = this.deps;
    const ref = s.ref;
    const id = kbIdOf(ref);
    const onFile = (file: string, done: number, total: number) => onProgress({ phase: 'load', stage: file, done, total });
    let opened, source, hub = null;
    if (ref.kind === 'hub') {
      source = hub = await artifacts.hubSource({ repo: ref.repo, revision: ref.revision, hubUrl: s.hubUrl, token });
      opened = await artifacts.openArtifact(hub, ref.path, { onProgress: onFile });
    } else ({ opened, source } = await openLocalKb(this.deps.localKbs(), ref.name, { open: artifacts.openArtifact, onProgress: onFile }));
    const title = opened.descriptor.title || id;
    if (!opened.queries || !opened.qrels) throw new Error(`${title} carries no queries and qrels: build it from a BEIR dataset (a Hub dataset in the BEIR layout, or a BEIR folder) to benchmark it.`);
    const meta = await source.read(ref.kind === 'hub' && ref.path ? `${ref.path}/meta.json` : 'meta.json');
    return {
      kind: 'artifact', id, dataset: title, kb: opened.kb, shipped: opened.dense, queries: opened.queries, qrels: opened.qrels,
      meta: meta ? new TextDecoder().decode(meta) : null, revision: hub?.revisionSha ?? null, source: hub ? 'hub' : 'local', notes: [...opened.notes],
    };
  }

  /** The run's settings from the tab's config. */
  private settings(c: RetrievalBenchConfig): RetrievalRunSettings {
    return runSettings(c.protocol ?? 'default', { ...c.overrides, split: c.split, maxQueries: c.maxQueries, seed: c.seed, predictors: c.predictors ?? true });
  }

  /**
   * The texts a corpus embedder of this dataset trains on (run-embedder.ts `datasetTrainingTexts`: the items of the
   * knowledge base a run builds with these settings), with the dataset's name and an id for the model.
   */
  async trainingTexts(c: RetrievalBenchConfig, token: string | null, onProgress: (p: RetrievalBenchProgress) => void): Promise<{ texts: string[]; dataset: string; kbId: string; unit: 'documents' | 'chunks' }> {
    const settings = this.settings(c);
    const data = await openRetrievalData(await this.dataRef(c, token, onProgress), settings, { onProgress: (p) => { if (p.phase === 'load') onProgress(p); } });
    return { texts: datasetTrainingTexts(data.kb), dataset: data.dataset, kbId: datasetModelKbId(data), unit: data.kb.options.chunking === false ? 'documents' : 'chunks' };
  }

  /** Runs the benchmark; `token` (an hf_ token, or null) goes only to the source's Hub. */
  async run(c: RetrievalBenchConfig, token: string | null, models: ModelService | null, signal: AbortSignal, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalBenchResult> {
    if (c.modes.length === 0) throw new Error('Choose at least one mode.');
    this.last = null;
    const settings = this.settings(c);
    const pick = c.embedder ?? 'auto';
    const r = await runRetrievalRun({ data: await this.dataRef(c, token, onProgress), settings, modes: c.modes, source: JSON.parse(JSON.stringify(c.source)) as JsonValue }, {
      runtime: this.deps.runtime,
      models: serviceModels(models, { signal, pick, ...(this.deps.trained ? { trained: this.deps.trained } : {}), onProgress: (p) => { if (p.phase === 'embed') onProgress(p); } }),
      cache: this.deps.cache, signal,
      onProgress: (p) => { if (p.phase !== 'indexed') onProgress(p); },
    });
    const { run, report, data } = r;
    if (!report) throw new Error(`No mode could run: ${run.skipped.map((x) => `${x.mode}: ${x.reason}`).join('; ') || 'nothing to evaluate'}`);
    const dense = !!data.kb.dense && !!r.models.search.encoder;
    this.last = { kb: data.kb, queries: new Map(data.queries.map((q) => [q.id, q.text])), qrels: data.qrels, dense, candidateK: r.candidateK, settings };
    const embedder = r.models.embedder ? { id: r.models.embedder, corpus: r.models.embedderCorpus ?? null } : null;
    return { report, modes: run.modes, skipped: run.skipped, judged: run.judged, unjudged: run.unjudged, notes: [...r.notes, ...run.notes], simulator: dense, embedder };
  }

  /** The fusion candidates of one query of the last run (the α simulator); an error when it cannot. */
  async fusionCandidates(queryId: string, models: Pick<ModelService, 'embed'> | null): Promise<FusionCandidates> {
    const r = this.last;
    if (!r) throw new Error('Run a retrieval benchmark first: the α simulator reads the last run.');
    if (!r.dense || !models) throw new Error('The last run had no dense side (no embedder ran): train a corpus embedder on this dataset, or load an embedding model under Settings → Models, and run again.');
    const text = r.queries.get(queryId);
    if (text === undefined) throw new Error(`Query ${queryId} is not in the last run.`);
    const qvec = await models.embed([text], 'query');
    return candidatesOf(r.kb, { id: queryId, text }, qvec, r.qrels.get(queryId) ?? new Map(), r.candidateK, { calibration: r.settings.calibration, basis: r.settings.entropyBasis });
  }
}
