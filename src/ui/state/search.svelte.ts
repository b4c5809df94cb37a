/** The Search tab's state: inputs (mirrored in the URL), the latest response, and running searches. */
import { MODES } from '../../lib/retrieval/modes.ts';
import { rejectThresholdFor } from '../../lib/retrieval/rejection.ts';
import { searchSettingsOf, type SearchSettings } from '../../lib/settings/search.ts';
import type { KbInfo, SearchRequest, SearchResponse } from '../../../workers/search-api.ts';
import { filtersScope, fitFilters, isActive } from '../search/filters.ts';
import { NoticesState } from './notices.svelte.ts';
import { isSearchParam, MAX_QUERY_CHARS, parseUrlState, serializeUrlState, type SearchUrlState } from '../search/url-state.ts';
import { writeOwnedParams } from '../app/url.ts';
import type { KbState } from './kb.svelte.ts';
import type { ExampleQuery } from '../../lib/retrieval/document.ts';
import { chipChoice, linkFallback } from '../search/example-chips.ts';
import type { RetrievalMode } from '../../lib/retrieval/modes.ts';

export class SearchState {
  input = $state<SearchUrlState>(parseUrlState('').state);
  /**
   * The tab's notices (feature 'search'): one per warning about the link (until dismissed), and one ('filters') about
   * the filters fitted to the knowledge base that opened, scoped to `noticeScope` so it goes when the knowledge base,
   * query or filters change.
   */
  readonly notices = new NoticesState();
  /** The open knowledge base the inputs were fitted to (null before the first one opened). */
  private kbId = $state<string | null>(null);
  readonly noticeScope = $derived(filtersScope(this.kbId, this.input.q, this.input.filters));
  response = $state.raw<SearchResponse | null>(null);
  /** The query the current response answers, and its whole request (the α simulator re-fuses it). */
  answered = $state('');
  answeredRequest = $state.raw<SearchRequest | null>(null);
  /** The α simulator panel is open (the telemetry's or the tab's "α simulator" button). */
  simOpen = $state(false);
  /** Why the last example chip ran in another mode than its own (shown while its query is the query). */
  exampleNotice = $state.raw<{ query: string; text: string } | null>(null);
  running = $state(false);
  /** The threshold searches use: the one typed or linked (`thr=`), else the mode's default. */
  readonly threshold = $derived(rejectThresholdFor(this.input.mode, this.input.rejectThreshold));
  private seq = 0;
  /** The last run's request and the knowledge base it ran on: search as you type skips a request Enter already ran. */
  private lastRun: { key: string; info: unknown } | null = null;
  /** The mode a link asked for, until the first search that can tell whether it runs here (see `run`). */
  private linkMode: RetrievalMode | null = null;

  constructor(private readonly kb: KbState) {}

  loadFromUrl(search: string): void {
    const { state, warnings } = parseUrlState(search);
    this.input = state;
    this.linkMode = new URLSearchParams(search).has('mode') && state.mode !== 'sparse' ? state.mode : null;
    warnings.forEach((w, i) => this.notices.raise('search', `link-${i}`, 'warn', w));
  }

  /** Settings adopted from a tune (the Tune panel): the inputs take them, and the link. */
  adopt(settings: Partial<SearchSettings>): void {
    this.input = { ...this.input, ...settings };
    this.writeUrl();
  }

  writeUrl(): void {
    writeOwnedParams(isSearchParam, new URLSearchParams(serializeUrlState(this.input)));
  }

  /**
   * Fits the filters to the knowledge base that opened: those on fields or values it has no facet for are dropped,
   * told in one notice about this switch (a link made on another knowledge base: "Ignored"; a switch in the picker:
   * "Cleared"), which replaces the previous switch's; the shown results are cleared.
   */
  fit(info: KbInfo): void {
    const switched = this.kbId !== null && this.kbId !== info.corpusId;
    const { filters, warnings } = fitFilters(this.input.filters, info.facets, info.descriptor.title, switched ? 'Cleared' : 'Ignored');
    if (warnings.length || filters.length !== this.input.filters.length) this.input.filters = filters;
    if (this.response && this.kbId !== info.corpusId) this.response = null;
    this.kbId = info.corpusId;
    if (warnings.length) this.notices.raise('search', 'filters', 'warn', warnings.join(' '), filtersScope(info.corpusId, this.input.q, this.input.filters));
    else this.notices.clear('search', 'filters');
  }

  request(): SearchRequest {
    const s = this.input;
    const filters = s.filters.filter(isActive).map((f) => ({ ...f, ...(f.values ? { values: [...f.values] } : {}) }));
    return { query: s.q.slice(0, MAX_QUERY_CHARS), ...searchSettingsOf(s), filters };
  }

  /**
   * An example chip: sets the query and the example's mode (or the best one that runs now, with the reason in
   * `exampleNotice`); the Search tab's search-as-you-type effect then runs it.
   */
  pickExample(ex: ExampleQuery): void {
    const c = chipChoice(ex, this.kb.modes, this.input.mode);
    this.input.q = c.query;
    this.input.mode = c.mode;
    this.exampleNotice = c.notice ? { query: c.query, text: c.notice } : null;
  }

  /**
   * A link's mode that needs a model this page has not loaded (a dense link in a fresh profile) runs as an example
   * chip's does: with the best mode that runs now (BM25 last), and one line saying why (`exampleNotice`).
   */
  private fallBackFromLink(): void {
    const link = this.linkMode;
    const modes = this.kb.modes;
    if (!link || !modes) return;
    this.linkMode = null;
    const fallback = this.input.mode === link ? linkFallback(link, modes) : null;
    if (!fallback) return;
    this.input.mode = fallback.mode;
    this.exampleNotice = { query: this.input.q, text: fallback.notice };
  }

  /** The shown results are in fused order while the cross-encoder reranks them (a rerank mode's first response). */
  get reranking(): boolean {
    return this.response?.telemetry?.pending.includes('rerank') ?? false;
  }

  /** Search as you type: runs the current request unless this very request already ran on this knowledge base. */
  runIfChanged(): void {
    if (this.input.q.trim() === '') return;
    if (this.lastRun && this.lastRun.info === this.kb.info && this.lastRun.key === JSON.stringify(this.request())) return;
    void this.run();
  }

  /**
   * Runs the current request; a newer search supersedes an older one still in flight, so neither its first nor its
   * reranked results replace the newer ones.
   */
  async run(): Promise<void> {
    this.fallBackFromLink();
    const id = ++this.seq;
    this.running = true;
    const req = this.request();
    this.lastRun = { key: JSON.stringify(req), info: this.kb.info };
    const show = (res: SearchResponse) => {
      if (id !== this.seq || res.status === 'superseded') return;
      this.response = res;
      this.answered = req.query;
      this.answeredRequest = req;
    };
    // Only rerank modes have a first result before the final one: no callback channel for the others.
    const res = await this.kb.search(req, MODES[req.mode].needsReranker ? show : undefined);
    show(res);
    if (id === this.seq) this.running = false;
  }
}
