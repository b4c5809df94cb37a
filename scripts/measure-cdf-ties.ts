/**
 * `npx tsx scripts/measure-cdf-ties.ts --embedder-dir DIR --embedder ID`: the corpus-CDF tables of BEIR SciFact under
 * seed B's protocol (eval-beir --protocol seed-b: 800/120 chunks, plain analyzer, BM25 1.5 / 0.75, 100 pseudo-queries)
 * and, over the judged test queries, how often two of a query's top candidate_k (20) get the same CDF value although
 * their raw scores differ: with today's table (every score, interpolated: calibrate.ts cdfRank) and with the table
 * kept before issue 32 (4,096 evenly spaced order statistics, step lookup r / N). Also each table's size and bytes.
 * The dense side needs an embedder (e.g. the corpus-trained one: rag-lab train-embedder --data SCIFACT --out
 * DIR/corpus/scifact-lsi256). Prints one JSON object to stdout; progress to stderr. Options: --scifact DIR.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCorpus, parseQrels, parseQueries } from '../src/lib/data/beir.ts';
import { buildRunKb, runSettings } from '../src/lib/eval/retrieval/retrieval-session.ts';
import { loadEmbedder } from '../src/lib/models/embedder.ts';
import { configureModels } from '../src/lib/models/env.ts';
import { buildCdf, cdfCount, cdfRank, type CdfTable } from '../src/lib/retrieval/calibrate.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { noVectorStore } from '../src/lib/store/vector-cache.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { scifact: { type: 'string' }, 'embedder-dir': { type: 'string' }, embedder: { type: 'string', default: 'corpus/scifact-lsi256' } } });
const dir = values.scifact ? resolve(values.scifact) : resolve(REPO_ROOT, '../shared/data/scifact');
if (!existsSync(join(dir, 'corpus.jsonl')) || !values['embedder-dir']) {
  process.stderr.write('usage: measure-cdf-ties.ts --embedder-dir DIR [--embedder ID] [--scifact DIR]\n');
  process.exit(2);
}
const log = (s: string) => process.stderr.write(`${s}\n`);
const read = (f: string) => readFileSync(join(dir, f), 'utf8');
const settings = runSettings('seed-b');
const K = settings.candidateK ?? 20;
const qrels = parseQrels(read('qrels/test.tsv'));
const queries = parseQueries(read('queries.jsonl')).filter((q) => qrels.has(q.id));
const kb = buildRunKb(parseCorpus(read('corpus.jsonl')), settings);
log(`${kb.size} chunks; loading the embedder …`);
configureModels({ localModelPath: resolve(values['embedder-dir']), allowRemote: false });
const embedder = await loadEmbedder({ id: values.embedder, dtype: 'fp32', device: 'cpu' });
await attachDense(kb, embedder, { kbKey: 'measure', store: noVectorStore });
log('tables built; scoring the queries …');

/** The table kept before issue 32: 4,096 order statistics, looked up as a step (r / N). */
const oldRank = (t: CdfTable) => (s: number) => cdfCount(t.sorted, s) / t.sorted.length;
const newRank = (t: CdfTable) => (s: number) => cdfRank(t, s);

/** Pairs of one list with distinct raw scores and equal calibrated values; queries with at least one. */
function ties(lists: number[][], f: (s: number) => number): { pairs: number; queries: number; distinctPairs: number } {
  let pairs = 0, hit = 0, distinctPairs = 0;
  for (const xs of lists) {
    const cal = xs.map(f);
    let any = false;
    for (let i = 0; i < xs.length; i++) {
      for (let j = i + 1; j < xs.length; j++) {
        if (xs[i] === xs[j]) continue;
        distinctPairs++;
        if (cal[i] === cal[j]) { pairs++; any = true; }
      }
    }
    if (any) hit++;
  }
  return { pairs, queries: hit, distinctPairs };
}

const sparseLists: number[][] = [];
const denseLists: number[][] = [];
const qvecs = await embedder.embed(queries.map((q) => q.text), 'query');
const dim = qvecs.length / queries.length;
queries.forEach((q, i) => {
  const terms = kb.bm25.queryTerms(q.text);
  sparseLists.push(terms.length ? kb.bm25.search(terms, K, kb.itemId).map((h) => h.score) : []);
  denseLists.push(kb.dense!.search(qvecs.subarray(i * dim, (i + 1) * dim), K, kb.itemId).map((h) => h.score));
});

const report: Record<string, unknown> = { queries: queries.length, candidateK: K, chunks: kb.size };
for (const [side, table, lists] of [['sparse', kb.sparseCdf, sparseLists], ['dense', kb.denseCdf, denseLists]] as const) {
  if (!table) continue;
  const old = buildCdf([table.sorted], 4096);
  const above = lists.reduce((a, xs) => a + xs.filter((s) => s > table.sorted[table.sorted.length - 1]!).length, 0);
  report[side] = {
    table: { points: table.sorted.length, bytes: table.sorted.byteLength, queries: table.queries },
    topCandidatesAboveTableMax: above,
    ties4096Step: ties(lists, oldRank(old)),
    tiesFullStep: ties(lists, oldRank(table)),
    tiesFullInterpolated: ties(lists, newRank(table)),
  };
}
process.stdout.write(`${JSON.stringify(report)}\n`);
