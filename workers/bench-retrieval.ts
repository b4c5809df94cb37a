/**
 * The bench worker's retrieval benchmark (runRetrieval / loadBeirFiles / fusionCandidates of bench-api.ts): the data
 * reference of the tab's source (a picked BEIR folder, a Hub BEIR dataset, an artifact that carries queries and
 * qrels), the models from the models worker, and `runRetrievalRun` (src/lib/eval/retrieval-run.ts, the session
 * eval-beir runs too) with the IndexedDB row cache. The last run stays here for the α simulator.
 */
import type * as Comlink from 'comlink';
import { beirFolderCounts, readBeirFolder, type BeirFolder } from '../src/lib/data/beir-folder.ts';
import { kbIdOf } from '../src/lib/data/kb-registry.ts';
import { fusionCandidates as candidatesOf, type FusionCandidates } from '../src/lib/retrieval/alpha-sim.ts';
import type { RetrievalDataRef } from '../src/lib/eval/retrieval-data.ts';
import { runRetrievalRun, serviceModels } from '../src/lib/eval/retrieval-run.ts';
import { corpusHash, runSettings, type RetrievalRunSettings } from '../src/lib/eval/retrieval-session.ts';
import { openLocalKb } from '../src/lib/kb-build/open-local.ts';
import type { JsonValue } from '../src/lib/reports/format.ts';
import type { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { IndexedDbLocalKbStore } from '../src/lib/store/local-kb-store.ts';
import { indexedDbRetrievalRowCache } from '../src/lib/eval/retrieval-cache.ts';
import { artifacts } from './artifact-adapter.ts';
import type { BeirFilesReport, RetrievalBenchConfig, RetrievalBenchProgress, RetrievalBenchResult } from './bench-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';

type Models = Comlink.Remote<ModelsWorkerApi> | null;

/** What the α simulator reads: the last run's knowledge base (with its dense side), queries and judgements. */
interface LastRun { kb: KnowledgeBase; queries: Map<string, string>; qrels: Map<string, Map<string, number>>; dense: boolean; candidateK: number; settings: RetrievalRunSettings }

let folder: (BeirFolder & { hash: string }) | null = null;
let last: LastRun | null = null;
let localStore: IndexedDbLocalKbStore | null = null;

export async function loadBeirFiles(files: Array<{ path: string; file: File }>, split = 'test'): Promise<BeirFilesReport> {
  try {
    const f = await readBeirFolder(files.map((x) => ({ path: x.path, read: () => x.file.text() })));
    folder = { ...f, hash: await corpusHash(f.corpusText), corpusText: '' };
    return { ...beirFolderCounts(f, f.qrels.has(split) ? split : [...f.qrels.keys()][0]!), error: null };
  } catch (e) {
    return { documents: 0, queries: 0, judged: 0, splits: [], issues: [], error: (e as Error).message || String(e) };
  }
}

/** The tab's source as the session's data reference (a folder or artifact opened here). */
async function dataRef(c: RetrievalBenchConfig, token: string | null, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalDataRef> {
  const s = c.source;
  if (s.kind === 'hub-dataset') return { kind: 'hub-dataset', dataset: s.dataset, revision: s.revision ?? null, hubUrl: s.hubUrl, token };
  if (s.kind === 'files') {
    const f = folder;
    if (!f) throw new Error('No BEIR folder is loaded (the page was reloaded?): pick the folder again.');
    const qrels = f.qrels.get(c.split);
    if (!qrels) throw new Error(`qrels/${c.split}.tsv is not in the folder ${f.name} (it has ${[...f.qrels.keys()].map((x) => `qrels/${x}.tsv`).join(', ')}): choose one of those splits.`);
    return { kind: 'beir-folder', name: f.name, docs: f.docs, queries: f.queries, qrels, corpusHash: f.hash };
  }
  const ref = s.ref;
  const id = kbIdOf(ref);
  const onFile = (file: string, done: number, total: number) => onProgress({ phase: 'load', stage: file, done, total });
  let opened, source, hub = null;
  if (ref.kind === 'hub') {
    source = hub = await artifacts.hubSource({ repo: ref.repo, revision: ref.revision, hubUrl: s.hubUrl, token });
    opened = await artifacts.openArtifact(hub, ref.path, { onProgress: onFile });
  } else ({ opened, source } = await openLocalKb((localStore ??= new IndexedDbLocalKbStore()), ref.name, { open: artifacts.openArtifact, onProgress: onFile }));
  const title = opened.descriptor.title || id;
  if (!opened.queries || !opened.qrels) throw new Error(`${title} carries no queries and qrels: build it from a BEIR dataset (a Hub dataset in the BEIR layout, or a BEIR folder) to benchmark it.`);
  const meta = await source.read(ref.kind === 'hub' && ref.path ? `${ref.path}/meta.json` : 'meta.json');
  return {
    kind: 'artifact', id, dataset: title, kb: opened.kb, shipped: opened.dense, queries: opened.queries, qrels: opened.qrels,
    meta: meta ? new TextDecoder().decode(meta) : null, revision: hub?.revisionSha ?? null, source: hub ? 'hub' : 'local', notes: [...opened.notes],
  };
}

export async function runRetrieval(c: RetrievalBenchConfig, token: string | null, models: Models, signal: AbortSignal, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalBenchResult> {
  if (c.modes.length === 0) throw new Error('Choose at least one mode.');
  last = null;
  const settings = runSettings(c.protocol ?? 'default', { ...c.overrides, split: c.split, maxQueries: c.maxQueries, seed: c.seed, predictors: c.predictors ?? true });
  const r = await runRetrievalRun({ data: await dataRef(c, token, onProgress), settings, modes: c.modes, source: JSON.parse(JSON.stringify(c.source)) as JsonValue }, {
    runtime: { runtime: 'browser', agent: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown' },
    models: serviceModels(models, { signal, onProgress: (p) => { if (p.phase === 'embed') onProgress(p); } }), cache: indexedDbRetrievalRowCache, signal,
    onProgress: (p) => { if (p.phase !== 'indexed') onProgress(p); },
  });
  const { run, report, data } = r;
  if (!report) throw new Error(`No mode could run: ${run.skipped.map((x) => `${x.mode}: ${x.reason}`).join('; ') || 'nothing to evaluate'}`);
  const dense = !!data.kb.dense && !!r.models.search.encoder;
  last = { kb: data.kb, queries: new Map(data.queries.map((q) => [q.id, q.text])), qrels: data.qrels, dense, candidateK: r.candidateK, settings };
  return { report, modes: run.modes, skipped: run.skipped, judged: run.judged, unjudged: run.unjudged, notes: [...r.notes, ...run.notes], simulator: dense };
}

export async function fusionCandidates(queryId: string, models: Models): Promise<FusionCandidates> {
  const r = last;
  if (!r) throw new Error('Run a retrieval benchmark first: the α simulator reads the last run.');
  if (!r.dense || !models) throw new Error('The last run had no dense side (no embedding model was loaded): load one under Settings → Models and run again.');
  const text = r.queries.get(queryId);
  if (text === undefined) throw new Error(`Query ${queryId} is not in the last run.`);
  const qvec = await models.embed([text], 'query');
  return candidatesOf(r.kb, { id: queryId, text }, qvec, r.qrels.get(queryId) ?? new Map(), r.candidateK, { calibration: r.settings.calibration, basis: r.settings.entropyBasis });
}
