/**
 * `rag-lab build-index --arxiv "QUERY" --max N` against the loopback arXiv imitation (`--arxiv-endpoint`): pages read
 * at arXiv's pace (the CLI keeps the real 3-second rule, so a two-page build waits once), the artifact searchable
 * with `search --kb`, arXiv's error feed as one line and exit 2, flags checked, and no token in any request even
 * with HF_TOKEN set.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { makePapers, startArxivServer, type ArxivServer } from '../helpers/arxiv-server.ts';
import { buildIndexCommand } from '../../cli/build-index.ts';
import { captureCommand, runCli as cli, type CliRun } from '../helpers/cli.ts';

const temps: string[] = [];
const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'rag-lab-arxiv-')); temps.push(d); return d; };
const ok = (r: CliRun) => expect(r.code, r.stderr).toBe(0);

let srv: ArxivServer;
beforeAll(async () => { srv = await startArxivServer(makePapers(130)); });
afterEach(() => { srv.requests.length = 0; srv.faults.length = 0; });
afterAll(async () => { await srv.close(); for (const d of temps) rmSync(d, { recursive: true, force: true }); });

describe('rag-lab build-index --arxiv', () => {
  test('two pages into an artifact; search finds a paper by a word of its abstract; nothing secret sent', async () => {
    const out = tempDir();
    const r = await cli(['build-index', '--arxiv', 'retrieval', '--max', '120', '--arxiv-endpoint', srv.endpoint, '--out', out],
      { HF_TOKEN: 'hf_secretsecretsecret', OPENAI_API_KEY: 'sk-secret' });
    ok(r);
    expect(r.stderr).toMatch(/data: arXiv query "retrieval" on 127\.0\.0\.1:\d+ \(120 papers\)/);
    expect(r.stderr).toMatch(/arXiv has 130 results for the query; read the first 120/);
    expect(srv.requests.map((q) => `${q.params.get('start')}+${q.params.get('max_results')}`)).toEqual(['0+100', '100+20']);
    expect(srv.requests[0]!.params.get('search_query')).toBe('all:retrieval');
    for (const q of srv.requests) {
      expect(q.headers.authorization).toBeUndefined();
      expect(JSON.stringify(q.headers) + q.url).not.toMatch(/hf_secret|sk-secret/);
    }
    const config = JSON.parse(readFileSync(join(out, 'index_config.json'), 'utf8'));
    expect(config.indexes).toMatchObject([{ id: 'arxiv-retrieval', counts: { documents: 120 } }]);
    const meta = JSON.parse(readFileSync(join(out, 'arxiv-retrieval', 'meta.json'), 'utf8'));
    expect(meta.description).toBe('arXiv: retrieval (120 papers)');
    expect(JSON.stringify(meta)).toMatch(/"name":"year"/);

    const s = await cli(['search', '--kb', out, '--json', '--top-k', '1', 'zq77x']);
    ok(s);
    const hit = JSON.parse(s.stdout.trim().split('\n').at(-1)!).results[0].hits[0];
    expect(hit).toMatchObject({ docId: '2301.00077', title: 'Study 77 of transformers: a long title', meta: { arxiv_id: '2301.00077', url: 'https://arxiv.org/abs/2301.00077v2', category: 'cs.CL', year: 2020 } });
  });

  test("arXiv's error feed: one line with arXiv's message, exit 2, nothing written", async () => {
    const out = tempDir();
    srv.faults.push({ kind: 'error', message: 'unbalanced parentheses' });
    const r = await cli(['build-index', '--arxiv', 'ti:(x', '--arxiv-endpoint', srv.endpoint, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rag-lab build-index: --arxiv: arXiv refused the query: unbalanced parentheses \(HTTP 400; search_query=ti:\(x\)\.\n$/m);
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(() => readFileSync(join(out, 'index_config.json'))).toThrow(/ENOENT/);
  });

  test('flags: --max in range, --data or --arxiv not both, --max only with --arxiv, --arxiv-sort checked', async () => {
    const out = tempDir();
    const cases: [string[], RegExp][] = [
      [['--arxiv', 'x', '--max', '5000'], /--max must be a whole number from 1 to 2000/],
      [['--arxiv', 'x', '--max', 'ten'], /--max must be a whole number/],
      [['--arxiv', '  '], /--arxiv needs a query/],
      [['--arxiv', 'x', '--data', out], /give --data or --arxiv, not both/],
      [['--data', out, '--max', '10'], /--max goes with --arxiv/],
      [['--arxiv', 'x', '--arxiv-sort', 'stars'], /--arxiv-sort must be relevance, lastUpdatedDate, submittedDate/],
      [['--arxiv', 'x', '--arxiv-endpoint', 'file:///etc/passwd'], /not an http\(s\) URL/],
    ];
    for (const [args, message] of cases) {
      const r = await captureCommand(buildIndexCommand, [...args, '--out', out]);
      expect(r.error?.exitCode, args.join(' ')).toBe(2);
      expect(r.error?.message).toMatch(message);
    }
    expect(srv.requests).toEqual([]);
  });
});
