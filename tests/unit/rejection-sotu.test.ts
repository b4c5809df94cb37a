/**
 * Rejection on the app's default knowledge base (the embedded State of the Union corpus), BM25 mode at its default
 * threshold: seed B's junk query is rejected, the app's own queries are answered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sotuDocuments } from '../../src/lib/data/sotu.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { MODE_IDS, MODES } from '../../src/lib/retrieval/modes.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { SOTU_APP_QUERIES, SOTU_BENCH_QUERIES, SOTU_JUNK_QUERY } from '../../scripts/bench/sotu-queries.ts';
import { readSotuAddresses } from '../../cli/sotu-corpus.ts';

let kb: KnowledgeBase;
beforeAll(() => { kb = KnowledgeBase.build(sotuDocuments({ version: 1, addresses: readSotuAddresses() })); }, 120_000);

const SPARSE_MODES = MODE_IDS.filter((m) => !MODES[m].needsDense);

describe('rejection over the SOTU knowledge base (modes without a model)', () => {
  it('has the modes it claims to cover', () => {
    expect(SPARSE_MODES).toEqual(['sparse']);
  });

  for (const mode of SPARSE_MODES) {
    it(`${mode}: "${SOTU_JUNK_QUERY}" is rejected at the default threshold`, async () => {
      const r = await search(kb, SOTU_JUNK_QUERY, { mode });
      expect(r.status).toBe('rejected');
      if (r.status !== 'rejected') throw new Error('unreachable');
      expect(r.telemetry.confidence).toBeLessThan(DEFAULT_REJECT_THRESHOLDS[mode]);
      expect(r.reason).toMatch(/Low confidence/);
      expect(r.hits.length).toBeGreaterThan(0); // the weak hits still come back, marked rejected
    });

    it(`${mode}: every app and benchmark query is answered`, async () => {
      const statuses = await Promise.all([...SOTU_APP_QUERIES, ...SOTU_BENCH_QUERIES].map(async (q) => [q, (await search(kb, q, { mode })).status]));
      expect(statuses.filter(([, s]) => s !== 'ok')).toEqual([]);
    });
  }
});
