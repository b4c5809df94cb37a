/**
 * API keys: kept in memory for this tab unless the user ticks "remember on this device", which stores that
 * provider's key in a separate IndexedDB database. Keys never enter the URL, settings, reports or logs.
 *
 * Each key is bound to the endpoint origin it was entered for (`src/lib/llm/key-binding.ts`); records keep their
 * binding (`{ key, provider, origin }`), records of the old shape (a bare string) are bound to the provider's default
 * endpoint, and records are validated on read. `keyFor` is the one way to get a key for a request: it asks the user
 * (`pending`, rendered by KeyConfirm.svelte) before a key goes to an origin it was not entered for or to a base URL
 * that came from a link, and a confirmation re-binds the key.
 */
import { yieldingDatabase } from '../../lib/store/open-db.ts';
import {
  bindingFor,
  decideKeySend,
  defaultBinding,
  keyProvider,
  parseStoredKey,
  toStoredRecord,
  type BoundKey,
  type KeyBinding,
} from '../../lib/llm/key-binding.ts';
import type { ProviderId, RemoteProviderId } from '../../lib/llm/types.ts';

const DB = 'rag-lab-secrets';
const STORE = 'keys';
const open = yieldingDatabase(DB, 1, (d) => { d.createObjectStore(STORE); });

/** A question waiting for the user: send a key to an endpoint it was not entered for? */
export interface KeyConfirmation {
  /** Which tab asked ('ask', 'bench'), so the question shows next to its button. */
  readonly purpose: string;
  readonly question: string;
  readonly targetHost: string;
  readonly boundHost: string;
}

export type KeyForRequest = { ok: true; key: string | null; confirmed: boolean } | { ok: false; message: string };

export class KeysState {
  private entries = $state.raw<Partial<Record<RemoteProviderId, BoundKey>>>({});
  remembered = $state<Partial<Record<ProviderId, boolean>>>({});
  error = $state<string | null>(null);
  pending = $state.raw<KeyConfirmation | null>(null);
  private answer: ((send: boolean) => void) | null = null;

  async load(): Promise<void> {
    const problems: string[] = [];
    try {
      const d = await open();
      for (const id of await d.getAllKeys(STORE)) {
        const r = parseStoredKey(id, await d.get(STORE, id));
        if (r.ok) {
          this.entries = { ...this.entries, [r.value.binding.provider]: r.value };
          this.remembered[r.value.binding.provider] = true;
        } else {
          problems.push(r.message);
          await d.delete(STORE, id);
        }
      }
    } catch (e) {
      problems.push(`Saved keys could not be read (${(e as Error).message || (e as Error).name}); enter them again.`);
    }
    if (problems.length > 0) this.error = problems.join(' ');
  }

  get(id: ProviderId): string | null {
    const p = keyProvider(id);
    return (p && this.entries[p]?.key) || null;
  }

  /** Where the provider's key may go without asking (null: no key). */
  binding(id: ProviderId): KeyBinding | null {
    const p = keyProvider(id);
    return (p && this.entries[p]?.binding) || null;
  }

  /**
   * Sets the provider's key as the user typed it. `baseUrl` is the endpoint it is entered for (null: the provider's
   * default; pass null for a base URL the user did not choose, e.g. one from a link). The same key again keeps its
   * binding (ticking "remember" does not re-bind).
   */
  async set(id: ProviderId, key: string, remember: boolean, baseUrl: string | null = null): Promise<void> {
    const p = keyProvider(id);
    if (!p) return;
    const trimmed = key.trim();
    const old = this.entries[p];
    const next = { ...this.entries };
    if (!trimmed) delete next[p];
    else if (old?.key !== trimmed) next[p] = { key: trimmed, binding: bindingFor(p, baseUrl) ?? defaultBinding(p) };
    this.entries = next;
    this.remembered[p] = remember;
    await this.persist(p);
  }

  /**
   * The key to send with a request to `provider` at `baseUrl` (null when there is none). When the key may not go
   * there without asking, the user is asked (`pending`); Send re-binds the key there, Cancel gives `ok: false` with a
   * message saying that nothing was sent and why. `fromLink`: the base URL came from a link.
   */
  async keyFor(id: ProviderId, baseUrl: string | null, fromLink: boolean, purpose: string): Promise<KeyForRequest> {
    const p = keyProvider(id);
    const entry = p ? this.entries[p] : undefined;
    if (!p || !entry) return { ok: true, key: null, confirmed: false };
    const d = decideKeySend(entry.binding, p, baseUrl, fromLink);
    if (d.action === 'send') return { ok: true, key: entry.key, confirmed: false };
    if (d.action === 'refuse') return { ok: false, message: d.message };
    this.answer?.(false);
    const send = await new Promise<boolean>((resolve) => {
      this.answer = resolve;
      this.pending = { purpose, question: d.question, targetHost: d.targetHost, boundHost: d.boundHost };
    });
    if (!send) return { ok: false, message: d.declined };
    // The key may have been changed or removed while the question was open: only the key that was asked about moves.
    if (this.entries[p] !== entry) return { ok: false, message: d.declined };
    this.entries = { ...this.entries, [p]: { key: entry.key, binding: { provider: p, origin: d.targetOrigin } } };
    await this.persist(p);
    return { ok: true, key: entry.key, confirmed: true };
  }

  /** The user's answer to `pending`. */
  confirm(): void {
    this.settle(true);
  }

  cancel(): void {
    this.settle(false);
  }

  private settle(send: boolean): void {
    const answer = this.answer;
    this.answer = null;
    this.pending = null;
    answer?.(send);
  }

  private async persist(p: RemoteProviderId): Promise<void> {
    const entry = this.entries[p];
    try {
      const d = await open();
      if (this.remembered[p] && entry) await d.put(STORE, toStoredRecord(entry), p);
      else await d.delete(STORE, p);
      this.error = null;
    } catch (e) {
      this.error = `The key is kept for this tab only: it could not be saved on this device (${(e as Error).message || (e as Error).name}).`;
    }
  }
}
