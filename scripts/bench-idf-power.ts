/**
 * `npx tsx scripts/bench-idf-power.ts`: chooses the corpus-trained embedder's idf power β (E[w] = idf_w^β · U_k[w],
 * docs/corpus-embedder.md) on data held out from BEIR SciFact: the seven RAGBench test subsets as retrieval tasks
 * (each subset's documents pooled as a corpus, whole documents; a question's relevant documents are those holding
 * its annotated relevant sentences, ragbench-kb.ts `relevantDocs`; questions without one are left out). For each
 * subset and β an LSI model is trained on the subset's documents only, then NDCG@10 of dense and hybrid_fixed is
 * measured; the table gives the mean over subsets. SciFact's test queries play no part in the choice.
 * `--analyses words,stems` compares the SVD's analysis too (train.ts `analysis`): one column per (analysis, β).
 *
 * Options: --data DIR (default ../shared/data), --powers LIST (default 1,2,3,4), --analyses LIST (default words),
 * --dim K (default 256).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BeirQuery, Qrels } from '../src/lib/data/beir.ts';
import { parseRagbenchJsonl, RAGBENCH_SUBSETS } from '../src/lib/data/ragbench.ts';
import { buildRagbenchKb, relevantDocs } from '../src/lib/data/ragbench-kb.ts';
import { runRetrievalBenchmark } from '../src/lib/eval/retrieval/retrieval-bench.ts';
import type { Analysis } from '../src/lib/models/corpus-embedder/stem-analysis.ts';
import { kbTrainingTexts } from '../src/lib/models/corpus-embedder/corpus-hash.ts';
import { trainCorpusEmbedder } from '../src/lib/models/corpus-embedder/train.ts';
import { loadEmbedder } from '../src/lib/models/embedder.ts';
import { configureModels } from '../src/lib/models/env.ts';
import { ExactDenseIndex } from '../src/lib/retrieval/dense.ts';
import { embedItems } from '../src/lib/retrieval/dense-build.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { data: { type: 'string', default: resolve(REPO, '../shared/data') }, powers: { type: 'string', default: '1,2,3,4' }, analyses: { type: 'string', default: 'words' }, dim: { type: 'string', default: '256' } } });
const powers = values.powers!.split(',').map(Number);
const analyses = values.analyses!.split(',') as Analysis[];
const variants = analyses.flatMap((analysis) => powers.map((power) => ({ analysis, power, label: analyses.length > 1 ? `${analysis} β=${power}` : `β=${power}` })));
const dim = Number(values.dim);
const log = (m: string) => process.stderr.write(`[bench:idf-power] ${m}\n`);
const dir = mkdtempSync(join(tmpdir(), 'rag-lab-idf-power-'));
const MODES = ['sparse', 'dense', 'hybrid_fixed'] as const;
const table: Array<{ subset: string; queries: number; label: string } & Record<(typeof MODES)[number], number>> = [];
try {
  configureModels({ localModelPath: dir, allowRemote: false });
  for (const subset of RAGBENCH_SUBSETS) {
    const { rows } = parseRagbenchJsonl(readFileSync(join(values.data!, 'ragbench/test', `${subset}.jsonl`), 'utf8'), subset);
    const rkb = buildRagbenchKb(rows, subset, { chunking: false });
    const queries: BeirQuery[] = [];
    const qrels: Qrels = new Map();
    rows.forEach((r, i) => {
      const rel = relevantDocs(rkb, r);
      if (rel.length === 0) return;
      queries.push({ id: `q${i}`, text: r.question });
      qrels.set(`q${i}`, new Map(rel.map((d) => [rkb.docs[d]!.id, 1])));
    });
    for (const { analysis, power, label } of variants) {
      const id = `corpus/${subset}-${analysis}-idf${power}`;
      const m = await trainCorpusEmbedder(kbTrainingTexts(rkb.kb), { dim, idfPower: power, analysis });
      for (const [path, bytes] of Object.entries(m.files)) {
        const file = join(dir, id, path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, bytes);
      }
      const emb = await loadEmbedder({ id, dtype: 'fp32', device: 'cpu' });
      const { vectors, dim: d } = await embedItems(rkb.kb, emb);
      rkb.kb.dense = new ExactDenseIndex(vectors, d);
      const run = await runRetrievalBenchmark({
        kb: rkb.kb, queries, qrels, dataset: subset, modes: [...MODES], depth: 100, predictors: false, configHash: id,
        models: { encoder: { embedQuery: (q) => emb.embed([q], 'query') } },
      });
      const ndcg = Object.fromEntries(run.modes.map((x) => [x.mode, x.means['ndcg@10']])) as Record<(typeof MODES)[number], number>;
      table.push({ subset, queries: queries.length, label, ...ndcg });
      log(`${subset} ${label}: ${m.summary.documents} docs, ${m.summary.dim}-d; ${MODES.map((x) => `${x} ${ndcg[x].toFixed(4)}`).join(', ')}`);
      await emb.dispose();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const labels = variants.map((v) => v.label);
console.log(`| subset | queries | ${labels.map((l) => `dense ${l}`).join(' | ')} | ${labels.map((l) => `hybrid_fixed ${l}`).join(' | ')} | sparse |`);
console.log(`| --- | --- | ${labels.map(() => '---').join(' | ')} | ${labels.map(() => '---').join(' | ')} | --- |`);
const cell = (subset: string, l: string, m: (typeof MODES)[number]) => table.find((t) => t.subset === subset && t.label === l)![m];
for (const subset of RAGBENCH_SUBSETS) {
  const q = table.find((t) => t.subset === subset)!.queries;
  console.log(`| ${subset} | ${q} | ${labels.map((l) => cell(subset, l, 'dense').toFixed(4)).join(' | ')} | ${labels.map((l) => cell(subset, l, 'hybrid_fixed').toFixed(4)).join(' | ')} | ${cell(subset, labels[0]!, 'sparse').toFixed(4)} |`);
}
const meanOf = (l: string, m: (typeof MODES)[number]) => RAGBENCH_SUBSETS.reduce((a, s) => a + cell(s, l, m), 0) / RAGBENCH_SUBSETS.length;
console.log(`| mean | | ${labels.map((l) => meanOf(l, 'dense').toFixed(4)).join(' | ')} | ${labels.map((l) => meanOf(l, 'hybrid_fixed').toFixed(4)).join(' | ')} | ${meanOf(labels[0]!, 'sparse').toFixed(4)} |`);
