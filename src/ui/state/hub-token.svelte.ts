/**
 * The user's Hugging Face token (`hf_…`) for private index artifacts: kept in memory for this tab unless "remember
 * on this device" is ticked (its own IndexedDB database, like the LLM keys). It never enters the URL, settings,
 * reports or logs, and it is only sent to the Hub URL set in Settings (a link can name a repo, never a host).
 */
import * as v from 'valibot';
import type { HubAccess } from '../../lib/hub/access.ts';
import { yieldingDatabase } from '../../lib/store/open-db.ts';

const DB = 'rag-lab-hub-token';
const STORE = 'token';
const KEY = 'hf';
const open = yieldingDatabase(DB, 1, (d) => { d.createObjectStore(STORE); });

/** What a Hub token looks like (user access tokens start with `hf_`). */
export const HubToken = v.pipe(v.string(), v.regex(/^hf_[A-Za-z0-9]{8,200}$/, 'a Hugging Face token starts with hf_ followed by letters and digits'));

export class HubTokenState {
  private value = $state<string | null>(null);
  remember = $state(false);
  error = $state<string | null>(null);

  get token(): string | null {
    return this.value;
  }

  get isSet(): boolean {
    return this.value !== null;
  }

  /**
   * The Hub access every state's Hub requests use: the Hub URL set in Settings (`hubUrl`, read at each call) with
   * this token as it is then. The one place the pair is made; no host from a link, report or stored setting enters.
   */
  accessFor(hubUrl: () => string): () => HubAccess {
    return () => ({ hubUrl: hubUrl(), token: this.value });
  }

  async load(): Promise<void> {
    try {
      const stored = await (await open()).get(STORE, KEY);
      if (stored === undefined) return;
      const r = v.safeParse(HubToken, stored);
      if (r.success) { this.value = r.output; this.remember = true; } else {
        await (await open()).delete(STORE, KEY);
        this.error = 'The saved Hub token was not valid and was removed; enter it again.';
      }
    } catch (e) {
      this.error = `The saved Hub token could not be read (${(e as Error).message || (e as Error).name}); enter it again.`;
    }
  }

  /** Sets (or, with an empty string, clears) the token; a malformed one is refused with a message. */
  async set(raw: string, remember: boolean): Promise<boolean> {
    const t = raw.trim();
    if (t !== '') {
      const r = v.safeParse(HubToken, t);
      if (!r.success) { this.error = `Not saved: ${r.issues[0]!.message}.`; return false; }
    }
    this.value = t || null;
    this.remember = remember;
    this.error = null;
    try {
      const d = await open();
      if (remember && this.value) await d.put(STORE, this.value, KEY);
      else await d.delete(STORE, KEY);
    } catch (e) {
      this.error = `The token is kept for this tab only: it could not be saved on this device (${(e as Error).message || (e as Error).name}).`;
    }
    return true;
  }
}
