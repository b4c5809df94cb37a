/**
 * A knowledge base as a .zip (the Build tab's export, made here with artifactZip from a build-index folder) read by
 * the CLI: `search --kb kb.zip` answers as `--kb <folder>` does, and `build-index --data kb.zip` (or an artifact
 * folder) builds its documents, queries and qrels again with the flags given. Faults: one line, exit 2.
 */
import { strToU8, zipSync } from 'fflate';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseIndexConfig } from '../../src/lib/artifact/format.ts';
import { artifactZip } from '../../src/lib/artifact/zip.ts';
import { SCIFACT, scifactSubset } from '../helpers/beir-subset.ts';
import { runCli as cli, type CliRun } from '../helpers/cli.ts';

const temps: string[] = [];
function tempDir(prefix = 'rag-lab-zip-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });
const ok = (r: CliRun) => expect(r.code, r.stderr).toBe(0);
const lastJson = (r: CliRun) => JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { kb: string; results: Array<{ query: string; hits: unknown[] }> };
const oneLine = (r: CliRun, pattern: RegExp) => {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
};

/** Every file under `dir`, by POSIX path relative to it. */
function filesOf(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p).split('\\').join('/'), new Uint8Array(readFileSync(p)));
    }
  };
  walk(dir);
  return out;
}

let built: string;
let zipPath: string;
const QUERIES = ['vitamin D deficiency', 'cancer cells', 'blood pressure'];
beforeAll(async () => {
  expect(existsSync(join(SCIFACT, 'corpus.jsonl')), `SciFact not found at ${SCIFACT}`).toBe(true);
  const beir = scifactSubset({ queries: 8, others: 40, name: 'scifact-mini', parent: tempDir('rag-lab-scifact-') });
  built = tempDir();
  ok(await cli(['build-index', '--data', beir, '--out', built, '--title', 'SciFact mini']));
  const entry = parseIndexConfig(JSON.parse(readFileSync(join(built, 'index_config.json'), 'utf8'))).indexes[0]!;
  // The Build tab's export: the index's files (meta.json last, as stored) under <name>/, and index_config.json.
  const files = filesOf(join(built, 'scifact-mini'));
  const ordered = new Map([...files].filter(([p]) => p !== 'meta.json').concat([['meta.json', files.get('meta.json')!]]));
  zipPath = join(tempDir(), 'scifact-mini.zip');
  writeFileSync(zipPath, artifactZip('scifact-mini', entry, ordered));
}, 300_000);

describe('a knowledge-base .zip in the CLI', () => {
  test('search --kb kb.zip --json gives the hits of --kb <folder>', async () => {
    const fromZip = await cli(['search', '--kb', zipPath, '--json', '--top-k', '5', ...QUERIES]);
    ok(fromZip);
    const fromFolder = await cli(['search', '--kb', built, '--json', '--top-k', '5', ...QUERIES]);
    ok(fromFolder);
    const z = lastJson(fromZip), f = lastJson(fromFolder);
    expect(z.kb).toBe(`${zipPath}#scifact-mini`);
    for (const r of z.results) expect(r.hits.length, r.query).toBeGreaterThan(0);
    expect(z.results).toEqual(f.results);
    expect(fromZip.stderr).toMatch(/opened .*scifact-mini\.zip#scifact-mini: \d+ documents/);
  }, 120_000);

  test('build-index --data kb.zip builds the same documents again: its chunking by default, or the flags\'', async () => {
    const same = tempDir();
    let r = await cli(['build-index', '--data', zipPath, '--out', same]);
    ok(r);
    expect(r.stderr).toMatch(/data: artifact zip .*scifact-mini\.zip#scifact-mini \(\d+ documents, 8 queries; built again/);
    const cfg = parseIndexConfig(JSON.parse(readFileSync(join(same, 'index_config.json'), 'utf8')));
    expect(cfg.indexes.map((e) => [e.id, e.title])).toEqual([['scifact-mini', 'SciFact mini']]);
    // Whole documents as the original (BEIR): the same tables, byte for byte.
    for (const f of ['docs.parquet', 'chunks.parquet', 'queries.parquet', 'qrels.parquet', 'bm25/terms.json']) {
      expect(readFileSync(join(same, 'scifact-mini', f)), f).toEqual(readFileSync(join(built, 'scifact-mini', f)));
    }

    const rechunked = tempDir();
    r = await cli(['build-index', '--data', zipPath, '--out', rechunked, '--id', 'small-chunks', '--chunk', '300/50']);
    ok(r);
    const meta = JSON.parse(readFileSync(join(rechunked, 'small-chunks/meta.json'), 'utf8')) as { chunking: { size: number; overlap: number }; counts: { documents: number; chunks: number; queries: number } };
    const before = JSON.parse(readFileSync(join(built, 'scifact-mini/meta.json'), 'utf8')) as typeof meta;
    expect(meta.chunking).toMatchObject({ size: 300, overlap: 50 });
    expect(meta.counts.documents).toBe(before.counts.documents);
    expect(meta.counts.chunks).toBeGreaterThan(before.counts.chunks);
    expect(meta.counts.queries).toBe(8);
    expect(readFileSync(join(rechunked, 'small-chunks/docs.parquet'))).toEqual(readFileSync(join(built, 'scifact-mini/docs.parquet')));

    // An artifact folder works as --data too.
    const again = tempDir();
    r = await cli(['build-index', '--data', built, '--out', again, '--id', 'copy']);
    ok(r);
    expect(r.stderr).toMatch(/data: artifact folder .*#scifact-mini/);
    expect(statSync(join(again, 'copy/meta.json')).isFile()).toBe(true);
  }, 300_000);

  test('a damaged zip, a zip without index_config.json, an unknown #index: one line, exit 2', async () => {
    const dir = tempDir();
    const cut = join(dir, 'cut.zip');
    writeFileSync(cut, readFileSync(zipPath).subarray(0, 2000));
    oneLine(await cli(['search', '--kb', cut, 'cancer']), /cut\.zip: is not a readable zip file \(no end of central directory\): it is damaged or cut short/);
    oneLine(await cli(['build-index', '--data', cut, '--out', join(dir, 'out')]), /cut\.zip: is not a readable zip file/);
    const empty = join(dir, 'other.zip');
    // A valid zip holding no index_config.json.
    writeFileSync(empty, zipSync({ 'notes.txt': strToU8('hello') }));
    oneLine(await cli(['search', '--kb', empty, 'cancer']), /other\.zip: not an index artifact zip \(no index_config\.json\)/);
    oneLine(await cli(['search', '--kb', `${zipPath}#nope`, 'cancer']), /no index "nope" \(it has scifact-mini\)/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    // 100,000 listed indexes: the line names the first ten and counts the rest (not a 789 KB line).
    const many = join(dir, 'many.zip');
    const entry = { title: 't', description: '', counts: { documents: 1, chunks: 1 }, embedder: null, created: '2024-01-01T00:00:00Z', format_version: 1 };
    const indexes = Array.from({ length: 100_000 }, (_, i) => ({ ...entry, id: `index-${i}`, path: `i${i}` }));
    writeFileSync(many, zipSync({ 'index_config.json': strToU8(JSON.stringify({ format_version: 1, indexes })) }));
    const r = await cli(['search', '--kb', many, 'cancer']);
    oneLine(r, /100000 indexes \(index-0, index-1, .*, index-9, … and 99,990 more\); pick one/);
    expect(r.stderr.length).toBeLessThan(1000);
  }, 120_000);
});
