/**
 * The bench worker's retrieval benchmark (runRetrieval / loadBeirFiles / fusionCandidates of bench-api.ts): where the
 * BEIR dataset comes from (a Hub dataset in the BEIR layout, a knowledge-base artifact that carries queries and
 * qrels, a picked folder), the dense side and reranker from the models worker, then `runRetrievalBenchmark` (the
 * CLI's session, src/lib/eval/retrieval-bench.ts) with the IndexedDB row cache (store/retrieval-cache.ts) and its report. The last run's
 * knowledge base, queries and judgements stay here for the α simulator.
 */
import type * as Comlink from 'comlink';
import { attachArtifactDense, embedderMismatch } from '../src/lib/artifact/attach.ts';
import { openLocalKb } from '../src/lib/kb-build/open-local.ts';
import type { BeirQuery, Qrels } from '../src/lib/data/beir.ts';
import { beirFolderCounts, readBeirFolder, type BeirFolder } from '../src/lib/data/beir-folder.ts';
import { docsKey, readHubBeir } from '../src/lib/data/beir-hub.ts';
import { kbIdOf } from '../src/lib/data/kb-registry.ts';
import { fusionCandidates as candidatesOf, type FusionCandidates } from '../src/lib/eval/alpha-sim.ts';
import { beirDataKey, beirVectorKey, hubBeirDataKey, hubBeirVectorKey, artifactDataKey, artifactVectorKey, metaKeyOf } from '../src/lib/cache-keys.ts';
import { buildRunKb, corpusHash, runCandidateK, runRetrievalSession, runSettings, type RetrievalRunSettings } from '../src/lib/eval/retrieval-session.ts';
import type { SourceDocument } from '../src/lib/retrieval/document.ts';
import type { JsonValue } from '../src/lib/reports/format.ts';
import { reportEnvironment } from '../src/lib/eval/report-from-run.ts';
import type { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { MODES, type RetrievalMode } from '../src/lib/retrieval/modes.ts';
import type { SearchModels } from '../src/lib/retrieval/search.ts';
import { sha256Hex } from '../src/lib/checksum.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { IndexedDbLocalKbStore } from '../src/lib/store/local-kb-store.ts';
import { indexedDbRetrievalRowCache } from '../src/lib/store/retrieval-cache.ts';
import { artifacts } from './artifact-adapter.ts';
import type { BeirFilesReport, RetrievalBenchConfig, RetrievalBenchProgress, RetrievalBenchResult } from './bench-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';

type Models = Comlink.Remote<ModelsWorkerApi> | null;

/** A dataset ready to run: its knowledge base, queries, judgements and what identifies it. */
interface Loaded {
  kb: KnowledgeBase;
  queries: BeirQuery[];
  qrels: Qrels;
  dataset: string;
  /** Content key of the knowledge base's vectors (they are cached under it). */
  kbKey: string;
  /** Content key of the data (the run's identity: the same as eval-beir's for the same folder). */
  dataKey: string;
  data: { revision: string | null; source: string; kb: string | null };
  shipped: Awaited<ReturnType<typeof artifacts.openArtifact>>['dense'];
  notes: string[];
}

/** What the α simulator reads: the last run's knowledge base (with its dense side), queries and judgements. */
interface LastRun { kb: KnowledgeBase; queries: Map<string, string>; qrels: Qrels; dense: boolean; candidateK: number; settings: RetrievalRunSettings }

let folder: BeirFolder | null = null;
let folderHash: string | null = null;
let last: LastRun | null = null;
let localStore: IndexedDbLocalKbStore | null = null;
const localKbs = () => (localStore ??= new IndexedDbLocalKbStore());

export async function loadBeirFiles(files: Array<{ path: string; file: File }>, split = 'test'): Promise<BeirFilesReport> {
  try {
    const f = await readBeirFolder(files.map((x) => ({ path: x.path, read: () => x.file.text() })));
    folder = f;
    folderHash = await corpusHash(f.corpusText);
    f.corpusText = '';
    const c = beirFolderCounts(f, f.qrels.has(split) ? split : [...f.qrels.keys()][0]!);
    return { ...c, error: null };
  } catch (e) {
    return { documents: 0, queries: 0, judged: 0, splits: [], issues: [], error: (e as Error).message || String(e) };
  }
}


async function loadSource(c: RetrievalBenchConfig, settings: RetrievalRunSettings, token: string | null, signal: AbortSignal, onProgress: (p: RetrievalBenchProgress) => void): Promise<Loaded> {
  const docKb = (docs: readonly SourceDocument[]) => buildRunKb(docs, settings);
  const s = c.source;
  const stage = (name: string, done: number, total: number) => onProgress({ phase: 'load', stage: name, done, total });
  if (s.kind === 'files') {
    const f = folder;
    if (!f || !folderHash) throw new Error('No BEIR folder is loaded (the page was reloaded?): pick the folder again.');
    const qrels = f.qrels.get(c.split);
    if (!qrels) throw new Error(`qrels/${c.split}.tsv is not in the folder ${f.name} (it has ${[...f.qrels.keys()].map((x) => `qrels/${x}.tsv`).join(', ')}): choose one of those splits.`);
    stage('index', 0, 1);
    const kb = docKb(f.docs);
    stage('index', 1, 1);
    // The keys eval-beir uses for a BEIR folder (so both speak of the same vectors and the same run).
    return { kb, queries: f.queries, qrels, dataset: f.name, kbKey: beirVectorKey(folderHash, kb.options.chunking), dataKey: beirDataKey(folderHash), data: { revision: null, source: 'local', kb: null }, shipped: null, notes: [] };
  }
  if (s.kind === 'hub-dataset') {
    // The token goes only to the Hub of Settings (hub-dataset.ts sends it with authorizedFetch to hubUrl alone).
    const hub = await readHubBeir({ dataset: s.dataset, revision: s.revision ?? null }, { hubUrl: s.hubUrl, token, signal }, stage);
    stage('index', 0, 1);
    const kb = docKb(hub.docs);
    stage('index', 1, 1);
    return {
      kb, queries: hub.queries, qrels: hub.qrels, dataset: hub.dataset, kbKey: hubBeirVectorKey(hub.dataset, hub.docsKey, kb.options.chunking), dataKey: hubBeirDataKey(hub.docsKey),
      data: { revision: hub.revision, source: 'hub', kb: null }, shipped: null, notes: hub.notes,
    };
  }
  const ref = s.ref;
  const id = kbIdOf(ref);
  const fileProgress = (file: string, done: number, total: number) => stage(file, done, total);
  let opened, source, revision: string | null = null;
  if (ref.kind === 'local') {
    const local = await openLocalKb(localKbs(), ref.name, { open: artifacts.openArtifact, onProgress: fileProgress });
    ({ opened, source } = local);
  } else {
    const hub = await artifacts.hubSource({ repo: ref.repo, revision: ref.revision, hubUrl: s.hubUrl, token });
    opened = await artifacts.openArtifact(hub, ref.path, { onProgress: fileProgress });
    source = hub;
    revision = hub.revisionSha;
  }
  const title = opened.descriptor.title || id;
  if (!opened.queries || !opened.qrels) throw new Error(`${title} carries no queries and qrels: build it from a BEIR dataset (a Hub dataset in the BEIR layout, or a BEIR folder) to benchmark it.`);
  const path = ref.kind === 'hub' ? ref.path : '';
  const meta = await source.read(path ? `${path}/meta.json` : 'meta.json');
  const metaKey = meta ? metaKeyOf(await sha256Hex(meta)) : await docsKey([]);
  return {
    kb: opened.kb, queries: opened.queries, qrels: opened.qrels, dataset: title, kbKey: artifactVectorKey(id, metaKey), dataKey: artifactDataKey(metaKey),
    data: { revision, source: ref.kind === 'hub' ? 'hub' : 'local', kb: id }, shipped: opened.dense, notes: [...opened.notes],
  };
}

/** The models the chosen modes need, from the models worker; the dense side attached (shipped vectors or embedded). */
async function modelsFor(l: Loaded, modes: readonly RetrievalMode[], models: Models, signal: AbortSignal, onProgress: (p: RetrievalBenchProgress) => void): Promise<{ search: SearchModels; ids: Record<string, string | null>; notes: string[] }> {
  const have = models ? await models.loaded() : [];
  const search: SearchModels = {};
  const ids: Record<string, string | null> = { embedder: null, reranker: null };
  const notes: string[] = [];
  const m = models;
  const info = have.find((x) => x.task === 'embedder');
  if (m && info && info.dim !== null && modes.some((x) => MODES[x].needsDense)) {
    const spec = { spec: info.spec, dim: info.dim };
    if (l.shipped && !embedderMismatch(l.shipped, spec)) {
      onProgress({ phase: 'embed', done: 0, total: 1 });
      await attachArtifactDense(l.kb, l.shipped, spec);
      onProgress({ phase: 'embed', done: 1, total: 1 });
      notes.push(`the vectors shipped with the knowledge base (${info.spec.id})`);
    } else {
      if (l.shipped) notes.push(`${embedderMismatch(l.shipped, spec)}: the documents were embedded here`);
      const setup = await attachDense(l.kb, { spec: info.spec, dim: info.dim, embed: (texts, kind) => m.embed([...texts], kind) }, {
        kbKey: l.kbKey, signal, onProgress: (stage, done, total) => { if (stage === 'embed') onProgress({ phase: 'embed', done, total }); },
      });
      if (setup.cacheNote) notes.push(setup.cacheNote);
    }
    search.encoder = { embedQuery: (q) => m.embed([q], 'query') };
    ids['embedder'] = `${info.spec.id}@${info.spec.dtype}`;
  }
  const ce = have.find((x) => x.task === 'cross-encoder');
  if (m && ce && modes.some((x) => MODES[x].needsReranker)) {
    search.reranker = { rerank: (q, ps) => m.rerank(q, [...ps]) };
    ids['reranker'] = `${ce.spec.id}@${ce.spec.dtype}`;
  }
  return { search, ids, notes };
}

/** The run's settings as the report keeps them: the config without the Hub URL's token (it never holds one). */
const sourceConfig = (c: RetrievalBenchConfig): JsonValue => JSON.parse(JSON.stringify(c.source)) as JsonValue;

export async function runRetrieval(c: RetrievalBenchConfig, token: string | null, models: Models, signal: AbortSignal, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalBenchResult> {
  if (c.modes.length === 0) throw new Error('Choose at least one mode.');
  last = null;
  const settings = runSettings(c.protocol ?? 'default', { ...c.overrides, split: c.split, maxQueries: c.maxQueries, seed: c.seed, predictors: c.predictors ?? true });
  const l = await loadSource(c, settings, token, signal, onProgress);
  const m = await modelsFor(l, c.modes, models, signal, onProgress);
  const have = models ? await models.loaded() : [];
  const environment = reportEnvironment({
    runtime: 'browser', agent: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown',
    models: have.filter((x) => (x.task === 'embedder' && m.ids['embedder']) || (x.task === 'cross-encoder' && m.ids['reranker']))
      .map((x) => ({ task: x.task, id: x.spec.id, dtype: x.spec.dtype, device: x.spec.device })),
  }, null, null);
  const { run, report } = await runRetrievalSession({
    kb: l.kb, queries: l.queries, qrels: l.qrels, settings, modes: c.modes, models: m.search, source: sourceConfig(c),
    identity: { dataKey: l.dataKey, dataset: l.dataset, kb: l.data.kb, embedder: m.ids['embedder'] ?? null, reranker: m.ids['reranker'] ?? null },
    data: { dataset: l.dataset, revision: l.data.revision, subsets: [c.split], source: l.data.source, kb: l.data.kb },
    environment, runNotes: [...l.notes, ...m.notes], cache: indexedDbRetrievalRowCache, signal,
    onProgress: (p) => onProgress({ phase: 'run', ...p }),
  });
  if (!report) throw new Error(`No mode could run: ${run.skipped.map((x) => `${x.mode}: ${x.reason}`).join('; ') || 'nothing to evaluate'}`);
  const dense = !!l.kb.dense && !!m.search.encoder;
  last = { kb: l.kb, queries: new Map(l.queries.map((q) => [q.id, q.text])), qrels: l.qrels, dense, candidateK: runCandidateK(settings, l.kb), settings };
  return { report, modes: run.modes, skipped: run.skipped, judged: run.judged, unjudged: run.unjudged, notes: [...l.notes, ...m.notes, ...run.notes], simulator: dense };
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
