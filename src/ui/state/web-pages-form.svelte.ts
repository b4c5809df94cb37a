/**
 * The Build tab's "From web pages" form (one owner): the URL list (a textarea, one URL a line), the optional search
 * (a SearXNG endpoint, a query, how many results), what the list holds while typing, and Build
 * (`build.start({ kind: 'web', … })` through the proxy set in Settings, the one arXiv uses). The pure rules are in
 * `../web-pages-form.ts`.
 */
import { titleForSource } from '../build/build-view.ts';
import { DEFAULT_SEARCH_RESULTS, pasteProblem, urlListSummary, webRequestOf, type WebFormFields } from '../build/web-pages-form.ts';
import type { BuildState } from './build.svelte.ts';

export class WebPagesFormState {
  fields = $state<WebFormFields>({ urls: '', search: false, endpoint: '', query: '', max: DEFAULT_SEARCH_RESULTS });
  /** Why the last paste into the list was refused (over the size limit); cleared by the next edit. */
  pasteRefused = $state<string | null>(null);
  /** What the last Build press said (a field to fix, or the build refused to start). */
  error = $state<string | null>(null);

  constructor(private readonly build: BuildState) {}

  /** The proxy from Settings ('' = none: pages cannot be read from the tab). */
  get proxy(): string { return this.build.arxivProxy(); }
  get summary() { return urlListSummary(this.fields.urls); }
  get busy(): boolean { return this.build.status === 'building'; }
  get canBuild(): boolean {
    const f = this.fields;
    return this.proxy !== '' && !this.busy && (this.summary.count > 0 || (f.search && f.query.trim() !== '' && f.endpoint.trim() !== ''));
  }

  /** A paste into the list: refused before the browser inserts it when the list would be over the size limit. */
  paste(e: ClipboardEvent & { currentTarget: HTMLTextAreaElement }): void {
    const t = e.currentTarget;
    this.pasteRefused = pasteProblem(t.value, e.clipboardData?.getData('text/plain') ?? '', t.selectionStart, t.selectionEnd);
    if (this.pasteRefused) e.preventDefault();
  }

  /** Suggests the knowledge base's title from the search or the first site, unless the user typed one. */
  suggestTitle(): void {
    const f = this.fields;
    this.build.suggestTitle(titleForSource({ kind: 'web', request: { urls: f.urls, ...(f.search ? { search: { query: f.query } } : {}) } }));
  }

  async submit(): Promise<void> {
    this.error = null;
    const got = webRequestOf(this.fields);
    if ('error' in got) { this.error = got.error; return; }
    try {
      await this.build.start({ kind: 'web', request: got.request, proxyUrl: this.proxy });
    } catch (e) {
      this.error = (e as Error).message;
    }
  }
}
