/**
 * `npm run bench:qpp`: what the query performance predictors cost per query (src/lib/eval/analysis/qpp.ts `queryPredictors`)
 * on BEIR SciFact (whole documents, titles indexed, BM25 corpus-CDF table as eval-beir builds it), over the judged
 * test queries. Lists are 1000 deep (QPP_DEFAULTS). Two settings: BM25 list only, and BM25 + a dense list from
 * seeded random unit vectors (384-d; cost only, the dense numbers mean nothing). Retrieval of the lists is not
 * timed; the first clarity call builds the doc-major forward index of the postings (timed apart, once per index).
 * Beside the cost it prints a sanity figure: each BM25 predictor's Pearson r (p), Spearman and Kendall against BM25's
 * per-query NDCG@10, with a 1,000-resample interval of r (seed 0) — the sparse half of H1, no model needed — and
 * what one 10,000-resample `correlationCi` of 300 pairs costs per statistic.
 * Prints one JSON object to stdout; progress to stderr.
 *
 * Options: --scifact DIR (default ../shared/data/scifact next to the repo), --reps N (timed passes, default 3,
 * after one warm-up pass), --entropy-k N (default 100).
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCorpus, parseQrels, parseQueries } from '../src/lib/data/beir.ts';
import { clarity, QPP_DEFAULTS, queryPredictors, type QueryLists } from '../src/lib/eval/analysis/qpp.ts';
import { correlationCi, kendallTauB, pearson, pearsonR, spearman } from '../src/lib/stats/correlation.ts';
import { ndcgAt } from '../src/lib/stats/ir-metrics.ts';
import { mean, percentile } from '../src/lib/stats/summary.ts';
import { seededRandom } from '../src/lib/random.ts';
import { ExactDenseIndex } from '../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { scifact: { type: 'string' }, reps: { type: 'string', default: '3' }, 'entropy-k': { type: 'string', default: '100' } } });
const dir = values.scifact ? resolve(values.scifact) : resolve(REPO_ROOT, '../shared/data/scifact');
const reps = Math.max(1, Number(values.reps) || 3);
const entropyK = Math.max(1, Number(values['entropy-k']) || 100);
if (!existsSync(join(dir, 'corpus.jsonl'))) {
  process.stderr.write(`SciFact not found at ${dir} (corpus.jsonl); pass --scifact DIR\n`);
  process.exit(2);
}
const log = (s: string) => process.stderr.write(`${s}\n`);

const read = (f: string) => readFileSync(join(dir, f), 'utf8');
const docs = parseCorpus(read('corpus.jsonl'));
const qrels = parseQrels(read('qrels/test.tsv'));
const queries = parseQueries(read('queries.jsonl')).filter((q) => qrels.has(q.id));
log(`SciFact: ${docs.length} documents, ${queries.length} judged test queries; building BM25 …`);
const t0 = performance.now();
const kb = KnowledgeBase.build(docs, { chunking: false });
const buildMs = performance.now() - t0;

const DIM = 384;
const rand = seededRandom(13_013);
const unit = () => {
  const v = Float32Array.from({ length: DIM }, () => rand() * 2 - 1);
  let n = 0;
  for (const x of v) n += x * x;
  return v.map((x) => x / Math.sqrt(n));
};
const vectors = new Float32Array(kb.size * DIM);
for (let i = 0; i < kb.size; i++) vectors.set(unit(), i * DIM);
kb.dense = new ExactDenseIndex(vectors, DIM);

const depth = QPP_DEFAULTS.listDepth;
const prepared = queries.map((q) => {
  const terms = kb.bm25.queryTerms(q.text);
  return { terms, sparse: kb.bm25.search(terms, depth, kb.itemId), dense: kb.dense!.search(unit(), depth, kb.itemId) };
});

const tf = performance.now();
clarity(kb.bm25.toData(), prepared[0]!.sparse, QPP_DEFAULTS.clarityK, QPP_DEFAULTS.clarityTerms);
const forwardIndexMs = performance.now() - tf;

function timeSetting(lists: (p: (typeof prepared)[number]) => QueryLists) {
  const opts = { entropyK };
  for (const p of prepared) queryPredictors(kb, p.terms, lists(p), opts); // warm-up
  const ms: number[] = [];
  let nulls = 0, fields = 0;
  for (let r = 0; r < reps; r++) {
    for (const p of prepared) {
      const a = performance.now();
      const f = queryPredictors(kb, p.terms, lists(p), opts);
      ms.push(performance.now() - a);
      if (r === 0) for (const v of Object.values(f)) { fields++; if (v === null) nulls++; }
    }
  }
  return { samples: ms.length, mean_ms: mean(ms), p50_ms: percentile(ms, 50), p95_ms: percentile(ms, 95), fields_per_query: fields / prepared.length, null_fields: nulls };
}

log('timing queryPredictors …');
const sparseOnly = timeSetting((p) => ({ sparse: p.sparse, dense: null }));
const both = timeSetting((p) => ({ sparse: p.sparse, dense: p.dense }));
log('correlating the BM25 predictors with BM25 NDCG@10 …');
const ndcg = queries.map((q, i) => ndcgAt(prepared[i]!.sparse.slice(0, 10).map((h) => kb.docOf(h.index).id), qrels.get(q.id)!, 10));
const fields = prepared.map((p) => queryPredictors(kb, p.terms, { sparse: p.sparse, dense: null }, { entropyK }));
const round = (x: number | null | undefined) => (x === null || x === undefined ? null : Number(x.toFixed(4)));
const h1Sparse = Object.keys(fields[0]!).map((field) => {
  const keep = fields.map((f, i) => [f[field], ndcg[i]!] as const).filter((pair): pair is readonly [number, number] => pair[0] !== null);
  const x = keep.map((k) => k[0]), y = keep.map((k) => k[1]);
  const r = pearson(x, y);
  const ci = correlationCi(x, y, (a, b) => pearson(a, b)?.r ?? null, { iterations: 1000 });
  return { field, n: x.length, pearson_r: round(r?.r), p_value: r ? Number(r.p.toPrecision(3)) : null, spearman: round(spearman(x, y)), kendall: round(kendallTauB(x, y)), ci95: ci?.map(round) ?? null };
});

log('timing correlationCi (10,000 resamples of the 300 pairs) …');
const ciX = fields.map((f) => f['qpp.nqc.sparse'] ?? 0);
const timeCi = (stat: (a: readonly number[], b: readonly number[]) => number | null) => {
  const a = performance.now();
  correlationCi(ciX, ndcg, stat);
  return Math.round(performance.now() - a);
};
const ciMs = { pearson: timeCi(pearsonR), spearman: timeCi(spearman), kendall: timeCi(kendallTauB) };

const out = {
  dataset: 'scifact', documents: docs.length, queries: queries.length, list_depth: depth, entropy_k: entropyK,
  mean_sparse_list: mean(prepared.map((p) => p.sparse.length)),
  kb_build_ms: buildMs, forward_index_ms: forwardIndexMs,
  sparse_only: sparseOnly, sparse_and_dense_random: both,
  bm25_ndcg10: round(mean(ndcg)), h1_sparse: h1Sparse, correlation_ci_10000_ms: ciMs,
  cpu: cpus()[0]?.model ?? 'unknown', node: process.version,
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
