/**
 * `npx tsx scripts/bench-artifact-bm25.ts [--reps N] [--copies N]`: BM25 postings shipped in the artifact vs BM25
 * rebuilt from the chunk text on open, for the SOTU corpus (800/120 chunks, ≈ 16.5k) and SOTU × `--copies`
 * (default 6, ≈ 100k chunks; the copies get other document ids). Both open the same BM25-only artifact from memory
 * with `openArtifact` (SHA-256 of every file, parquet parse of docs and chunks, sparse CDF table read) and differ
 * only in BM25: 'postings' reads bm25/*.npy + terms.json, 'rebuild' tokenises and indexes every chunk. Prints a
 * table (minimum and median of --reps timed opens after one warm-up) and the bytes each variant ships.
 */
import { parseArgs } from 'node:util';
import { memorySource } from '../src/lib/artifact/memory-source.ts';
import { openArtifact } from '../src/lib/artifact/read.ts';
import { writeArtifact } from '../src/lib/artifact/write.ts';
import type { SourceDocument } from '../src/lib/retrieval/document.ts';
import { sotuDocuments } from '../src/lib/data/sotu.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { sotuCorpusJson } from '../cli/sotu-corpus.ts';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, copies: { type: 'string', default: '6' } } });
const reps = Math.max(1, Number(values.reps));
const copies = Math.max(1, Number(values.copies));

const sotu = sotuDocuments(JSON.parse(sotuCorpusJson()));
const many: SourceDocument[] = [];
for (let c = 0; c < copies; c++) for (const d of sotu) many.push({ ...d, id: c === 0 ? d.id : `${d.id}~${c}` });

const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]! };
};

async function timeOpen(files: Map<string, Uint8Array>): Promise<{ min: number; median: number; firstQueryMs: number }> {
  const source = memorySource(files);
  await openArtifact(source, '', { dense: 'none' }); // warm-up
  const times: number[] = [];
  let firstQueryMs = 0;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const a = await openArtifact(source, '', { dense: 'none' });
    const t1 = performance.now();
    a.kb.bm25.search('tariff on imported goods', 10, a.kb.itemId);
    firstQueryMs = performance.now() - t1;
    times.push(t1 - t0);
  }
  return { ...stats(times), firstQueryMs };
}

const rows: string[][] = [];
for (const [name, docs] of [['SOTU', sotu], [`SOTU × ${copies}`, many]] as const) {
  process.stderr.write(`${name}: building the knowledge base…\n`);
  const kb = KnowledgeBase.build(docs);
  const base = { id: 'bench', title: name, fields: [], kb, created: '2026-01-01T00:00:00.000Z' };
  const postings = await writeArtifact({ ...base, bm25: 'postings' });
  const rebuild = await writeArtifact({ ...base, bm25: 'rebuild' });
  const bm25Bytes = [...postings.files].filter(([p]) => p.startsWith('bm25/')).reduce((a, [, b]) => a + b.byteLength, 0);
  const total = (f: Map<string, Uint8Array>) => [...f.values()].reduce((a, b) => a + b.byteLength, 0);
  process.stderr.write(`${name}: timing ${reps} opens each…\n`);
  const p = await timeOpen(postings.files);
  const r = await timeOpen(rebuild.files);
  rows.push([name, String(kb.size), mb(bm25Bytes), mb(total(postings.files)), mb(total(rebuild.files)),
    `${p.min.toFixed(0)} / ${p.median.toFixed(0)}`, `${r.min.toFixed(0)} / ${r.median.toFixed(0)}`, `${(r.median / p.median).toFixed(2)}×`]);
}

const head = ['corpus', 'chunks', 'postings files', 'artifact (postings)', 'artifact (rebuild)', 'open, postings ms (min / median)', 'open, rebuild ms (min / median)', 'rebuild / postings'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line(head));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log(`\nNode ${process.version}, ${reps} timed opens after one warm-up; both variants include SHA-256 of every file and the parquet parse of docs and chunks.`);
