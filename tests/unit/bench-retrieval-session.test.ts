/**
 * The Benchmark tab's retrieval benchmark session (retrieval-tab-session.ts) in Node: a picked BEIR folder read and
 * counted, a BM25 run over it with its rows cached, the messages of a missing folder, split, knowledge base or dense
 * side, and the α simulator's need of a last run.
 */
import { describe, expect, test } from 'vitest';
import type { BeirFileEntry } from '../../src/lib/data/beir-folder.ts';
import { BenchRetrievalSession } from '../../src/lib/eval/retrieval/retrieval-tab-session.ts';
import type { RetrievalBenchConfig } from '../../src/lib/eval/retrieval/retrieval-tab-config.ts';
import { MemoryRetrievalRowCache } from '../../src/lib/eval/retrieval/retrieval-cache.ts';
import { MemoryLocalKbStore, missingMessage } from '../../src/lib/store/local-kb-store.ts';

const entries = (files: Record<string, string>): BeirFileEntry[] => Object.entries(files).map(([path, text]) => ({ path, read: async () => text }));
const folder = entries({
  'toy/corpus.jsonl': ['{"_id":"d1","title":"Alpha","text":"alpha particles decay"}', '{"_id":"d2","title":"Beta","text":"beta waves in sleep"}', '{"_id":"d3","title":"Gamma","text":"gamma rays from stars"}'].join('\n'),
  'toy/queries.jsonl': ['{"_id":"q1","text":"alpha decay"}', '{"_id":"q2","text":"sleep waves"}'].join('\n'),
  'toy/qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n',
});
const unused = () => { throw new Error('not used'); };
function session(cache = new MemoryRetrievalRowCache()) {
  return new BenchRetrievalSession({
    artifacts: { hubSource: unused, openArtifact: unused }, localKbs: () => new MemoryLocalKbStore(), cache, runtime: { runtime: 'node', agent: 'test' },
  });
}
const config = (over: Partial<RetrievalBenchConfig> = {}): RetrievalBenchConfig => ({ source: { kind: 'files' }, modes: ['sparse'], split: 'test', maxQueries: null, seed: 0, predictors: false, ...over });
const never = new AbortController().signal;

describe('BenchRetrievalSession', () => {
  test('a picked folder is counted; a BM25 run over it scores every judged query and caches its rows', async () => {
    const cache = new MemoryRetrievalRowCache();
    const s = session(cache);
    expect(await s.loadFolder(folder)).toEqual({ documents: 3, queries: 2, judged: 2, splits: ['test'], issues: [], error: null });
    const r = await s.run(config(), null, null, never, () => {});
    expect(r.modes.map((m) => [m.mode, m.queries, m.cached])).toEqual([['sparse', 2, 0]]);
    expect([r.judged, r.unjudged, r.simulator]).toEqual([2, 0, false]);
    expect(r.report.rows).toHaveLength(2);
    expect(cache.rows.size).toBe(2);
    expect((await s.run(config(), null, null, never, () => {})).modes[0]!.cached).toBe(2);
  });

  test('a folder that cannot be read gives its reason, not a throw', async () => {
    const r = await session().loadFolder(entries({ 'toy/queries.jsonl': '' }));
    expect(r).toMatchObject({ documents: 0, queries: 0, judged: 0, splits: [], issues: [] });
    expect(r.error).toMatch(/corpus\.jsonl/);
  });

  test('what a run cannot do is said: no mode, no folder, a split the folder lacks, a knowledge base not here', async () => {
    const s = session();
    await expect(s.run(config({ modes: [] }), null, null, never, () => {})).rejects.toThrow('Choose at least one mode.');
    await expect(s.run(config(), null, null, never, () => {})).rejects.toThrow('No BEIR folder is loaded (the page was reloaded?): pick the folder again.');
    await s.loadFolder(folder);
    await expect(s.run(config({ split: 'dev' }), null, null, never, () => {})).rejects.toThrow('qrels/dev.tsv is not in the folder toy (it has qrels/test.tsv): choose one of those splits.');
    await expect(s.run(config({ source: { kind: 'kb', ref: { kind: 'local', name: 'gone' }, hubUrl: 'http://hub.test' } }), null, null, never, () => {}))
      .rejects.toThrow(missingMessage('gone'));
  });

  test('the α simulator needs a last run with a dense side', async () => {
    const s = session();
    const embed = async () => new Float32Array(4);
    await expect(s.fusionCandidates('q1', { embed })).rejects.toThrow('Run a retrieval benchmark first: the α simulator reads the last run.');
    await s.loadFolder(folder);
    await s.run(config(), null, null, never, () => {});
    await expect(s.fusionCandidates('q1', { embed })).rejects.toThrow(/^The last run had no dense side/);
  });
});
