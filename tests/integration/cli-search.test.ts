/**
 * `rag-lab search` with seed A's separate k's (--bm25-k, --dense-k, --fusion-top-k), in-process on the embedded
 * corpus: the flags reach the Search tab's request (their effect on the ranking: tests/unit/search.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { runCli as cli } from '../helpers/cli.ts';

const json = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

describe('rag-lab search: bm25_k, dense_k, fusion_top_k', () => {
  it('the k\'s given are sent and printed; without them the JSON is as before', async () => {
    const base = await cli(['search', '--kb', 'sotu', '--top-k', '3', '--json', 'tariff on imports']);
    expect(base.code, base.stderr).toBe(0);
    const all = json(base.stdout);
    expect(Object.keys(all)).toEqual(['kb', 'mode', 'topK', 'candidateK', 'calibration', 'alpha', 'entropyBasis', 'results']);
    const r = await cli(['search', '--kb', 'sotu', '--top-k', '3', '--bm25-k', '3', '--dense-k', '7', '--fusion-top-k', '9', '--json', 'tariff on imports']);
    expect(r.code, r.stderr).toBe(0);
    const out = json(r.stdout);
    expect(out).toMatchObject({ candidateK: 20, bm25K: 3, denseK: 7, fusionTopK: 9 });
    // sparse mode: BM25's top 3 are the same three results candidate_k 20 gives
    expect(out.results[0].hits.map((h: { id: string }) => h.id)).toEqual(all.results[0].hits.map((h: { id: string }) => h.id));
  });

  it('a k out of range is a one-line error', async () => {
    const r = await cli(['search', '--kb', 'sotu', '--bm25-k', '0', 'tariff']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--bm25-k must be an integer in \[1, 1000\]/);
  });
});

describe('rag-lab search: --kb defaults to sotu', () => {
  it('without --kb it searches the embedded State of the Union corpus, as its help says', async () => {
    const r = await cli(['search', '--top-k', '3', '--json', 'emancipation of slaves']);
    expect(r.code, r.stderr).toBe(0);
    const out = json(r.stdout);
    expect(out.kb).toBe('sotu');
    expect(out.results[0].hits).toHaveLength(3);
    const help = await cli(['search', '--help']);
    expect(help.stdout).toMatch(/^Usage: rag-lab search \[--kb KB\]/);
  });
});
