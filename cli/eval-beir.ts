/**
 * `rag-lab eval-beir`: IR metrics of retrieval modes on a BEIR folder (corpus.jsonl, queries.jsonl,
 * qrels/<split>.tsv), or on a built artifact (`--kb`) without rebuilding it: its own queries and qrels, or those of
 * `--data`, and its vectors for the dense modes. The run is `runRetrievalRun` (src/lib/eval/retrieval-run.ts, the
 * Benchmark tab's session); here the flags, the files read with node:fs, the models and what is printed.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DataError, type BeirQuery, type Qrels } from '../src/lib/data/beir.ts';
import { beirEvalOutput, formatTable } from '../src/lib/eval/beir-eval.ts';
import { QPP_DEFAULTS } from '../src/lib/eval/qpp.ts';
import { hubDatasetRef, readBeirFolderRef, readBeirJudgements, RetrievalDataError, type BeirFileReader, type RetrievalDataRef } from '../src/lib/eval/retrieval-data.ts';
import { modesFlag, settingsFromFlags } from '../src/lib/eval/retrieval-flags.ts';
import { modelsNeeded, namedModels, runRetrievalRun, unavailableModes } from '../src/lib/eval/retrieval-run.ts';
import { DEFAULT_RUN_SETTINGS, protocolDescription, RunSettingsError } from '../src/lib/eval/retrieval-session.ts';
import type { JsonValue } from '../src/lib/reports/format.ts';
import { reportFileText } from '../src/lib/reports/title.ts';
import { CALIBRATIONS } from '../src/lib/retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { CliError, parse } from './args.ts';
import { checkInputDir, checkOutputFile, readText, writeText } from './fs-errors.ts';
import { attachKbDense, hubUrl, KB_ARGS, modelArgsFor, openKb, tokenFromEnv, type CliKb } from './kb-arg.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP } from './models.ts';
import { SEPARATE_K_ARGS } from './rag-flags.ts';

/** `text` in lines of at most `width` characters, the lines after the first indented by `indent`. */
const wrap = (text: string, width: number, indent: string) =>
  text.split(' ').reduce<string[]>((lines, w) => {
    if (lines.length && (lines.at(-1)! + ' ' + w).length <= width) lines[lines.length - 1] += ' ' + w;
    else lines.push(w);
    return lines;
  }, []).join(`\n${indent}`);
const PAD = ' '.repeat(20);
const HELP = `Usage: rag-lab eval-beir --data <BEIR folder> [options]
       rag-lab eval-beir --kb <artifact folder | hub:owner/repo>[#index-id] [--data <BEIR folder>] [options]

  --data DIR        folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv, or hub:owner/name[@revision]: a
                    BEIR dataset on the Hub (HF_ENDPOINT; e.g. hub:BeIR/scifact), read as the Benchmark tab reads it
  --kb KB           an artifact (rag-lab build-index) evaluated as built: queries and qrels from it, or from
                    --data's queries.jsonl and qrels when it has none (a folder in seed A's layout,
                    the RAG explorer RAG Lab grew from); the dense modes use its
                    vectors with the query embedder it names (--embedder must match; --models-dir as below)
  --token-env VAR   for a private hub: repo or dataset, the environment variable holding the hf_ token
  --modes LIST      comma-separated modes, or "all" (default: sparse)
                    ${MODE_IDS.join(', ')}
  --split NAME      qrels split (default: test)
  --protocol P      default | seed-b
${PAD}${wrap(`seed-b, the evaluation protocol of seed B (the calibrated entropy-weighted hybrid retrieval study; docs/seeds.md): ${protocolDescription('seed-b')}; each flag below overrides its part`, 96, PAD)}
  --k1 K --b B      BM25 parameters (default: k1=${DEFAULT_RUN_SETTINGS.bm25.k1}, b=${DEFAULT_RUN_SETTINGS.bm25.b})
  --analyzer A      BM25 tokens: english (default: stop words dropped, Porter stems) | plain (lower-cased words,
                    nothing dropped or stemmed: seed-b's)
  --chunk           index ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}-character chunks and rank documents by their best chunk
  --chunk-size N --overlap N
                    chunk size and overlap in characters (imply --chunk)
                    (--k1, --b and the chunking apply to --data; an artifact keeps the settings it was built with)
  --candidate-k N   candidates from each retriever (default: depth 100, × 10 on chunks)
  --bm25-k N --dense-k N --fusion-top-k N
                    seed A's separate k's: BM25's and the dense index's candidates, and the fused candidates passed
                    on (default: --candidate-k; the fused list whole, or --candidate-k in rerank modes)
  --pool P          grow (default: the pool doubles while dedup leaves fewer than 100 documents) | fixed
  --calibration C   ${CALIBRATIONS.join(' | ')} for the calibrated modes (default cdf)
  --entropy-basis B calibrated (default: H of the calibrated scores, as seed B
                    defines it) | raw (H of the raw scores)
  --resamples N     bootstrap resamples and permutations the analysis uses (default: analyze's own)
  --max-queries N   a seeded sample of N judged queries (default: all); --seed S (default 0)
  --run-out FILE    write the rankings as a TREC run file
  --json            print one JSON object on the last line of stdout (with --analyze, its "analysis" key holds
                    rag-lab analyze --json's object)
  --analyze         also print the run's H1 / H2 analysis (what rag-lab analyze prints for its report)
  --report-out FILE write the run as ONE RAG Lab report (format v1, kind retrieval) holding every mode: a row per
                    (mode, query) with the IR scores, total_ms (end to end) and its ms.* stages, query_ms, the
                    query's predictors and the top 10 ids; the
                    summary per mode with 95% bootstrap intervals (rag-lab analyze reads it for H1 / H2)
  --no-predictors   skip the query performance predictors (entropy under each calibration, alpha, clarity, NQC,
                    WIG; computed per query on lists of ${QPP_DEFAULTS.listDepth} by default)
  --index KIND      vector index: auto | exact | int8 | hnsw (default auto; exact under --protocol seed-b)
${MODEL_HELP}
`;

/** A BEIR folder's files through node:fs; a missing one is a CliError saying what the folder holds. */
const folderReader = (dir: string): BeirFileReader => ({
  path: (rel) => join(dir, rel),
  read(rel) {
    const path = join(dir, rel);
    if (!existsSync(path)) throw new CliError(`${path}: file not found (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
    return readText(path);
  },
});

/** Exit 2 before any model loads when no query is judged; `where` completes "none of the N queries in …". */
function checkJudged(queries: readonly BeirQuery[], qrels: Qrels, where: string): void {
  if (!queries.some((q) => qrels.has(q.id))) throw new CliError(`nothing to evaluate: none of the ${queries.length} queries in ${where} (${qrels.size} judged query ids)`);
}
const judgedIn = (dir: string, split: string) => `${join(dir, 'queries.jsonl')} is judged in ${join(dir, 'qrels', `${split}.tsv`)}`;

const fail = (message: string): never => { throw new CliError(message); };

/** Errors of the data and settings as the one-line CLI error (exit 2); others pass. */
const asCliError = (e: unknown, data?: string): never => {
  if (e instanceof RetrievalDataError) throw new CliError(`--data ${data}: ${e.message}`);
  if (e instanceof DataError || e instanceof RunSettingsError) throw new CliError(e.message);
  throw e;
};

export async function evalBeirCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, modes: { type: 'string', default: 'sparse' }, split: { type: 'string', default: 'test' },
    k1: { type: 'string' }, b: { type: 'string' }, chunk: { type: 'boolean', default: false },
    'run-out': { type: 'string' }, 'report-out': { type: 'string' }, json: { type: 'boolean', default: false }, analyze: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    'no-predictors': { type: 'boolean', default: false }, index: { type: 'string' },
    protocol: { type: 'string', default: 'default' }, 'candidate-k': { type: 'string' }, pool: { type: 'string' },
    calibration: { type: 'string' }, 'entropy-basis': { type: 'string' }, resamples: { type: 'string' },
    'chunk-size': { type: 'string' }, overlap: { type: 'string' }, analyzer: { type: 'string' }, 'max-queries': { type: 'string' }, seed: { type: 'string' },
    ...SEPARATE_K_ARGS, ...KB_ARGS, ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data && !values.kb) throw new CliError(`--data or --kb is required\n\n${HELP}`);
  if (values.kb) {
    const fixed = (['chunk', 'k1', 'b', 'chunk-size', 'overlap', 'analyzer'] as const).filter((f) => values[f] !== undefined && values[f] !== false);
    if (fixed.length) throw new CliError(`${fixed.map((f) => `--${f}`).join(', ')}: the artifact keeps the settings it was built with (rebuild it with rag-lab build-index to change them)`);
  }
  const [modes, settings] = (() => { try { return [modesFlag(values.modes), settingsFromFlags(values)] as const; } catch (e) { return asCliError(e); } })();
  const need = modelsNeeded(modes);
  // Output paths are checked before any work, so a typo does not cost the run.
  if (values['run-out']) checkOutputFile(values['run-out'], '--run-out');
  const reportFile = values['report-out'] ?? null;
  if (reportFile) checkOutputFile(reportFile, '--report-out');
  checkModelArgs(values, need);
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };
  const hubData = values.data?.startsWith('hub:') ? hubDatasetRef(values.data) ?? fail(`--data ${values.data}: give hub:owner/name or hub:owner/name@revision (e.g. hub:BeIR/scifact)`) : null;
  if (hubData && values.kb) throw new CliError('--data hub:… reads a whole BEIR dataset: give it without --kb');
  if (!hubData && values['token-env'] !== undefined && !values.kb?.startsWith('hub:')) throw new CliError('--token-env is for a hub: knowledge base or --data hub:dataset');
  const dataDir = values.data && !hubData ? resolve(values.data) : null;
  if (dataDir) checkInputDir(dataDir, '--data', 'a BEIR folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv');

  let ref: RetrievalDataRef, artifact: CliKb | null = null;
  if (hubData) {
    ref = { kind: 'hub-dataset', ...hubData, hubUrl: hubUrl(), token: tokenFromEnv(values['token-env'], `--data ${values.data}`) ?? null };
  } else if (values.kb) {
    const source = artifact = await openKb(values, {
      log,
      // The vectors --index asks for: exact scans need float32; hnsw uses a shipped graph when there is one.
      dense: !need.dense ? 'none' : settings.index === 'exact' ? 'float32' : 'auto', hnsw: need.dense && settings.index === 'hnsw',
    });
    let judged: { queries: BeirQuery[]; qrels: Qrels };
    if (dataDir) {
      try { judged = readBeirJudgements(folderReader(dataDir), settings.split); } catch (e) { return asCliError(e); }
      checkJudged(judged.queries, judged.qrels, judgedIn(dataDir, settings.split));
      log(`queries and qrels from ${dataDir}`);
    } else if (source.queries && source.qrels) {
      judged = { queries: source.queries, qrels: source.qrels };
      checkJudged(judged.queries, judged.qrels, `${source.label} is judged in its qrels`);
    } else {
      throw new CliError(`nothing to evaluate: ${source.label} carries no queries and qrels; give --data <BEIR folder> with queries.jsonl and qrels/${settings.split}.tsv`);
    }
    ref = {
      kind: 'artifact', id: source.id, dataset: source.label.split('#').pop()!, kb: source.kb, shipped: source.dense, ...judged, meta: source.hashText,
      revision: /@([0-9a-f]{7,40})/.exec(source.label)?.[1] ?? null, source: values.kb.startsWith('hub:') ? 'hub' : 'local', notes: source.notes,
    };
  } else {
    try { ref = await readBeirFolderRef(folderReader(dataDir!), basename(dataDir!), settings.split); } catch (e) { return asCliError(e); }
    checkJudged(ref.queries, ref.qrels, judgedIn(dataDir!, settings.split));
  }
  // The models as the flags name them (an artifact's own embedder is loaded, but the config names the flags').
  const named = namedModels(values, need, 'cpu');
  const runLines: string[] = [];
  const { run, report } = await runRetrievalRun({
    data: ref, settings, modes,
    // Where the data came from, under the names the tab's source uses (config.source in the report).
    source: (d): JsonValue => hubData ? { kind: 'hub-dataset', dataset: hubData.dataset, revision: d.revision, hubUrl: hubUrl() } : values.kb ? { kind: 'kb', kb: d.kbId } : { kind: 'files' },
  }, {
    runtime: { runtime: 'node', agent: `node ${process.version} (${process.platform})` },
    check: (o) => { if (o.kind === 'hub-dataset') checkJudged(o.queries, o.qrels, `${o.dataset} is judged in its qrels`); },
    onProgress: (p) => {
      if (p.phase === 'load' && p.stage === 'inspect') log(`reading ${hubData!.dataset} from ${hubUrl()}`);
      else if (p.phase === 'load' && p.stage === 'download' && p.done === p.total) log(`downloaded ${hubData!.dataset}: ${p.total} rows`);
      else if (p.phase === 'indexed') log(`indexed ${p.documents} documents as ${p.items} ${settings.chunking ? 'chunks' : 'documents'}${hubData ? '' : ` in ${p.ms.toFixed(0)} ms`}`);
    },
    models: async (data) => {
      if (data.kind === 'hub-dataset') for (const n of data.notes) log(n);
      const kb: CliKb = artifact ?? { id: data.kind === 'hub-dataset' ? 'hub-dataset' : 'beir', label: data.dataset, kb: data.kb, dense: null, queries: null, qrels: null, hashText: '', notes: [] };
      // A model that cannot load skips the modes that need it; the others still run.
      const models = await loadCliModels(modelArgsFor(values, kb, argv), need, log, { skipFailed: true });
      // The key of a dataset's embeddings, as the tab's retrieval benchmark names them (caches stay valid).
      await attachKbDense(kb, models, { index: settings.index, ...(artifact ? {} : { kbKey: data.vectorKey }) }, log);
      return { ...named, search: models.search, unavailable: unavailableModes(modes, models.failed) };
    },
    ...(values['run-out'] ? { runLines } : {}),
  }).catch((e: unknown) => asCliError(e, values.data));
  for (const n of run.notes) log(n);
  if (values['run-out']) writeText(values['run-out'], runLines.join('\n') + '\n');
  if (reportFile && !report) process.stderr.write(`no report written to ${reportFile}: no mode could run\n`);
  if (reportFile && report) {
    writeText(reportFile, reportFileText(report));
    process.stderr.write(`report written to ${reportFile} (${run.modes.map((m) => m.mode).join(', ') || 'no mode'}; ${run.judged} queries)\n`);
  }
  const out = beirEvalOutput(run, report, { analyze: values.analyze, modes: modes.length });
  if (out.noAnalysis !== null) process.stderr.write(`no analysis: ${out.noAnalysis}\n`);
  console.log(values.json ? out.json : out.table);
  // As rag-lab analyze does: the tables on stdout, or on stderr when stdout carries the JSON line.
  if (out.analysis !== null) log(out.analysis);
  for (const line of out.stderr) process.stderr.write(`${line}\n`);
  if (out.error !== null) throw new CliError(out.error);
}
