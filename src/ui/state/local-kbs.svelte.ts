/**
 * The knowledge bases built in this browser: the one owner of their list (KbState derives the picker's local
 * entries from it, the Build tab lists them). Reads and changes go to the local store (IndexedDB); a store that
 * cannot be read leaves a message and an empty list, the rest of the app works.
 */
import type { LocalKbMeta } from '../../lib/data/local-kb-meta.ts';
import type { LocalKbStore } from '../../lib/store/local-kb-store.ts';
import { MAX_TITLE } from '../../lib/store/local-kb-store.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)) || 'unknown error';

export class LocalKbsState {
  /** Newest first. */
  list = $state.raw<LocalKbMeta[]>([]);
  loaded = $state(false);
  /** Why the list could not be read or a change failed (the list stays as it was). */
  error = $state<string | null>(null);
  private readonly removeListeners: ((name: string) => void)[] = [];
  /** Resolves once the list was read the first time (read or not: see `error`). */
  readonly ready: Promise<void>;

  constructor(private readonly store: LocalKbStore | null) {
    this.ready = this.reload();
  }

  /** A problem the store met while reading (a damaged entry it skipped): shown like a failed read. */
  noteProblem(message: string): void {
    this.error = message;
  }

  /** Runs `listener` after each knowledge base removed here (KbState opens the default one if it was open). */
  onRemove(listener: (name: string) => void): void {
    this.removeListeners.push(listener);
  }

  readonly names = $derived(this.list.map((m) => m.name));

  find(name: string): LocalKbMeta | null {
    return this.list.find((m) => m.name === name) ?? null;
  }

  async reload(): Promise<void> {
    if (!this.store) {
      this.loaded = true;
      return;
    }
    this.error = null; // a damaged entry skipped while reading sets it again (the store's onProblem)
    try {
      const list = await this.store.list();
      this.list = [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.name.localeCompare(b.name));
    } catch (e) {
      this.error = `The knowledge bases built in this browser could not be read: ${message(e)}`;
    } finally {
      this.loaded = true;
    }
  }

  /** Changes the title shown (the name, its id in links, stays). */
  async rename(name: string, title: string): Promise<boolean> {
    const t = title.trim();
    if (!t || t.length > MAX_TITLE) {
      this.error = `A title needs 1 to ${MAX_TITLE} characters (${name} keeps its title).`;
      return false;
    }
    if (!this.store) return false;
    try {
      const meta = await this.store.rename(name, t);
      this.list = this.list.map((m) => (m.name === name ? meta : m));
      this.error = null;
      return true;
    } catch (e) {
      this.error = `${name} could not be renamed: ${message(e)}`;
      return false;
    }
  }

  /** Deletes it with its cached vectors and vector-index graphs. */
  async remove(name: string): Promise<boolean> {
    if (!this.store) return false;
    try {
      await this.store.remove(name);
      this.list = this.list.filter((m) => m.name !== name);
      this.error = null;
      for (const listener of this.removeListeners) listener(name);
      return true;
    } catch (e) {
      this.error = `${name} could not be deleted: ${message(e)}`;
      return false;
    }
  }
}
