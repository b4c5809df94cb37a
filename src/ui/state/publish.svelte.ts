/**
 * Publishing one local knowledge base to a Hub dataset repo (the Build tab's Publish, one instance per knowledge
 * base): the repo field, the run in a build worker of its own (`publish`: one commit on parentCommit, other
 * writers' entries kept; Cancel terminates it), its progress, then the commit and the link that opens the knowledge
 * base for anyone (`?kb=hub:owner/name/<name>@<commit>`, pinned at the commit) with Copy. The token and the Hub URL
 * come from Settings through `access` (HubTokenState): never from a link, never shown.
 */
import * as Comlink from 'comlink';
import type { BuildProgress } from '../../lib/data/source-documents.ts';
import type { HubAccess, PublishResult } from '../../../workers/build-api.ts';
import { startBuildWorker } from '../clients/build-client.ts';
import { kbLink, NO_TOKEN, publishRepo } from '../build/publish-view.ts';
import { localKbId } from '../../lib/data/kb-registry.ts';
import { indexedDbTestSetStore, type StoredTestSet } from '../../lib/store/test-set-store.ts';

export type PublishStatus = 'idle' | 'publishing' | 'done' | 'error' | 'cancelled';

export class PublishState {
  repo = $state('');
  status = $state<PublishStatus>('idle');
  progress = $state.raw<BuildProgress | null>(null);
  result = $state.raw<PublishResult | null>(null);
  /** The link to the app with the published knowledge base preselected. */
  link = $state<string | null>(null);
  error = $state<string | null>(null);
  copied = $state<string | null>(null);
  /** This knowledge base's test sets stored in this browser (the Tune panel's), and the one to carry as its queries ('' none). */
  testSets = $state.raw<Array<{ id: string; label: string; kind: string; queries: number }>>([]);
  testSetId = $state('');
  private worker: { terminate(): void } | null = null;

  constructor(
    readonly name: string,
    private readonly access: () => HubAccess,
    private readonly startWorker: typeof startBuildWorker = startBuildWorker,
    private readonly where: () => Pick<Location, 'origin' | 'pathname'> = () => location,
    private readonly storedTestSets: (kbId: string) => Promise<{ sets: StoredTestSet[] }> = (kbId) => indexedDbTestSetStore.list(kbId),
  ) {}

  /** Reads the test sets that may be carried (a store that cannot be read leaves none to choose). */
  async loadTestSets(): Promise<void> {
    try {
      this.testSets = (await this.storedTestSets(localKbId(this.name))).sets.map((t) => ({ id: t.id, label: t.label, kind: t.kind, queries: t.queries.length }));
    } catch {
      this.testSets = [];
    }
  }

  get hasToken(): boolean {
    return Boolean(this.access().token);
  }

  async publish(): Promise<void> {
    if (this.status === 'publishing') return;
    const { hubUrl, token } = this.access();
    this.error = null;
    this.copied = null;
    if (!token) { this.status = 'error'; this.error = NO_TOKEN; return; }
    const repo = publishRepo(this.repo, hubUrl);
    if (!repo.ok) { this.status = 'error'; this.error = repo.message; return; }
    this.repo = repo.repo;
    this.status = 'publishing';
    this.progress = null;
    this.result = null;
    this.link = null;
    const client = this.startWorker();
    this.worker = client;
    try {
      const result = await client.api.publish({ name: this.name, repo: repo.repo, access: { hubUrl, token }, testSetId: this.testSetId || null }, Comlink.proxy((p: BuildProgress) => {
        if (this.worker === client) this.progress = p;
      }));
      if (this.worker !== client) return; // cancelled meanwhile
      this.result = result;
      this.link = kbLink(result.kbId, this.where());
      this.status = 'done';
    } catch (e) {
      if (this.worker !== client) return;
      this.status = 'error';
      this.error = `Not published: ${(e as Error).message || String(e)}`;
    } finally {
      if (this.worker === client) this.worker = null;
      client.terminate();
    }
  }

  /** Stops the publish (the worker goes): a commit the Hub already accepted stays, none is half made. */
  cancel(): void {
    if (this.status !== 'publishing' || !this.worker) return;
    this.worker.terminate();
    this.worker = null;
    this.status = 'cancelled';
    this.progress = null;
  }

  async copy(): Promise<void> {
    if (!this.link) return;
    try {
      await navigator.clipboard.writeText(this.link);
      this.copied = 'Copied to the clipboard.';
    } catch {
      this.copied = 'The clipboard is not available here: copy the link from the box.';
    }
  }
}
