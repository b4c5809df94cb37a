/**
 * API keys: kept in memory for this tab unless the user ticks "remember on this device", which stores that
 * provider's key in a separate IndexedDB database. Keys never enter the URL, settings, reports or logs.
 */
import { yieldingDatabase } from '../../lib/store/open-db.ts';
import type { ProviderId } from '../../lib/llm/types.ts';

const DB = 'rag-lab-secrets';
const STORE = 'keys';
const open = yieldingDatabase(DB, 1, (d) => { d.createObjectStore(STORE); });

export class KeysState {
  keys = $state<Partial<Record<ProviderId, string>>>({});
  remembered = $state<Partial<Record<ProviderId, boolean>>>({});
  error = $state<string | null>(null);

  async load(): Promise<void> {
    try {
      const d = await open();
      for (const id of (await d.getAllKeys(STORE)) as ProviderId[]) {
        const key = (await d.get(STORE, id)) as string | undefined;
        if (key) { this.keys[id] = key; this.remembered[id] = true; }
      }
    } catch (e) {
      this.error = `Saved keys could not be read (${(e as Error).name}); enter them again.`;
    }
  }

  get(id: ProviderId): string | null {
    return this.keys[id] || null;
  }

  async set(id: ProviderId, key: string, remember: boolean): Promise<void> {
    const trimmed = key.trim();
    this.keys[id] = trimmed;
    this.remembered[id] = remember;
    try {
      const d = await open();
      if (remember && trimmed) await d.put(STORE, trimmed, id);
      else await d.delete(STORE, id);
      this.error = null;
    } catch (e) {
      this.error = `The key is kept for this tab only: it could not be saved on this device (${(e as Error).name}).`;
    }
  }
}
