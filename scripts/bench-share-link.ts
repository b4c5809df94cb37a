/**
 * `npx tsx scripts/bench-share-link.ts [--data ../shared/data/ragbench/test] [--per 20] [--pretty]`: share-link
 * sizes of typical reports. Prints one JSON object on stdout.
 *
 * Reports: the 7 RAGBench test subsets × `--per` rows (seeded sample of the local jsonl files, read by path),
 *   validate: the dataset's responses scored by the lexical evaluator (real TRACe scores and gold labels);
 *   pipeline: the same rows shaped as a pipeline run (the dataset's response as the answer, its documents as the
 *     contexts, the lexical scores, retrieved ids, status answered) with the Ask tab's default pipeline config.
 * For each: the full report's JSON size, the link of each shrink step (characters of `#r=v1.…`, rows kept), the
 * step `shareSummary` picks under the 8,000-character budget, and encode / decode times (median of 5).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseRagbenchJsonl, RAGBENCH_SUBSETS, ragbenchRowKey, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { lexicalRowEvaluator, sampleRows } from '../src/lib/eval/ragbench/validate-mode.ts';
import { DEFAULT_RAG_CONFIG } from '../src/lib/rag/config.ts';
import { buildReport } from '../src/lib/reports/build.ts';
import type { JsonValue, Report, ReportKind, ReportRow } from '../src/lib/reports/format.ts';
import { encodeReportFragment, readShareFragment } from '../src/lib/reports/share-link.ts';
import { SHARE_STEPS, shareSummary, summaryAt } from '../src/lib/reports/share-summary.ts';

const { values: args } = parseArgs({ options: { data: { type: 'string', default: '../shared/data/ragbench/test' }, per: { type: 'string', default: '20' }, pretty: { type: 'boolean', default: false } } });
const per = Number(args.per);
const log = (m: string) => process.stderr.write(`[bench-share-link] ${m}\n`);

const rows: RagbenchRow[] = [];
for (const s of RAGBENCH_SUBSETS) {
  const parsed = parseRagbenchJsonl(readFileSync(join(args.data!, `${s}.jsonl`), 'utf8'), s);
  rows.push(...sampleRows(parsed.rows, per, 0).map((r) => ({ ...r, dataset_name: s })));
}
log(`${rows.length} rows from ${RAGBENCH_SUBSETS.length} subsets`);
const evaluate = lexicalRowEvaluator();

async function report(kind: ReportKind): Promise<Report> {
  const out: ReportRow[] = [];
  for (const r of rows) {
    const e = await evaluate(r);
    const s = { relevance: e.relevance, utilization: e.utilization, adherence: e.adherence, completeness: e.completeness };
    const gold = { adherence: r.adherence_score, relevance: r.relevance_score, utilization: r.utilization_score, completeness: r.completeness_score };
    const base = { key: ragbenchRowKey(r), group: r.dataset_name, question: r.question, answer: r.response, contexts: r.documents, gold, scores: s as Record<string, number | null> };
    if (kind === 'ragbench-pipeline') {
      out.push({ ...base, status: 'answered', retrieved: r.documents.map((_, i) => `${r.id}:${i}`), scores: { ...s, recall: 1, relevant_recall: 1 } });
    } else {
      out.push({ ...base, reference: { ragas_faithfulness: r.ragas_faithfulness, trulens_groundedness: r.trulens_groundedness } });
    }
  }
  const config: Record<string, JsonValue> = {
    mode: kind === 'ragbench-pipeline' ? 'pipeline' : 'validate', subsets: [...RAGBENCH_SUBSETS], n: per, seed: 0, evaluator: 'lexical', judge: null,
    rag: kind === 'ragbench-pipeline' ? (JSON.parse(JSON.stringify(DEFAULT_RAG_CONFIG)) as JsonValue) : null,
    nliModels: null, datasetsHost: 'https://datasets-server.huggingface.co', hubUrl: 'https://huggingface.co', localSubsets: [...RAGBENCH_SUBSETS],
  };
  return buildReport({
    kind, evaluator: 'lexical', config, configHash: '0123456789abcdef', seed: 0, n: per, rows: out,
    data: { dataset: 'rungalileo/ragbench', revision: null, subsets: [...RAGBENCH_SUBSETS], source: 'local', kb: kind === 'ragbench-pipeline' ? 'ragbench:covidqa' : null },
    environment: { app: '0.1.0', runtime: 'node', agent: `node ${process.version} (${process.platform})`, models: [], llm: kind === 'ragbench-pipeline' ? { provider: 'groq', model: 'llama-3.1-8b-instant' } : null, judge: null },
    title: `${kind} 7 × ${per}`, runNotes: [],
  });
}

async function median(fn: () => Promise<unknown>, n = 5): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
  return t.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

const out: Record<string, unknown> = { rows: rows.length, budget: 8000 };
for (const kind of ['ragbench-validate', 'ragbench-pipeline'] as const) {
  const r = await report(kind);
  const steps = [];
  for (const step of SHARE_STEPS) {
    const f = await encodeReportFragment(summaryAt(r, step));
    steps.push({ ...step, chars: f.length + 1 });
  }
  const s = await shareSummary(r);
  const fragment = s.ok ? s.fragment : null;
  out[kind] = {
    fullReportJsonBytes: JSON.stringify(r).length,
    fullReportLinkChars: (await encodeReportFragment(r)).length + 1,
    steps,
    chosen: s.ok ? { step: s.step, chars: s.chars, rows: s.report.rows.length } : { none: s.message },
    shareSummaryMs: Number((await median(() => shareSummary(r))).toFixed(1)),
    decodeMs: fragment ? Number((await median(() => readShareFragment(`#${fragment}`))).toFixed(1)) : null,
  };
}
process.stdout.write(`${JSON.stringify(out, null, args.pretty ? 2 : undefined)}\n`);
