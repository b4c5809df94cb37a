/**
 * `npm run bench:tune-collection`: issue 34's second bar, a tune on a collection other than SciFact with labelled
 * queries imported as a test set. A RAGBench subset of ../shared/data becomes a BEIR folder in a temporary directory
 * (never in the repo): the rows' documents pooled and deduplicated (data/ragbench-kb.ts `poolDocuments`, ids d0, d1…),
 * one query per question id, judged relevant: the documents holding a sentence the annotator marked relevant
 * (`all_relevant_sentence_keys`, over every row of that question); questions with none are left out. Then
 * `rag-lab tune --data <folder> --train-embedder --budget 40 --json` as a user runs it, and one JSON object: the
 * winner, the held-out figures against BM25 at its defaults, and whether Δ ≥ 0.03 NDCG@10.
 *
 * Options: --subset NAME (default all: the seven, one after another), --budget N (default 40), --seed S (default 0).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRagbenchJsonl, RAGBENCH_SUBSETS, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { documentKey, poolDocuments } from '../src/lib/data/ragbench-kb.ts';
import { testSetBeirFiles } from '../src/lib/tune/test-set-make.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { subset: { type: 'string', default: 'all' }, budget: { type: 'string', default: '40' }, seed: { type: 'string', default: '0' } } });
const subsets = values.subset === 'all' ? [...RAGBENCH_SUBSETS] : [values.subset];

/** The subset as BEIR files: corpus, one query per question id, qrels from the relevant sentences' documents. */
function beirFolder(rows: readonly RagbenchRow[], dir: string): { documents: number; queries: number; judged: number } {
  const pooled = poolDocuments(rows);
  const questions = new Map<string, { text: string; relevant: Set<string> }>();
  for (const row of rows) {
    const q = questions.get(row.id) ?? { text: row.question, relevant: new Set<string>() };
    const keys = new Set(row.all_relevant_sentence_keys);
    row.documents_sentences.forEach((sentences, i) => {
      const d = pooled.byKey.get(documentKey(row.documents[i] ?? ''));
      if (d !== undefined && sentences.some(([k]) => keys.has(k))) q.relevant.add(pooled.docs[d]!.id);
    });
    questions.set(row.id, q);
  }
  const judged = [...questions].filter(([, q]) => q.relevant.size > 0);
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), pooled.docs.map((d) => JSON.stringify({ _id: d.id, title: '', text: d.text })).join('\n') + '\n');
  const files = testSetBeirFiles(judged.map(([id, q]) => ({ id, text: q.text })), new Map(judged.map(([id, q]) => [id, new Map([...q.relevant].map((d) => [d, 1]))])));
  writeFileSync(join(dir, 'queries.jsonl'), files.queries);
  writeFileSync(join(dir, 'qrels', 'test.tsv'), files.qrels);
  return { documents: pooled.docs.length, queries: questions.size, judged: judged.length };
}

const results = [];
for (const subset of subsets) {
  const file = resolve(REPO_ROOT, `../shared/data/ragbench/test/${subset}.jsonl`);
  const parsed = parseRagbenchJsonl(readFileSync(file, 'utf8'), subset!, file);
  // The folder is named after the subset: the dataset the tune's figures name.
  const root = mkdtempSync(join(tmpdir(), 'rag-lab-collection-')), dir = join(root, subset!);
  try {
    const counts = beirFolder(parsed.rows, dir);
    const args = ['tune', '--data', dir, '--train-embedder', '--no-cache', '--budget', values.budget, '--seed', values.seed, '--json'];
    const t0 = Date.now();
    const out = execFileSync(process.execPath, [join(REPO_ROOT, 'cli/rag-lab.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    const winner = r.heldOut.figures.find((f: { trial: number }) => f.trial === r.winner);
    results.push({
      subset, ...counts, identity: r.identity, seconds: (Date.now() - t0) / 1000, split: r.split, rungs: r.rungs,
      winner: { label: r.trials[r.winner].label, tuning: r.trials[r.winner].score, heldOut: winner?.score ?? null, delta: winner?.delta ?? null, deltaCi: winner?.deltaCi ?? null, pHolm: winner?.pHolm ?? null },
      bm25Default: r.heldOut.current.score, barMet: (winner?.delta ?? -1) >= 0.03, verdict: r.verdict,
      learnedAlpha: r.learnedAlpha?.verdict ?? null,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
console.log(JSON.stringify({ command: 'rag-lab tune --data <RAGBench subset as BEIR files> --train-embedder --budget ' + values.budget, results }, null, 2));
