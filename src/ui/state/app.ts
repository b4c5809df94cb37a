/**
 * The page's states, built in dependency order: each gets what it uses through its constructor, so this function is
 * the page's dependency graph, read top to bottom. App.svelte calls it once, puts the result in context
 * (src/ui/context.ts) and calls `start()`. The one edge that runs upward: KbState reaches ModelsState through a
 * function (the models embed the open knowledge base, the knowledge base's search worker talks to the models' worker).
 */
import { IndexedDbReportStore } from '../../lib/reports/report-store.ts';
import { IndexedDbLocalKbStore } from '../../lib/store/local-kb-store.ts';
import { AppSettingsState } from './app-settings.svelte.ts';
import { AskScoreState } from './ask-score.svelte.ts';
import { AskState } from './ask.svelte.ts';
import { BenchState } from './bench.svelte.ts';
import { BuildState } from './build.svelte.ts';
import { CompareState } from './compare.svelte.ts';
import { CorpusEmbedderState } from './corpus-embedder.svelte.ts';
import { HubTokenState } from './hub-token.svelte.ts';
import { KbState } from './kb.svelte.ts';
import { KeysState } from './keys.svelte.ts';
import { LocalKbsState } from './local-kbs.svelte.ts';
import { ModelsState } from './models.svelte.ts';
import { NoticesState } from './notices.svelte.ts';
import { ReportSyncState } from './report-sync.svelte.ts';
import { ReportsState } from './reports.svelte.ts';
import { RetrievalBenchState } from './retrieval-bench.svelte.ts';
import { SearchState } from './search.svelte.ts';
import { SharedReportState } from './shared-report.svelte.ts';
import { ThemeState } from './theme.svelte.ts';
import { TrainedModelsState } from './trained-models.svelte.ts';
import { TuneState } from './tune.svelte.ts';

/** Builds every state of the page; `search`: the page's query string (its link). Nothing starts until `start()`. */
export function createApp(search: string) {
  const settings = new AppSettingsState();
  const hubToken = new HubTokenState();
  const tokenLoaded = hubToken.load();
  // Hub requests go to the Hub set in Settings, with the user's token (never a host from a link): one closure for all.
  const hubAccess = hubToken.accessFor(() => settings.value.hubUrl);
  const notices = new NoticesState();
  const theme = new ThemeState();
  const keys = new KeysState();
  keys.load();
  // Knowledge bases built in this browser (Build tab): the one list, which the picker's local entries derive from.
  const localKbs: LocalKbsState = new LocalKbsState(new IndexedDbLocalKbStore({ onProblem: (m) => localKbs.noteProblem(m) }));
  const trained = new TrainedModelsState();
  const kb: KbState = new KbState({ locals: localKbs, hubAccess, settings, models: () => models });
  const searchState = new SearchState(kb);
  kb.onOpen((info) => searchState.fit(info)); // the Search state fits its filters to the facets of each knowledge base that opens
  // After the models worker recovered from a failed run (e.g. WebGPU lost), the search that failed runs again.
  const models = new ModelsState({ settings, kb, notices, trained, recovered: () => { if (searchState.input.q.trim()) void searchState.run(); } });
  // Corpus-trained embedders (LSI on a knowledge base's own text): trained in a build worker, loaded like any model.
  const corpusEmbedder = new CorpusEmbedderState(kb, models, settings, trained);
  const ask = new AskState(kb, keys, (model) => models.generatorPlan(model));
  // "Score this answer" runs in the models worker; a Benchmark row opens its RAGBench question here.
  const askScore = new AskScoreState(ask, (request, key) => models.scoreAnswer(request, key), () => ({ corpusId: kb.info?.corpusId ?? null, questions: kb.info?.goldQuestions ?? [] }));
  // Pipeline-mode benchmarks run the Ask tab's pipeline settings.
  const bench = new BenchState(models, settings, keys, () => ask.config, () => ask.baseUrlFromLink);
  // The retrieval benchmark (BEIR) of the same tab, in its own bench worker.
  const retrievalBench = new RetrievalBenchState(models, kb, localKbs, corpusEmbedder, hubAccess);
  // The Tune panel (Benchmark tab): test sets and tunes of the open knowledge base, in its search worker; Adopt sets Search and Ask.
  const tune = new TuneState(kb, searchState, ask);
  // Saved reports: IndexedDB first; a store that cannot be read (private mode, quota) leaves a notice in the tab.
  const reports: ReportsState = new ReportsState(new IndexedDbReportStore({ onProblem: (m) => reports.note(m) }));
  // Hub sync (opt-in) with the Hub of Settings and the user's token.
  const reportSync = new ReportSyncState(reports, hubAccess);
  const compare = new CompareState(reports);
  const build = new BuildState(localKbs, {
    loadedModels: () => models.loaded, modelsPort: () => models.port(), access: hubAccess, arxivProxy: () => settings.value.arxivProxy,
    saved: (name) => kb.reopenLocal(name),
  });
  // A share link in the fragment (#r=… / #ref=…) opens the Reports tab with a read-only report; a #ref= download goes
  // to the Hub in Settings with the user's token (never a host from the link). Nothing in it changes a setting.
  const sharedReport = new SharedReportState(() => reports, async () => { await tokenLoaded; return hubAccess(); });

  searchState.loadFromUrl(search);
  kb.loadFromUrl(search);
  ask.loadFromUrl(search);
  bench.loadFromUrl(search);
  retrievalBench.loadFromUrl(search);

  /** Starts Hub sync once what it needs is read. */
  function start(): void {
    // Hub sync starts once the token and the saved list are read.
    void Promise.all([tokenLoaded, reports.reload()]).then(() => reportSync.start());
  }

  let kbStarted = false;
  /**
   * Opens the link's knowledge base, once: when a tab that shows it is first shown (App.svelte). A page opened on
   * Reports or Compare (a shared report's link), or on Settings, does not download and index a corpus it may never search.
   */
  function openKb(): void {
    // Once; and not when another knowledge base was opened meanwhile (Open in Search, a RAGBench question in Ask).
    if (kbStarted || kb.status !== 'idle') return;
    kbStarted = true;
    // A link's local:<name> can be checked only once the local list is read; a hub: one opens with the remembered token.
    const before = kb.entry.ref.kind === 'local' ? localKbs.ready : kb.entry.ref.kind === 'hub' ? tokenLoaded : Promise.resolve();
    void before.then(() => kb.open()).then(() => { if (kb.status === 'ready') void models.embedders.afterFirstOpen(); });
  }

  return {
    settings, hubToken, notices, theme, keys, localKbs, trained, kb, search: searchState, models, corpusEmbedder, ask, askScore, bench,
    retrievalBench, tune, reports, reportSync, compare, build, sharedReport, start, openKb,
  };
}

/** The page's states (what components get from context). */
export type App = ReturnType<typeof createApp>;
