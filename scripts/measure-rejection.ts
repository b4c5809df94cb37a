/**
 * `npm run bench:rejection`: how well the top result's confidence separates queries a knowledge base can answer
 * (in-domain) from queries it cannot (out-of-domain), per retrieval mode, and the default threshold per mode.
 *
 * In-domain:  each RAGBench subset's questions over its own pooled documents (src/lib/data/ragbench-kb.ts);
 *             SciFact claims over SciFact; the app's State of the Union queries (scripts/bench/sotu-queries.ts,
 *             the e2e tests' queries) over the embedded SOTU corpus.
 * Out:        the same questions over the next subset's documents (covidqa → delucionqa → … → msmarco → covidqa);
 *             SciFact claims over SOTU and the SOTU queries over SciFact.
 * AUROC:      Mann–Whitney (src/lib/stats/summary.ts), in-domain = positive class, score = confidence.
 * Threshold:  the largest multiple of 0.05 that keeps ≥ 95 % of the in-domain queries (all sets pooled) answered:
 *             a default should almost never refuse a question the knowledge base can answer; the table also shows
 *             the worst set's share kept, and Youden's J threshold for comparison (it rejects far more in-domain).
 *
 * Model modes run with the tiny fixture models of tests/fixtures/models (closed-form weights, not semantic):
 * their figures measure the pipeline, not what a real embedder or cross-encoder would score, and say so.
 * With --corpus-embedder each corpus gets its own corpus-trained embedder (LSI on its chunks, as the tab trains one; docs/corpus-embedder.md),
 * as a user who trains one per knowledge base has: queries, in domain or not, are embedded by the searched corpus's
 * model; the rerank modes keep the fixture cross-encoder.
 *
 * Data is read by path (default ../shared/data next to the repository); nothing derived from it is written.
 * Options: --data DIR  --queries N (per set, default 100)  --no-models (BM25 only)  --corpus-embedder [--dim K]
 *          --json (machine-readable, with every confidence, on stdout)  --json-out FILE (the same JSON into a file)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCorpus, parseQueries } from '../src/lib/data/beir.ts';
import { parseRagbenchJsonl, RAGBENCH_SUBSETS } from '../src/lib/data/ragbench.ts';
import { buildRagbenchKb } from '../src/lib/data/ragbench-kb.ts';
import { sotuDocuments } from '../src/lib/data/sotu.ts';
import { auroc, percentile } from '../src/lib/stats/summary.ts';
import { configureModels } from '../src/lib/models/env.ts';
import { loadCrossEncoder } from '../src/lib/models/cross-encoder.ts';
import { loadEmbedder } from '../src/lib/models/embedder.ts';
import { kbTrainingTexts } from '../src/lib/models/corpus-embedder/corpus-hash.ts';
import { trainCorpusEmbedder } from '../src/lib/models/corpus-embedder/train.ts';
import type { TextEmbedder } from '../src/lib/models/types.ts';
import { ExactDenseIndex } from '../src/lib/retrieval/dense.ts';
import { denseCdfTable, embedItems } from '../src/lib/retrieval/dense-build.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { MODE_IDS, MODES, type RetrievalMode } from '../src/lib/retrieval/modes.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../src/lib/retrieval/rejection.ts';
import { search, type SearchModels } from '../src/lib/retrieval/search.ts';
import { SOTU_APP_QUERIES, SOTU_BENCH_QUERIES, SOTU_JUNK_QUERY } from './bench/sotu-queries.ts';
import { readSotuAddresses } from '../cli/sotu-corpus.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE_MODELS = join(REPO, 'tests/fixtures/models');
const log = (m: string) => process.stderr.write(`[bench:rejection] ${m}\n`);

/** Share of each in-domain set that a default threshold must keep answered. */
export const KEEP_IN_DOMAIN = 0.95;
/** Thresholds are chosen on this grid. */
export const THRESHOLD_STEP = 0.05;

/**
 * The rule: the largest multiple of `step` at which at least `keep` of the in-domain confidences (all corpora
 * pooled) are answered (confidence ≥ threshold).
 */
export function chooseThreshold(inDomain: readonly number[], keep = KEEP_IN_DOMAIN, step = THRESHOLD_STEP): number {
  let best = 0;
  for (let i = 0; i * step <= 1 + 1e-9; i++) {
    const t = Math.round(i * step * 100) / 100;
    if (inDomain.filter((c) => c >= t).length >= keep * inDomain.length) best = t;
  }
  return best;
}

/** Threshold (on the grid) maximising Youden's J = TPR − FPR, in-domain positive, answered when ≥ threshold. */
export function youdenThreshold(inDomain: readonly number[], outOfDomain: readonly number[], step = THRESHOLD_STEP): number {
  let best = 0, bestJ = -Infinity;
  for (let i = 0; i * step <= 1 + 1e-9; i++) {
    const t = Math.round(i * step * 100) / 100;
    const j = inDomain.filter((c) => c >= t).length / inDomain.length - outOfDomain.filter((c) => c >= t).length / outOfDomain.length;
    if (j > bestJ + 1e-12) { bestJ = j; best = t; }
  }
  return best;
}

interface Corpus { name: string; kb: KnowledgeBase; queries: string[]; models?: SearchModels }

function firstDistinct(xs: Iterable<string>, n: number): string[] {
  const out: string[] = [];
  for (const x of xs) {
    const t = x.trim();
    if (t && !out.includes(t)) out.push(t);
    if (out.length >= n) break;
  }
  return out;
}

function loadCorpora(data: string, n: number): Corpus[] {
  const out: Corpus[] = [];
  log('building SOTU');
  const sotu = KnowledgeBase.build(sotuDocuments({ version: 1, addresses: readSotuAddresses() }));
  out.push({ name: 'sotu', kb: sotu, queries: firstDistinct([...SOTU_BENCH_QUERIES, ...SOTU_APP_QUERIES], n) });
  log('building SciFact');
  const sf = join(data, 'scifact');
  const scifact = KnowledgeBase.build(parseCorpus(readFileSync(join(sf, 'corpus.jsonl'), 'utf8')));
  out.push({ name: 'scifact', kb: scifact, queries: firstDistinct(parseQueries(readFileSync(join(sf, 'queries.jsonl'), 'utf8')).map((q) => q.text), n) });
  for (const subset of RAGBENCH_SUBSETS) {
    log(`building RAGBench ${subset}`);
    const { rows } = parseRagbenchJsonl(readFileSync(join(data, 'ragbench/test', `${subset}.jsonl`), 'utf8'), subset);
    out.push({ name: subset, kb: buildRagbenchKb(rows, subset).kb, queries: firstDistinct(rows.map((r) => r.question), n) });
  }
  return out;
}

/** Which corpus answers a set's questions out of domain: the next RAGBench subset; SOTU ↔ SciFact. */
function outOfDomain(corpora: readonly Corpus[], c: Corpus): Corpus {
  if (c.name === 'sotu') return corpora.find((x) => x.name === 'scifact')!;
  if (c.name === 'scifact') return corpora.find((x) => x.name === 'sotu')!;
  const rb = corpora.filter((x) => x.name !== 'sotu' && x.name !== 'scifact');
  return rb[(rb.indexOf(c) + 1) % rb.length]!;
}

async function attachDense(kb: KnowledgeBase, emb: TextEmbedder): Promise<void> {
  const { vectors, dim } = await embedItems(kb, emb);
  kb.dense = new ExactDenseIndex(vectors, dim);
  kb.denseCdf = await denseCdfTable(kb, kb.dense, emb, kb.options.cdfQueries, kb.options.seed);
}

/** Trains an LSI model on each corpus's documents into `dir/corpus/<name>`, then gives each corpus its own encoder. */
async function corpusEmbedders(corpora: Corpus[], dir: string, dim: number): Promise<Map<Corpus, TextEmbedder>> {
  for (const c of corpora) {
    const t0 = performance.now();
    const m = await trainCorpusEmbedder(kbTrainingTexts(c.kb), { dim });
    for (const [path, bytes] of Object.entries(m.files)) {
      const file = join(dir, 'corpus', c.name, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, bytes);
    }
    log(`trained corpus/${c.name}: ${m.summary.documents} documents, ${m.summary.vocabulary} terms, ${m.summary.dim}-d in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  configureModels({ localModelPath: dir, allowRemote: false });
  const out = new Map<Corpus, TextEmbedder>();
  for (const c of corpora) out.set(c, await loadEmbedder({ id: `corpus/${c.name}`, dtype: 'fp32', device: 'cpu' }));
  return out;
}

interface ModeRow {
  mode: RetrievalMode;
  models: 'none' | 'fixture' | 'corpus-trained';
  auroc: number;
  threshold: number;
  /** Per in-domain set: share answered at the chosen threshold. */
  keptMin: number;
  /** Share of out-of-domain queries rejected at the chosen threshold. */
  oodRejected: number;
  junk: number | null;
  inMedian: number;
  outMedian: number;
  shipped: number;
  /** Per in-domain set: the 5th percentile of its confidences. */
  p5: Record<string, number>;
  /** The threshold maximising Youden's J = TPR − FPR on the pooled queries (for comparison). */
  youden: number;
  /** The confidences themselves (in --json output): per in-domain set, and out of domain. */
  confidences: { inDomain: Record<string, number[]>; outOfDomain: number[] };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: resolve(REPO, '../shared/data') },
      queries: { type: 'string', default: '100' },
      'no-models': { type: 'boolean', default: false },
      'corpus-embedder': { type: 'boolean', default: false },
      dim: { type: 'string', default: '256' },
      json: { type: 'boolean', default: false },
      'json-out': { type: 'string' },
    },
  });
  const n = Number(values.queries);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--queries must be a positive integer, got ${values.queries}`);
  const corpora = loadCorpora(values.data, n);
  let models: SearchModels = {};
  const modes = values['no-models'] ? MODE_IDS.filter((m) => !MODES[m].needsDense) : MODE_IDS;
  const trained = values['corpus-embedder'] && !values['no-models'];
  const modelsDir = trained ? mkdtempSync(join(tmpdir(), 'rag-lab-corpus-models-')) : null;
  try {
  if (!values['no-models']) {
    configureModels({ localModelPath: FIXTURE_MODELS, allowRemote: false });
    const ce = await loadCrossEncoder({ id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'cpu' });
    const reranker = { rerank: (q: string, p: readonly string[]) => ce.score(q, p) };
    if (modelsDir) {
      const dim = Number(values.dim);
      if (!Number.isInteger(dim) || dim < 1) throw new Error(`--dim must be a positive integer, got ${values.dim}`);
      const encoders = await corpusEmbedders(corpora, modelsDir, dim);
      for (const c of corpora) {
        const emb = encoders.get(c)!;
        log(`embedding ${c.name} (${c.kb.size} chunks, its corpus-trained embedder)`);
        await attachDense(c.kb, emb);
        c.models = { encoder: { embedQuery: (q) => emb.embed([q], 'query') }, reranker };
      }
    } else {
      const emb = await loadEmbedder({ id: 'rag-lab/tiny-embedder', dtype: 'q8', device: 'cpu' });
      for (const c of corpora) { log(`embedding ${c.name} (${c.kb.size} chunks, fixture embedder)`); await attachDense(c.kb, emb); }
      models = { encoder: { embedQuery: (q) => emb.embed([q], 'query') }, reranker };
    }
  }
  const modelsOf = new Map(corpora.map((c) => [c.kb, c.models ?? models]));
  const confidenceOf = async (kb: KnowledgeBase, q: string, mode: RetrievalMode): Promise<number | null> => {
    const r = await search(kb, q, { mode, rejectThreshold: 0 }, modelsOf.get(kb) ?? models);
    return r.status === 'ok' || r.status === 'rejected' ? r.telemetry.confidence : 0; // no match at all: nothing to answer with
  };
  const rows: ModeRow[] = [];
  for (const mode of modes) {
    log(`measuring ${mode}`);
    const inSets: number[][] = [];
    const out: number[] = [];
    for (const c of corpora) {
      const ood = outOfDomain(corpora, c);
      const mine: number[] = [];
      for (const q of c.queries) {
        const a = await confidenceOf(c.kb, q, mode), b = await confidenceOf(ood.kb, q, mode);
        if (a !== null) mine.push(a);
        if (b !== null) out.push(b);
      }
      inSets.push(mine);
    }
    const inAll = inSets.flat();
    const threshold = chooseThreshold(inAll);
    rows.push({
      mode, models: MODES[mode].needsDense ? (trained ? 'corpus-trained' : 'fixture') : 'none',
      auroc: auroc([...inAll.map(() => 1 as const), ...out.map(() => 0 as const)], [...inAll, ...out]),
      threshold,
      keptMin: Math.min(...inSets.map((s) => s.filter((x) => x >= threshold).length / s.length)),
      oodRejected: out.filter((x) => x < threshold).length / out.length,
      junk: await confidenceOf(corpora[0]!.kb, SOTU_JUNK_QUERY, mode),
      inMedian: percentile(inAll, 50), outMedian: percentile(out, 50),
      shipped: DEFAULT_REJECT_THRESHOLDS[mode],
      p5: Object.fromEntries(corpora.map((c, i) => [c.name, percentile(inSets[i]!, 5)])),
      youden: youdenThreshold(inAll, out),
      confidences: { inDomain: Object.fromEntries(corpora.map((c, i) => [c.name, inSets[i]!])), outOfDomain: out },
    });
  }
  const report = JSON.stringify({ queriesPerSet: n, sets: corpora.map((c) => ({ name: c.name, queries: c.queries.length })), rows }, null, 2) + '\n';
  if (values['json-out']) writeFileSync(values['json-out'], report);
  if (values.json) { process.stdout.write(report); return; }
  const f = (x: number | null) => (x === null ? '  —  ' : x.toFixed(3));
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  console.log(`Rejection per mode: ${corpora.map((c) => `${c.name} ${c.queries.length}`).join(', ')} queries in domain, as many out of domain.`);
  console.log(`Rule: largest multiple of ${THRESHOLD_STEP} keeping ≥ ${KEEP_IN_DOMAIN * 100} % of the in-domain queries (pooled) answered.\n`);
  console.log('| mode | models | AUROC | median in | median out | threshold (rule) | shipped | min kept in-domain | out rejected | junk query |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(`| ${r.mode} | ${r.models} | ${f(r.auroc)} | ${f(r.inMedian)} | ${f(r.outMedian)} | ${r.threshold.toFixed(2)} | ${r.shipped.toFixed(2)} | ${pct(r.keptMin)} | ${pct(r.oodRejected)} | ${f(r.junk)}${r.junk !== null && r.junk < r.shipped ? ' rejected' : ' ANSWERED'} |`);
  }
  console.log(`\n5th percentile of in-domain confidence per set, and Youden's J threshold (pooled):`);
  for (const r of rows) console.log(`  ${r.mode}: ${Object.entries(r.p5).map(([k, x]) => `${k} ${x.toFixed(3)}`).join(', ')}; Youden ${r.youden.toFixed(2)}`);
  if (modes.some((m) => MODES[m].needsDense) && trained) {
    console.log('\nDense and fusion modes ran with one corpus-trained (LSI) embedder per corpus, trained on its own documents; the');
    console.log('rerank modes with the fixture cross-encoder (closed-form weights: its logits carry no meaning).');
  } else if (modes.some((m) => MODES[m].needsDense)) {
    console.log('\nModel modes ran with the fixture models (tests/fixtures/models: closed-form weights, not semantic). Their cosines are');
    console.log('near 1 and their rerank logits near −0.4 for any text, so those figures show the lexical factor of the confidence,');
    console.log('not what a real embedder or cross-encoder would add.');
  }
  } finally {
    if (modelsDir) rmSync(modelsDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
}
