/**
 * `rag-lab eval-beir`: IR metrics of retrieval modes on a BEIR folder (corpus.jsonl, queries.jsonl,
 * qrels/<split>.tsv), or on a built artifact (`--kb`) without rebuilding it: its own queries and qrels, or those of
 * `--data`, and its vectors for the dense modes.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DataError, parseCorpus, parseQrels, parseQueries, type BeirQuery, type Qrels } from '../src/lib/data/beir.ts';
import { evaluateBeir, type BeirEvalResult } from '../src/lib/eval/beir-eval.ts';
import type { IrScores } from '../src/lib/eval/ir-metrics.ts';
import { DEFAULT_MODELS } from '../src/lib/models/registry.ts';
import { buildReport } from '../src/lib/reports/build.ts';
import { serializeReport, type ReportRow } from '../src/lib/reports/format.ts';
import { finiteOrNull, reportEnvironment, retrievalReportRow } from '../src/lib/reports/from-run.ts';
import { DEFAULT_BM25 } from '../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { sha256Hex } from '../src/lib/store/checksum.ts';
import { isMode, MODE_IDS, MODES, type RetrievalMode } from '../src/lib/retrieval/modes.ts';
import { CliError, numberArg, parse } from './args.ts';
import { checkInputDir, checkOutputFile, readText, writeText } from './fs-errors.ts';
import { attachKbDense, KB_ARGS, modelArgsFor, openKb, type CliKb } from './kb-arg.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP, type CliModels } from './models.ts';

const HELP = `Usage: rag-lab eval-beir --data <BEIR folder> [options]
       rag-lab eval-beir --kb <artifact folder | hub:owner/repo>[#index-id] [--data <BEIR folder>] [options]

  --data DIR        folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv
  --kb KB           an artifact (rag-lab build-index) evaluated as built: queries and qrels from it, or from
                    --data's queries.jsonl and qrels when it has none (a seed-A folder); the dense modes use its
                    vectors with the query embedder it names (--embedder must match; --models-dir as below)
  --token-env VAR   for a private hub: repo, the environment variable holding the hf_ token
  --modes LIST      comma-separated modes, or "all" (default: sparse)
                    ${MODE_IDS.join(', ')}
  --split NAME      qrels split (default: test)
  --k1 K --b B      BM25 parameters (default: k1=${DEFAULT_BM25.k1}, b=${DEFAULT_BM25.b})
  --chunk           index ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}-character chunks and rank documents by their best chunk
                    (--k1, --b and --chunk apply to --data; an artifact keeps the settings it was built with)
  --run-out FILE    write the rankings as a TREC run file
  --json            print one JSON object on the last line of stdout
  --report-out FILE write each mode's run as a RAG Lab report (format v1, kind retrieval: per-query scores and top
                    10 ids, the summary with 95% bootstrap intervals); with several modes FILE gets -<mode> before
                    .json (run.json → run-sparse.json, run-dense.json); the files written are named on stderr
  --index KIND      vector index: auto | exact | int8 | hnsw (default auto)
${MODEL_HELP}
`;

/** queries.jsonl and qrels/<split>.tsv of a BEIR folder. */
function readJudgements(dir: string, split: string): { queries: BeirQuery[]; qrels: Qrels } {
  try {
    const queries = parseQueries(readData(dir, 'queries.jsonl'), join(dir, 'queries.jsonl'));
    const qrelsFile = join('qrels', `${split}.tsv`);
    return { queries, qrels: parseQrels(readData(dir, qrelsFile), join(dir, qrelsFile)) };
  } catch (e) {
    if (e instanceof DataError) throw new CliError(e.message);
    throw e;
  }
}

/** Exit 2 before any model loads when no query is judged; `where` completes "none of the N queries in …". */
function checkJudged(queries: readonly BeirQuery[], qrels: Qrels, where: string): void {
  if (!queries.some((q) => qrels.has(q.id))) throw new CliError(`nothing to evaluate: none of the ${queries.length} queries in ${where} (${qrels.size} judged query ids)`);
}

function readData(dir: string, rel: string): string {
  const path = join(dir, rel);
  if (!existsSync(path)) throw new CliError(`${path}: file not found (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
  return readText(path);
}

const INDEX_KINDS = ['auto', 'exact', 'int8', 'hnsw'] as const;

/** Why a mode cannot run when a model it needs did not load, or null when it can. */
function missingModel(mode: RetrievalMode, failed: CliModels['failed']): string | null {
  if (MODES[mode].needsDense && failed.dense) return `the embedding model could not load (${failed.dense})`;
  if (MODES[mode].needsReranker && failed.reranker) return `the cross-encoder could not load (${failed.reranker})`;
  return null;
}

export async function evalBeirCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, modes: { type: 'string', default: 'sparse' }, split: { type: 'string', default: 'test' },
    k1: { type: 'string' }, b: { type: 'string' }, chunk: { type: 'boolean', default: false },
    'run-out': { type: 'string' }, 'report-out': { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    index: { type: 'string', default: 'auto' },
    ...KB_ARGS,
    ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data && !values.kb) throw new CliError(`--data or --kb is required\n\n${HELP}`);
  if (values.kb) {
    const fixed = (['chunk', 'k1', 'b'] as const).filter((f) => values[f] !== undefined && values[f] !== false);
    if (fixed.length) throw new CliError(`${fixed.map((f) => `--${f}`).join(', ')}: the artifact keeps the settings it was built with (rebuild it with rag-lab build-index to change them)`);
  }
  const modes: RetrievalMode[] = values.modes === 'all' ? [...MODE_IDS] : values.modes.split(',').map((m) => m.trim()).filter(Boolean).map((m) => {
    if (!isMode(m)) throw new CliError(`unknown mode "${m}" (choose from ${MODE_IDS.join(', ')}, or all)`);
    return m;
  });
  if (modes.length === 0) throw new CliError(`--modes is empty (choose from ${MODE_IDS.join(', ')}, or all)`);
  const k1 = numberArg('k1', values.k1, (n) => n >= 0, 'a number >= 0') ?? DEFAULT_BM25.k1;
  const b = numberArg('b', values.b, (n) => n >= 0 && n <= 1, 'a number in [0, 1]') ?? DEFAULT_BM25.b;
  if (!(INDEX_KINDS as readonly string[]).includes(values.index)) throw new CliError(`--index must be auto, exact, int8 or hnsw, got "${values.index}"`);
  const need = { dense: modes.some((m) => MODES[m].needsDense), reranker: modes.some((m) => MODES[m].needsReranker) };
  // Output paths are checked before any work, so a typo does not cost the run.
  if (values['run-out']) checkOutputFile(values['run-out'], '--run-out');
  const reportFiles = values['report-out'] ? reportPaths(values['report-out'], modes) : null;
  if (reportFiles) for (const f of reportFiles.values()) checkOutputFile(f, '--report-out');
  checkModelArgs(values, need);
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };
  const dataDir = values.data ? resolve(values.data) : null;
  if (dataDir) checkInputDir(dataDir, '--data', 'a BEIR folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv');

  let source: CliKb, queries: BeirQuery[], qrels: Qrels, dataset: string;
  if (values.kb) {
    source = await openKb(values, {
      log,
      // The vectors --index asks for: exact scans need float32; hnsw uses a shipped graph when there is one.
      dense: !need.dense ? 'none' : values.index === 'exact' ? 'float32' : 'auto',
      hnsw: need.dense && values.index === 'hnsw',
    });
    if (dataDir) {
      ({ queries, qrels } = readJudgements(dataDir, values.split));
      checkJudged(queries, qrels, `${join(dataDir, 'queries.jsonl')} is judged in ${join(dataDir, 'qrels', `${values.split}.tsv`)}`);
      log(`queries and qrels from ${dataDir}`);
    } else if (source.queries && source.qrels) {
      ({ queries, qrels } = { queries: source.queries, qrels: source.qrels });
      checkJudged(queries, qrels, `${source.label} is judged in its qrels`);
    } else {
      throw new CliError(`nothing to evaluate: ${source.label} carries no queries and qrels; give --data <BEIR folder> with queries.jsonl and qrels/${values.split}.tsv`);
    }
    dataset = source.label.split('#').pop()!;
  } else {
    const dir = dataDir!;
    let docs, corpusText;
    try {
      corpusText = readData(dir, 'corpus.jsonl');
      docs = parseCorpus(corpusText, join(dir, 'corpus.jsonl'));
      ({ queries, qrels } = readJudgements(dir, values.split));
    } catch (e) {
      if (e instanceof DataError) throw new CliError(e.message);
      throw e;
    }
    checkJudged(queries, qrels, `${join(dir, 'queries.jsonl')} is judged in ${join(dir, 'qrels', `${values.split}.tsv`)}`);
    const t0 = performance.now();
    const kb = KnowledgeBase.build(docs, { chunking: values.chunk ? DEFAULT_CHUNKING : false, bm25: { k1, b } });
    log(`indexed ${docs.length} documents as ${kb.size} ${values.chunk ? 'chunks' : 'documents'} in ${(performance.now() - t0).toFixed(0)} ms`);
    source = { id: 'beir', label: dir, kb, dense: null, queries, qrels, hashText: corpusText, notes: [] };
    dataset = basename(dir);
  }
  // A model that cannot load skips the modes that need it; the others still run.
  const models = await loadCliModels(modelArgsFor(values, source, argv), need, log, { skipFailed: true });
  const kb = source.kb;
  await attachKbDense(source, models, {
    index: values.index as (typeof INDEX_KINDS)[number],
    // The key of embeddings computed from a BEIR folder, as before artifacts (caches stay valid).
    ...(values.kb ? {} : { kbKey: `beir:${(await sha256Hex(source.hashText)).slice(0, 16)}:${values.chunk ? 'chunk' : 'doc'}:${JSON.stringify(kb.options.chunking)}` }),
  }, log);

  const unloaded: Partial<Record<RetrievalMode, string>> = {};
  for (const m of modes) { const why = missingModel(m, models.failed); if (why) unloaded[m] = why; }
  const runLines: string[] = [];
  const perQuery = new Map<RetrievalMode, ReportRow[]>();
  const result = await evaluateBeir(kb, queries, qrels, {
    dataset, modes: modes.filter((m) => !unloaded[m]), depth: 100, search: {}, models: models.search,
    ...(values['run-out'] ? { runLines } : {}),
    ...(reportFiles ? { onQuery: (mode: RetrievalMode, q: BeirQuery, ranked: readonly string[], scores: IrScores) => {
      let rows = perQuery.get(mode);
      if (!rows) perQuery.set(mode, (rows = []));
      rows.push(retrievalReportRow(dataset, q, scores, ranked));
    } } : {}),
  });
  result.skipped = { ...unloaded, ...result.skipped };
  if (values['run-out']) writeText(values['run-out'], runLines.join('\n') + '\n');
  if (reportFiles) {
    const settings = {
      split: values.split, k1: values.kb ? null : k1, b: values.kb ? null : b, chunk: values.kb ? null : values.chunk, index: values.index,
      embedder: need.dense ? values.embedder ?? DEFAULT_MODELS.embedder : null, reranker: need.reranker ? values.reranker ?? DEFAULT_MODELS['cross-encoder'] : null, dtype: values.dtype,
    };
    const dataHash = (await sha256Hex(source.hashText)).slice(0, 16);
    for (const [mode, file] of reportFiles) {
      const rows = perQuery.get(mode);
      if (!rows || !result.modes[mode]) continue;
      const config = { kind: 'retrieval', mode, dataset, kb: values.kb ? source.label : null, depth: 100, ...settings };
      const report = buildReport({
        kind: 'retrieval', evaluator: mode, config,
        configHash: (await sha256Hex(JSON.stringify(['retrieval', 1, dataHash, config]))).slice(0, 24),
        data: { dataset, revision: values.kb ? /@([0-9a-f]{7,40})/.exec(source.label)?.[1] ?? null : null, subsets: [values.split], source: values.kb?.startsWith('hub:') ? 'hub' : 'local', kb: values.kb ? source.label : null },
        seed: 0, n: null, rows,
        environment: reportEnvironment({
          runtime: 'node', agent: `node ${process.version} (${process.platform})`,
          models: [
            ...(MODES[mode].needsDense && settings.embedder ? [{ task: 'embedder', id: settings.embedder, dtype: values.dtype, device: 'cpu' }] : []),
            ...(MODES[mode].needsReranker && settings.reranker ? [{ task: 'cross-encoder', id: settings.reranker, dtype: values.dtype, device: 'cpu' }] : []),
          ],
        }, null, null),
        runNotes: [...source.notes],
        extra: { queries: result.queries, mean_ms: finiteOrNull(result.modes[mode]!.mean_ms), p95_ms: finiteOrNull(result.modes[mode]!.p95_ms) },
      });
      writeText(file, serializeReport(report));
      process.stderr.write(`report written to ${file} (${mode}, ${rows.length} queries)\n`);
    }
  }
  if (values.json) console.log(JSON.stringify(result));
  else console.log(formatTable(result));
  const skipped = Object.entries(result.skipped);
  for (const [mode, reason] of skipped) process.stderr.write(`${mode}: skipped: ${reason}\n`);
  if (skipped.length > 0) {
    const ran = Object.keys(result.modes).length;
    throw new CliError(ran === 0 ? 'no mode could run' : `${skipped.length} of ${modes.length} modes skipped (${skipped.map(([m]) => m).join(', ')}); the results of the others are above`);
  }
}

/** The report file of each mode: FILE itself for one mode, else FILE with -<mode> before .json (or at the end). */
export function reportPaths(file: string, modes: readonly RetrievalMode[]): Map<RetrievalMode, string> {
  if (modes.length === 1) return new Map([[modes[0]!, file]]);
  const m = /^(.*?)(\.json)?$/i.exec(file)!;
  return new Map(modes.map((mode) => [mode, `${m[1]}-${mode}${m[2] ?? ''}`]));
}

export function formatTable(r: BeirEvalResult): string {
  const cols = ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100', 'mean_ms', 'p95_ms'] as const;
  const head = ['mode'.padEnd(26), ...cols.map((c) => c.padStart(8))].join(' ');
  const rows = Object.entries(r.modes).map(([mode, m]) =>
    [mode.padEnd(26), ...cols.map((c) => (!Number.isFinite(m[c]) ? 'n/a' : c.endsWith('_ms') ? m[c].toFixed(3) : m[c].toFixed(4)).padStart(8))].join(' '));
  return [`${r.dataset}: ${r.queries} judged queries`, head, ...rows].join('\n');
}
