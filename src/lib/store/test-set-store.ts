/**
 * Test sets of knowledge bases kept in this browser (IndexedDB 'test-sets', one record each) and the LLM replies they
 * were written from ('test-set-replies', by chunk hash, provider, model and prompt version: a cancelled or failed
 * writing resumes without paying twice). A test set records what it was made from: its kind and provenance (model,
 * prompt version, seed), the knowledge base's id and content hash (a changed knowledge base makes it stale) and the
 * seed of its tuning / held-out split. Records are checked as they are read back; a misshapen one is skipped and named.
 */
import * as v from 'valibot';
import { database } from './db.ts';
import { checkRecord } from './record-schemas.ts';

export const TEST_SET_KINDS = ['llm', 'imported', 'pseudo'] as const;
export type TestSetKind = (typeof TEST_SET_KINDS)[number];

export interface StoredTestSet {
  id: string;
  kbId: string;
  kbTitle: string;
  /** The knowledge base's content hash when the test set was made (KbInfo.corpusHash). */
  corpusHash: string;
  label: string;
  kind: TestSetKind;
  /** What made it: provider, model, prompt version, seed, file name… (no key, ever). */
  provenance: Record<string, string | number>;
  queries: Array<{ id: string; text: string }>;
  /** Query id → [document id, relevance] pairs. */
  qrels: Array<[string, Array<[string, number]>]>;
  /** The seed of its tuning / held-out split (tune/split.ts). */
  splitSeed: number;
  notes: string[];
  savedAt: number;
}

const str = v.string(), num = v.number();
const TestSetSchema = v.object({
  id: str, kbId: str, kbTitle: str, corpusHash: str, label: str, kind: v.picklist(TEST_SET_KINDS),
  provenance: v.record(str, v.union([str, num])),
  queries: v.array(v.object({ id: str, text: str })),
  qrels: v.array(v.tuple([str, v.array(v.tuple([str, num]))])),
  splitSeed: num, notes: v.array(str), savedAt: num,
});
const RecordSchema = v.object({ key: str, value: TestSetSchema });

export interface TestSetStore {
  /** The test sets of one knowledge base (by id), newest first; `skipped` names records that could not be read. */
  list(kbId: string): Promise<{ sets: StoredTestSet[]; skipped: string[] }>;
  get(id: string): Promise<StoredTestSet | null>;
  put(set: StoredTestSet): Promise<void>;
  delete(id: string): Promise<void>;
}

/** The LLM replies a test set is written from (tune/llm-test-set.ts TestSetReplyCache). */
export interface ReplyStore {
  get(key: string): Promise<string | null>;
  set(key: string, reply: string): Promise<void>;
}

const SETS = 'test-sets', REPLIES = 'test-set-replies';

export const indexedDbTestSetStore: TestSetStore = {
  async list(kbId) {
    const db = await database();
    const sets: StoredTestSet[] = [], skipped: string[] = [];
    for (const rec of await db.getAll(SETS) as unknown[]) {
      const check = checkRecord(RecordSchema, rec, 'A stored test set');
      if (!check.ok) { skipped.push(check.reason); continue; }
      const set = (rec as { value: StoredTestSet }).value;
      if (set.kbId === kbId) sets.push(set);
    }
    return { sets: sets.sort((a, b) => b.savedAt - a.savedAt), skipped };
  },
  async get(id) {
    const rec: unknown = await (await database()).get(SETS, id);
    return rec !== undefined && checkRecord(RecordSchema, rec, 'The stored test set').ok ? (rec as { value: StoredTestSet }).value : null;
  },
  async put(set) {
    await (await database()).put(SETS, { key: set.id, value: set });
  },
  async delete(id) {
    await (await database()).delete(SETS, id);
  },
};

export const indexedDbReplyStore: ReplyStore = {
  async get(key) {
    try {
      const rec: unknown = await (await database()).get(REPLIES, key);
      return rec !== undefined && checkRecord(v.object({ key: str, reply: str }), rec, 'A cached reply').ok ? (rec as { reply: string }).reply : null;
    } catch {
      return null;
    }
  },
  async set(key, reply) {
    // A reply that cannot be cached is only asked again on a resume.
    try { await (await database()).put(REPLIES, { key, reply, savedAt: Date.now() }); } catch { /* quota or a closed database */ }
  },
};

/** The same in memory (Node, tests). */
export function memoryTestSetStore(): TestSetStore {
  const m = new Map<string, StoredTestSet>();
  return {
    list: async (kbId) => ({ sets: [...m.values()].filter((s) => s.kbId === kbId).sort((a, b) => b.savedAt - a.savedAt), skipped: [] }),
    get: async (id) => m.get(id) ?? null,
    put: async (s) => void m.set(s.id, structuredClone(s)),
    delete: async (id) => void m.delete(id),
  };
}
