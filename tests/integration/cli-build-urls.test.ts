/**
 * `rag-lab build-index --urls FILE` over a loopback site of three pages (plus pages that fail): an artifact whose
 * search hits carry their URLs (`search --kb … --json`), each failing page named on stderr with its reason, the build
 * failing with one line only when no page could be used; `--search` through a loopback SearXNG, a search endpoint
 * that is down as one line; the flags checked before any request; no token in any request even with HF_TOKEN set.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildIndexCommand } from '../../cli/build-index.ts';
import { captureCommand, runCli as cli, type CliRun } from '../helpers/cli.ts';
import { startSearxng, startWebSite, type Searxng, type WebSite } from '../helpers/web-site-server.ts';

const temps: string[] = [];
const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'rag-lab-urls-')); temps.push(d); return d; };
const ok = (r: CliRun) => expect(r.code, r.stderr).toBe(0);
const SECRETS = { HF_TOKEN: 'hf_urlsSecretSecret', OPENAI_API_KEY: 'sk-urls-secret' };

let site: WebSite;
let searx: Searxng;
beforeAll(async () => {
  site = await startWebSite({
    '/herons': { kind: 'page', body: '<html><head><title>Grey herons</title></head><body><nav>Home</nav><p>Grey herons nest in tall trees, in colonies called heronries.</p></body></html>' },
    '/kingfishers': { kind: 'page', body: '<title>Kingfishers</title><p>The kingfisher dives for small fish from a low perch.</p>' },
    '/old-owls': { kind: 'redirect', to: '/owls' },
    '/owls': { kind: 'page', body: 'Barn owls hunt voles at night over rough grassland.', type: 'text/plain' },
    '/photo': { kind: 'page', body: 'GIF89a', type: 'image/gif' },
    '/elsewhere': { kind: 'redirect', to: 'http://localhost:1/x' },
  });
  searx = await startSearxng({ 'heron colonies': [{ url: `${site.origin}/herons`, title: 'Herons' }, { url: `${site.origin}/kingfishers` }] });
});
afterAll(async () => { await searx?.close(); await site?.close(); for (const d of temps) rmSync(d, { recursive: true, force: true }); });

const urlFile = (dir: string, lines: string[]) => { const f = join(dir, 'birds.txt'); writeFileSync(f, `${lines.join('\n')}\n`); return f; };

describe('rag-lab build-index --urls', () => {
  test('three pages into an artifact whose hits carry their URLs; the failing pages named; nothing secret sent', async () => {
    const dir = tempDir();
    const out = join(dir, 'kb');
    const file = urlFile(dir, [
      '# birds of the loopback site',
      `${site.origin}/herons`,
      `${site.origin}/kingfishers   # a comment`,
      `${site.origin}/old-owls`,
      `${site.origin}/photo`,
      `${site.origin}/missing`,
      `${site.origin}/elsewhere`,
      'ftp://files.example/birds.txt',
    ]);
    const r = await cli(['build-index', '--urls', file, '--out', out], SECRETS);
    ok(r);
    expect(r.stderr).toContain(`data: web pages from ${file} (3 of 6 pages read)`);
    expect(r.stderr).toContain('skipped 4 pages:');
    expect(r.stderr).toContain('  line 8: ftp://files.example/birds.txt: not an http(s) URL (ftp:): only web pages are fetched');
    expect(r.stderr).toContain(`  ${site.origin}/photo: not an HTML or plain-text page (content type image/gif)`);
    expect(r.stderr).toContain(`  ${site.origin}/missing: HTTP 404 (not found)`);
    expect(r.stderr).toContain(`  ${site.origin}/elsewhere: redirected to another host (localhost:1); not followed: list that URL itself if you want it`);
    for (const q of site.requests) {
      expect(q.headers.authorization).toBeUndefined();
      expect(JSON.stringify(q.headers) + q.url).not.toMatch(/hf_urls|sk-urls/);
    }
    const config = JSON.parse(readFileSync(join(out, 'index_config.json'), 'utf8'));
    expect(config.indexes).toMatchObject([{ id: 'birds', counts: { documents: 3 } }]);
    const meta = JSON.parse(readFileSync(join(out, 'birds', 'meta.json'), 'utf8'));
    expect(meta.description).toBe('Web pages (3 pages)');

    const s = await cli(['search', '--kb', out, '--json', '--top-k', '1', 'heronries', 'voles grassland']);
    ok(s);
    const results = JSON.parse(s.stdout.trim().split('\n').at(-1)!).results;
    expect(results[0].hits[0]).toMatchObject({ docId: `${site.origin}/herons`, title: 'Grey herons', meta: { url: `${site.origin}/herons`, format: 'html' } });
    // A same-host redirect is followed: the document is the listed URL, its url where it was read.
    expect(results[1].hits[0]).toMatchObject({ docId: `${site.origin}/old-owls`, meta: { url: `${site.origin}/owls`, format: 'text', site: new URL(site.origin).host } });
  });

  test('no usable page: one line naming the pages and why, exit 2, nothing written', async () => {
    const dir = tempDir();
    const file = urlFile(dir, [`${site.origin}/photo`, `${site.origin}/missing`]);
    const r = await cli(['build-index', '--urls', file, '--out', join(dir, 'kb')]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').at(-2)).toBe(`rag-lab build-index: --urls ${file}: None of the 2 pages could be used (${site.origin}/photo: not an HTML or plain-text page (content type image/gif); ${site.origin}/missing: HTTP 404 (not found)).`);
    expect(() => readFileSync(join(dir, 'kb', 'index_config.json'))).toThrow(/ENOENT/);
  });

  test('--search through a SearXNG endpoint; an endpoint that is down is one line', async () => {
    const dir = tempDir();
    const out = join(dir, 'kb');
    const r = await cli(['build-index', '--search', 'heron colonies', '--search-endpoint', searx.endpoint, '--max', '5', '--out', out], SECRETS);
    ok(r);
    expect(r.stderr).toContain(`data: web pages from the search "heron colonies" on ${new URL(searx.endpoint).host} (2 of 2 pages read)`);
    // Fewer results than asked for: the next result page is asked, and is empty.
    expect(searx.requests.map((q) => q.url)).toEqual(['/search?q=heron+colonies&format=json&pageno=1', '/search?q=heron+colonies&format=json&pageno=2']);
    expect(r.stderr).toContain('the search found 2 of the 5 URLs asked for');
    for (const q of searx.requests) expect(JSON.stringify(q.headers) + q.url).not.toMatch(/hf_urls|sk-urls/);
    const config = JSON.parse(readFileSync(join(out, 'index_config.json'), 'utf8'));
    expect(config.indexes).toMatchObject([{ id: 'web-heron-colonies', counts: { documents: 2 } }]);

    const down = await cli(['build-index', '--search', 'x', '--search-endpoint', 'http://127.0.0.1:1', '--out', join(dir, 'kb2')]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/^rag-lab build-index: --search: Could not reach the search endpoint \(127\.0\.0\.1:1\): no answer \(is SearXNG running there\?\)\.\n$/m);
    searx.faults.push({ kind: 'malformed' });
    const bad = await cli(['build-index', '--search', 'heron colonies', '--search-endpoint', searx.endpoint, '--out', join(dir, 'kb3')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--search: the search endpoint \(127\.0\.0\.1:\d+\) did not answer with JSON \(got application\/json, HTTP 200\)/);
  });

  test('a password in a URL is never printed back: --search-endpoint, --urls (the error and the skipped lines), as ask --base-url', async () => {
    const dir = tempDir();
    const endpoint = await cli(['build-index', '--search', 'x', '--search-endpoint', 'http://u:hunter2pw@127.0.0.1:9', '--out', join(dir, 'kb0')]);
    expect(endpoint.code).toBe(2);
    expect(endpoint.stderr).toContain('got "http://[redacted]@127.0.0.1:9"');
    const only = await cli(['build-index', '--urls', urlFile(dir, ['https://user:hunter2pw@example.org/a']), '--out', join(dir, 'kb1')]);
    expect(only.code).toBe(2);
    expect(only.stderr).toContain('(line 1: https://[redacted]@example.org/a: has a user name or password in it');
    const mixed = await cli(['build-index', '--urls', urlFile(dir, [`http://u:hunter2pw@${new URL(site.origin).host}/kingfishers`, `${site.origin}/herons`]), '--out', join(dir, 'kb2')]);
    ok(mixed);
    expect(mixed.stderr).toContain(`  line 1: http://[redacted]@${new URL(site.origin).host}/kingfishers: has a user name or password in it`);
    const ask = await cli(['ask', '--provider', 'openai-compatible', '--base-url', 'http://u:hunter2pw@[bad', '--model', 'm', 'q']);
    for (const r of [endpoint, only, mixed, ask]) expect(r.stdout + r.stderr).not.toContain('hunter2pw');
  });

  test('flags and the URL file checked before any request', async () => {
    const dir = tempDir();
    const out = join(dir, 'kb');
    const file = urlFile(dir, [`${site.origin}/herons`]);
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'big.txt'), 'x'.repeat(1_000_001));
    const before = site.requests.length;
    const cases: [string[], RegExp][] = [
      [['--urls', file, '--data', dir], /give --urls \/ --search or --data, not both/],
      [['--search', 'x', '--arxiv', 'y'], /give --urls \/ --search or --arxiv, not both/],
      [['--urls', file, '--max', '5'], /--max goes with --arxiv or --search/],
      [['--search', 'x'], /--search needs --search-endpoint URL/],
      [['--urls', file, '--search-endpoint', searx.endpoint], /--search-endpoint goes with --search/],
      [['--search', 'x', '--search-endpoint', 'ftp://searx.example'], /--search-endpoint must be an http\(s\) URL, got "ftp:\/\/searx.example"/],
      [['--search', 'x', '--search-endpoint', searx.endpoint, '--max', '500'], /--max must be a whole number from 1 to 200 with --search/],
      [['--search', ' ', '--search-endpoint', searx.endpoint], /--search needs a query/],
      [['--urls', join(dir, 'nope.txt')], /--urls .*nope\.txt: not found \(give a text file with one URL a line\)/],
      [['--urls', join(dir, 'folder')], /--urls .*folder: not a regular file/],
      [['--urls', join(dir, 'big.txt')], /--urls .*big\.txt: 1,000,001 bytes, over the 1,000,000 bytes a URL list may have/],
    ];
    for (const [args, message] of cases) {
      const r = await captureCommand(buildIndexCommand, [...args, '--out', out]);
      expect(r.error?.exitCode, args.join(' ')).toBe(2);
      expect(r.error?.message, args.join(' ')).toMatch(message);
    }
    expect(site.requests.length).toBe(before);
    const help = await cli(['build-index', '--help']);
    expect(help.stdout).toMatch(/--urls FILE {10}index web pages/);
    expect(help.stdout).toMatch(/--search-endpoint URL with --search: a SearXNG instance/);
  });
});
