/**
 * The Tune panel's session (one per search worker, beside the Search tab's session, on its open knowledge base and
 * models): the knowledge base's test sets (stored with their provenance; written by the user's LLM, imported from a
 * file, or pseudo-queries), and a tune on one of them (`runTuneSession`, the session `rag-lab tune` runs), with the
 * winner as Search settings to adopt and their diff from the current ones. One tune at a time; Cancel stops it; its
 * rows go through the retrieval row cache, so a tune run again after a reload resumes where it stopped.
 */
import { priceFor } from '../eval/core/cost.ts';
import { remainingMs } from '../eval/core/eta.ts';
import type { RetrievalRowCache } from '../eval/retrieval/retrieval-bench.ts';
import { runCandidateK, runSettings } from '../eval/retrieval/retrieval-session.ts';
import { modelKey, runModelInfo } from '../eval/score/run-models.ts';
import { corpusLookup, type TrainedRef } from '../eval/retrieval/run-embedder.ts';
import { reportEnvironment, type RunEnvironment } from '../eval/ragbench/report-from-run.ts';
import type { JsonValue } from '../reports/format.ts';
import { jsonOf, tuneReport } from './tune-report.ts';
import { createProvider } from '../llm/registry.ts';
import { redactSecrets } from '../llm/redact.ts';
import type { LoadedModel } from '../models/model-contract.ts';
import type { KbInfo } from '../rag/kb-contract.ts';
import { withSearchBm25 } from '../retrieval/bm25-variant.ts';
import { MODE_IDS } from '../retrieval/modes.ts';
import type { SearchModels } from '../retrieval/search.ts';
import { searchOfRunConfig } from '../settings/run-config-file.ts';
import { SEARCH_SETTINGS, type SearchSettings } from '../settings/search.ts';
import { indexedDbReplyStore, indexedDbTestSetStore, type ReplyStore, type StoredTestSet, type TestSetStore } from '../store/test-set-store.ts';
import { indexedDbRetrievalRowCache } from '../eval/retrieval/retrieval-cache.ts';
import { ownIndexKind } from './index-variants.ts';
import { tabEmbedderSpecs, tabEmbedders } from './tune-tab-embedders.ts';
import { loadModel } from '../models/model-session.ts';
import { IndexedDbTrainedModelStore } from '../store/trained-models.ts';
import { spaceFromFlags } from './space.ts';
import { estimateLlmTestSet, sampleTestSetChunks } from './llm-test-set.ts';
import { TEST_SET_LIMITS } from './test-set-file.ts';
import { makeTestSet, testSetBeirFiles, type MadeTestSet } from './test-set-make.ts';
import { runTuneSession, TuneError, type TuneProgress, type TuneResult, type TuneSessionInput } from './tune-session.ts';
import { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { ANALYZER_OPTIONS, analyzerOf } from '../eval/retrieval/retrieval-session.ts';
import { DEFAULT_CHUNKING } from '../retrieval/chunk.ts';
import { attachKbVectors } from '../rag/kb-vectors.ts';
import type { ModelSpec, TextEmbedder } from '../models/types.ts';
import { TAB_LIMITS, type TestSetSummary, type TuneTabProgress, type TuneTabRequest, type TuneTabResult, type WriteTestSetRequest, type AdoptChange } from './tune-tab-types.ts';

export interface TuneContext { kb: KnowledgeBase; info: KbInfo; models: SearchModels; embedder: ModelSpec | null; reranker: ModelSpec | null; passages?: TextEmbedder | null }

export interface TuneTabDeps {
  /** The Search tab's open knowledge base and the search models of `loaded` (KbSession.searchContext). */
  context(loaded: LoadedModel[]): TuneContext;
  store: TestSetStore;
  replies: ReplyStore;
  cache: RetrievalRowCache | null;
  /** Where it runs (the tune report's environment). */
  runtime: Omit<RunEnvironment, 'models'>;
  /** This browser's corpus-trained models (what each was trained on); absent: none. */
  trained?: () => Promise<readonly TrainedRef[]>;
  /** Loads an other embedder for one tune (TuneTabRequest.embedders); absent: none can be. */
  loadEmbedder?: (spec: ModelSpec) => Promise<TextEmbedder>;
}


const summaryOf = (s: StoredTestSet, info: KbInfo): TestSetSummary => ({
  id: s.id, label: s.label, kind: s.kind, queries: s.queries.length, provenance: s.provenance, notes: s.notes, savedAt: s.savedAt,
  stale: s.corpusHash !== (info.corpusHash ?? ''),
});
const checkCount = (n: number, max: number, what: string) => {
  if (!(Number.isInteger(n) && n >= 1 && n <= max)) throw new TuneError(`${what} must be a whole number from 1 to ${max}, got ${n}`);
};

export class TuneTabSession {
  private running: AbortController | null = null;
  constructor(private readonly deps: TuneTabDeps) {}

  private async save(info: KbInfo, set: MadeTestSet): Promise<TestSetSummary> {
    const stored: StoredTestSet = {
      id: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`, kbId: info.corpusId, kbTitle: info.descriptor.title,
      corpusHash: info.corpusHash ?? '', splitSeed: 0, savedAt: Date.now(), kind: set.kind, label: set.label, provenance: set.provenance,
      queries: set.queries, qrels: [...set.qrels].map(([q, m]) => [q, [...m]]), notes: set.notes,
    };
    await this.deps.store.put(stored);
    return summaryOf(stored, info);
  }

  /** The open knowledge base's test sets, newest first, each saying whether the knowledge base changed since (stale). */
  async testSets(): Promise<{ sets: TestSetSummary[]; skipped: string[] }> {
    const { info } = this.deps.context([]);
    const { sets, skipped } = await this.deps.store.list(info.corpusId);
    return { sets: sets.map((s) => summaryOf(s, info)), skipped };
  }

  /** A test set written by hand: CSV or JSONL (test-set-file.ts), checked against the open knowledge base. */
  async importTestSet(name: string, text: string): Promise<TestSetSummary> {
    const { kb, info } = this.deps.context([]);
    if (text.length > TEST_SET_LIMITS.bytes) throw new TuneError(`${name} is over ${TEST_SET_LIMITS.bytes / 1024 / 1024} MB: a test set is at most that`);
    return this.save(info, await makeTestSet(kb, { kind: 'imported', name, text }));
  }

  /** Pseudo-queries (offline: a sentence of a sampled document), always labelled as biased toward lexical matching. */
  async pseudoTestSet(n: number, seed: number): Promise<TestSetSummary> {
    checkCount(n, TAB_LIMITS.pseudo, 'the number of pseudo-queries');
    const { kb, info } = this.deps.context([]);
    return this.save(info, await makeTestSet(kb, { kind: 'pseudo', n, seed }));
  }

  /** Calls, tokens and cost of writing a test set with this model, before any call. */
  async estimateTestSet(req: Omit<WriteTestSetRequest, 'llm'> & { llm: Pick<WriteTestSetRequest['llm'], 'provider' | 'model'> }) {
    checkCount(req.n, TAB_LIMITS.llmQuestions, 'the number of questions');
    const { kb } = this.deps.context([]);
    const chunks = sampleTestSetChunks(kb, req.n, req.seed);
    return { chunks: chunks.length, ...estimateLlmTestSet(chunks, priceFor(req.llm.provider, req.llm.model)) };
  }

  /**
   * Writes a test set with the user's LLM (`apiKey` for these calls only, never stored or returned); replies are cached
   * as they come, so a cancelled or failed writing resumes where it stopped when run again.
   */
  async writeTestSet(req: WriteTestSetRequest, apiKey: string | null, onProgress: (p: TuneTabProgress) => void): Promise<TestSetSummary> {
    checkCount(req.n, TAB_LIMITS.llmQuestions, 'the number of questions');
    const { kb, info } = this.deps.context([]);
    return this.exclusive(async (signal) => {
      try {
        const provider = createProvider({ provider: req.llm.provider, baseUrl: req.llm.baseUrl ?? undefined, model: req.llm.model, apiKey: apiKey ?? undefined });
        const t0 = Date.now();
        return await this.save(info, await makeTestSet(kb, {
          kind: 'llm', n: req.n, seed: req.seed, provider, providerId: req.llm.provider, model: req.llm.model, cache: this.deps.replies, signal,
          onProgress: (p) => onProgress({ phase: 'write', ...p, etaMs: remainingMs(Date.now() - t0, p.done - p.cached, p.total - p.done) }),
        }));
      } catch (e) {
        if (signal.aborted) throw new TuneError('Cancelled: the replies that came are cached, so writing again resumes from them.');
        throw new TuneError(redactSecrets((e as Error).message || String(e), [apiKey]));
      }
    });
  }

  async deleteTestSet(id: string): Promise<void> {
    await this.deps.store.delete(id);
  }

  /** A stored test set as BEIR files: queries.jsonl and qrels/test.tsv. */
  async exportTestSet(id: string): Promise<{ name: string; queries: string; qrels: string }> {
    const s = await this.deps.store.get(id);
    if (!s) throw new TuneError('That test set is gone (deleted in another tab?).');
    const files = testSetBeirFiles(s.queries, new Map(s.qrels.map(([q, docs]) => [q, new Map(docs)])));
    return { name: s.label.replace(/[^\w.-]+/g, '-').slice(0, 60), ...files };
  }

  /** Stops the running tune or test-set writing. */
  cancelTune(): void {
    this.running?.abort();
  }

  private async exclusive<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.running) throw new TuneError('A tune or a test set is being made already: wait for it, or cancel it.');
    const c = new AbortController();
    this.running = c;
    try {
      return await work(c.signal);
    } finally {
      if (this.running === c) this.running = null;
    }
  }

  /** Tunes the Search tab's settings on a stored test set of the open knowledge base. */
  async tune(req: TuneTabRequest, loaded: LoadedModel[], onProgress: (p: TuneTabProgress) => void): Promise<TuneTabResult> {
    checkCount(req.budget, TAB_LIMITS.budget, 'the budget (trials)');
    if (req.minutes !== undefined && !(req.minutes > 0 && req.minutes <= TAB_LIMITS.minutes)) throw new TuneError(`the budget in minutes must be above 0 and at most ${TAB_LIMITS.minutes}, got ${req.minutes}`);
    const ctx = this.deps.context(loaded);
    const set = await this.deps.store.get(req.testSetId);
    if (!set || set.kbId !== ctx.info.corpusId) throw new TuneError('That test set is not one of this knowledge base (deleted, or another knowledge base is open): pick one again.');
    const stale = set.corpusHash !== (ctx.info.corpusHash ?? '');
    const other = req.agreeWithId ? await this.deps.store.get(req.agreeWithId) : null;
    if (req.agreeWithId && (!other || other.kbId !== ctx.info.corpusId || other.id === set.id)) throw new TuneError('The test set to check against is not another test set of this knowledge base: pick one again.');
    const judgementsOf = (t: StoredTestSet) => new Map(t.qrels.map(([q, docs]) => [q, new Map(docs)]));
    const modes = req.modes.filter((m) => (MODE_IDS as readonly string[]).includes(m));
    // The space as the panel narrowed it, each value checked as its setting reads it (space.ts).
    const narrow = (() => {
      try { return spaceFromFlags(Object.entries(req.space ?? {}).filter(([, t]) => t?.trim()).map(([flag, t]) => `${flag}=${t!.replace(/\s+/g, '')}`)); } catch (e) { throw new TuneError(`The space: ${(e as Error).message.replace(/^--space /, '')}`); }
    })();
    if (modes.length === 0) throw new TuneError('Choose at least one mode for the space.');
    const specs = tabEmbedderSpecs(req.embedders ?? [], ctx.embedder);
    if (specs.length && !this.deps.loadEmbedder) throw new TuneError('Other embedders cannot be loaded here');
    const s = req.search;
    // The Search tab's BM25 (its k1 / b, else the knowledge base's own) is the current one.
    const kb = withSearchBm25(ctx.kb, s.k1, s.b);
    const base = runSettings('default', {
      candidateK: s.candidateK, bm25K: s.bm25K, denseK: s.denseK, fusionTopK: s.fusionTopK, calibration: s.calibration, entropyBasis: s.entropyBasis, alpha: s.alpha, predictors: false,
    });
    return this.exclusive(async (signal) => {
      const t0 = Date.now();
      let rungStart = t0, embedStart = t0;
      // What each embedder was trained on, named as a benchmark run names it (a model belongs to its corpus).
      const corpusOf = corpusLookup(ctx.kb, this.deps.trained ?? (async () => []));
      const ownCorpus = ctx.embedder ? await corpusOf(ctx.embedder.id) : null;
      const extra = specs.length ? await tabEmbedders(specs, {
        load: this.deps.loadEmbedder!, info: ctx.info, signal, corpusOf,
        onEmbed: (p) => { if (p.done === 0) embedStart = Date.now(); onProgress({ phase: 'embed', ...p, etaMs: p.done > 0 ? remainingMs(Date.now() - embedStart, p.done, p.total - p.done) : null }); },
      }) : null;
      const result = await runTuneSession({
        ...(extra ? { embedders: extra.embedders } : {}),
        kb, queries: set.queries, qrels: judgementsOf(set), base,
        // Hand-labelled questions are the reference beside written or pseudo ones.
        ...(other ? { agreeWith: { label: other.label, queries: other.queries, qrels: judgementsOf(other), pseudo: other.kind === 'pseudo', reference: other.kind === 'imported' && set.kind !== 'imported' } } : {}), current: s.mode, models: ctx.models, modes, budget: req.budget,
        seed: set.splitSeed, identity: {
          dataKey: ctx.info.corpusHash ?? ctx.info.corpusId, dataset: ctx.info.descriptor.title, kb: ctx.info.corpusId,
          embedder: ctx.embedder ? modelKey(ctx.embedder) : null, reranker: ctx.reranker ? modelKey(ctx.reranker) : null, embedderCorpus: ownCorpus,
        },
        space: { narrow, ...(req.rebuild ? { rebuild: true } : {}) }, ...(req.rebuild ? { rebuild: rebuildFrom(ctx, signal) } : {}),
        ...(req.objective ? { objective: req.objective } : {}), ...(req.minutes !== undefined ? { minutes: req.minutes } : {}), pseudo: set.kind === 'pseudo', cache: this.deps.cache, signal,
        onProgress: (p: TuneProgress) => {
          if (p.done === 1) rungStart = Date.now();
          onProgress({ phase: 'tune', ...p, etaMs: p.done > 1 ? remainingMs(Date.now() - rungStart, p.done - 1, p.total - p.done) : null });
        },
      }).catch((e: unknown) => {
        if (signal.aborted) throw new TuneError('Cancelled: the trials that ran are cached, so tuning again resumes from them.');
        throw e;
      }).finally(() => extra?.dispose());
      // Saved as a draft report (kind 'tune'): what it ran on, the models, the test set and its provenance.
      const models = [...(ctx.embedder ? [runModelInfo('embedder', ctx.embedder)] : []), ...specs.map((x) => runModelInfo('embedder', x)), ...(ctx.reranker ? [runModelInfo('cross-encoder', ctx.reranker)] : [])];
      const report = await tuneReport(result, {
        testSet: { label: set.label, kind: set.kind, provenance: set.provenance, splitSeed: set.splitSeed }, budget: req.budget, ...(req.minutes !== undefined ? { minutes: req.minutes } : {}),
        modes, base: jsonOf(s) as Record<string, JsonValue>, environment: reportEnvironment({ ...this.deps.runtime, models }, null, null),
        data: { dataset: ctx.info.descriptor.title, kb: ctx.info.corpusId, source: ctx.info.descriptor.source.kind, revision: ctx.info.revisionSha },
      });
      return { result, report, adopt: adoptOf(result, ctx.kb, s), testSet: { id: set.id, label: set.label, kind: set.kind, stale }, kbTitle: ctx.info.descriptor.title, ms: Date.now() - t0 };
    });
  }
}

/**
 * The open knowledge base built again from its documents with other chunking or analyzer (a tune's rebuilding
 * dimensions), its items embedded by the dense side's embedder when it has one (vectors cached under their own key).
 */
function rebuildFrom(ctx: TuneContext, signal: AbortSignal): NonNullable<TuneSessionInput['rebuild']> {
  const { kb, info } = ctx;
  if (kb.docs.some((d) => d.text === '')) throw new TuneError(`${info.descriptor.title} keeps its chunks apart from its documents (an artifact without document texts): it cannot be built again with other chunking`);
  if (kb.dense && !ctx.passages) throw new TuneError('Building again needs the embedding model of the dense side: load it, or tune without building again');
  return async (x) => {
    signal.throwIfAborted();
    const again = KnowledgeBase.build(kb.docs, { ...kb.options, chunking: x.chunking }, undefined, ANALYZER_OPTIONS[x.analyzer]);
    if (kb.dense && ctx.passages) {
      const key = `tune:${info.corpusId}:${info.corpusHash ?? ''}:${JSON.stringify([x.chunking, x.analyzer])}`;
      await attachKbVectors(again, null, ctx.passages, { kbKey: async () => key, signal });
    }
    return again;
  };
}

/** The winner as Search settings (candidate_k "auto" as the number it ran with; k1 / b null when they are `kb`'s own) and what each changes from `current`. */
export function adoptOf(r: TuneResult, kb: KnowledgeBase, current: SearchSettings): TuneTabResult['adopt'] {
  const w = r.winnerSettings;
  const own = kb.options.bm25;
  const settings: TuneTabResult['adopt']['settings'] = {
    ...searchOfRunConfig({ mode: w.mode, settings: w.settings }),
    candidateK: runCandidateK({ candidateK: w.settings.candidateK, depth: w.settings.depth }, kb),
    // The knowledge base's own BM25 stays null (the link keeps no k1 / b).
    k1: w.settings.k1 === own.k1 && current.k1 === null ? null : w.settings.k1,
    b: w.settings.b === own.b && current.b === null ? null : w.settings.b,
  };
  const changes: AdoptChange[] = [];
  for (const [k, to] of Object.entries(settings) as Array<[keyof SearchSettings, unknown]>) {
    const from = current[k];
    if (to !== undefined && to !== from) changes.push({ setting: k, label: SEARCH_SETTINGS[k].describe, from: from as AdoptChange['from'], to: to as AdoptChange['to'] });
  }
  // What a search cannot take: the winner's chunking or analyzer, when it is not the knowledge base's (built again).
  const chunking = (c: KnowledgeBase['options']['chunking']) => (c === false ? 'whole documents' : `chunks of ${c.chunkSize} characters (overlap ${c.overlap})`);
  const mine = chunking(kb.options.chunking), theirs = chunking(w.settings.chunked ? { ...DEFAULT_CHUNKING, chunkSize: w.settings.chunkSize, overlap: w.settings.overlap } : false);
  const notApplied = [
    ...(mine !== theirs ? [`chunking: ${theirs} (the knowledge base has ${mine})`] : []),
    ...(analyzerOf(kb) !== 'custom' && analyzerOf(kb) !== w.settings.analyzer ? [`BM25 analyzer: ${w.settings.analyzer} (the knowledge base has ${analyzerOf(kb)})`] : []),
    ...(w.settings.index !== 'auto' && w.settings.index !== ownIndexKind(kb) ? [`vector index: ${w.settings.index} (the knowledge base has ${ownIndexKind(kb) ?? 'none'})`] : []),
    ...(w.embedder ? [`embedder: ${w.embedder} (load it in the Models panel: the Search tab's dense side is the current embedder's)`] : []),
  ];
  return { settings, changes, notApplied };
}

/** The session's methods as a worker exposes them (bound: Comlink calls them off the object). */
export const TUNE_TAB_METHODS = ['testSets', 'importTestSet', 'pseudoTestSet', 'estimateTestSet', 'writeTestSet', 'deleteTestSet', 'exportTestSet', 'tune', 'cancelTune'] as const;
export type TuneTabApi = Pick<TuneTabSession, (typeof TUNE_TAB_METHODS)[number]>;
export function tuneTabApi(s: TuneTabSession): TuneTabApi {
  return Object.fromEntries(TUNE_TAB_METHODS.map((m) => [m, (s[m] as (...a: unknown[]) => unknown).bind(s)])) as unknown as TuneTabApi;
}

/**
 * The browser's session: test sets, their LLM replies and the trials' rows in IndexedDB; other embedders loaded in
 * this worker (corpus-trained ones from the trained-model store), for one tune each.
 */
export const browserTuneTab = (context: TuneTabDeps['context']): TuneTabApi => {
  const trained = new IndexedDbTrainedModelStore();
  return tuneTabApi(new TuneTabSession({
    context, store: indexedDbTestSetStore, replies: indexedDbReplyStore, cache: indexedDbRetrievalRowCache,
    runtime: { runtime: 'browser', agent: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown' },
    trained: () => trained.list(),
    loadEmbedder: async (spec) => (await loadModel('embedder', spec, trained)).model as TextEmbedder,
  }));
};
