/**
 * `rag-lab eval-beir`: IR metrics of retrieval modes on a BEIR folder (corpus.jsonl, queries.jsonl,
 * qrels/<split>.tsv), or on a built artifact (`--kb`) without rebuilding it: its own queries and qrels, or those of
 * `--data`, and its vectors for the dense modes. The run is `runRetrievalRun` (src/lib/eval/retrieval/retrieval-request.ts, the
 * Benchmark tab's session); here the flags, the files read with node:fs, the models and what is printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DataError, type BeirQuery, type Qrels } from '../src/lib/data/beir.ts';
import { beirEvalOutput } from '../src/lib/eval/retrieval/beir-eval.ts';
import { hubDatasetRef, readBeirFolderRef, readBeirJudgements, RetrievalDataError, type BeirFileReader, type RetrievalData, type RetrievalDataRef } from '../src/lib/eval/retrieval/retrieval-data.ts';
import type { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { modesFlag, RUN_FLAG_OPTIONS, RUN_FLAGS_HELP, settingsFromFlags } from '../src/lib/eval/retrieval/retrieval-flags.ts';
import { DATASET_ONLY, RUN_SETTINGS, type VectorIndexKind } from '../src/lib/settings/retrieval-run.ts';
import { MAX_RUN_CONFIG_BYTES, parseRunConfigFile, type RunConfigFile } from '../src/lib/settings/run-config-file.ts';
import { corpusOfConfig, datasetCorpusHash, trainDatasetEmbedder } from '../src/lib/eval/retrieval/run-embedder.ts';
import { modelsNeeded, namedModels, runRetrievalRun, unavailableModes, type RunModels } from '../src/lib/eval/retrieval/retrieval-request.ts';
import { RunSettingsError, type RetrievalRunSettings } from '../src/lib/eval/retrieval/retrieval-session.ts';
import type { JsonValue } from '../src/lib/reports/format.ts';
import { MODE_IDS, type RetrievalMode } from '../src/lib/retrieval/modes.ts';
import { CliError, parse } from './args.ts';
import { writeReport } from './compare.ts';
import { checkInputDir, checkOutputFile, readSmallText, readText, writeText } from './fs-errors.ts';
import { attachKbDense, hubUrl, KB_ARGS, modelArgsFor, openKb, tokenFromEnv, type CliKb } from './kb-arg.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP, type ModelArgs } from './models.ts';

const HELP = `Usage: rag-lab eval-beir --data <BEIR folder> [options]
       rag-lab eval-beir --kb <artifact folder | hub:owner/repo>[#index-id] [--data <BEIR folder>] [options]

  --data DIR        folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv, or hub:owner/name[@revision]: a
                    BEIR dataset on the Hub (HF_ENDPOINT; e.g. hub:BeIR/scifact), read as the Benchmark tab reads it
  --kb KB           an artifact (rag-lab build-index) evaluated as built: queries and qrels from it, or from
                    --data's queries.jsonl and qrels when it has none (a folder in seed A's layout,
                    the RAG explorer RAG Lab grew from); the dense modes use its
                    vectors with the query embedder it names (--embedder must match; --models-dir as below)
  --token-env VAR   for a private hub: repo or dataset, the environment variable holding the hf_ token
  --config FILE     settings from a file (rag-lab tune --config-out: { "mode", "settings" }); its mode is the default
                    of --modes, and a flag given wins over the file's value
  --modes LIST      comma-separated modes, or "all" (default: sparse)
                    ${MODE_IDS.join(', ')}
${RUN_FLAGS_HELP}
  --run-out FILE    write the rankings as a TREC run file
  --json            print one JSON object on the last line of stdout (with --analyze, its "analysis" key holds
                    rag-lab analyze --json's object)
  --analyze         also print the run's H1 / H2 analysis (what rag-lab analyze prints for its report)
  --report-out FILE write the run as ONE RAG Lab report (format v1, kind retrieval) holding every mode: a row per
                    (mode, query) with the IR scores, total_ms (end to end) and its ms.* stages, query_ms, the
                    query's predictors and the top 10 ids; the
                    summary per mode with 95% bootstrap intervals (rag-lab analyze reads it for H1 / H2)
  --train-embedder  train a corpus embedder (LSI, no download; docs/corpus-embedder.md) on the dataset's training
                    texts (its documents, or its chunks under chunking) and run the dense modes with it; the report
                    records it, the corpus it was trained on and the corpus's SHA-256 (not with --kb or --embedder)
${MODEL_HELP}
`;

/** A BEIR folder's files through node:fs; a missing one is a CliError saying what the folder holds. */
export const folderReader = (dir: string): BeirFileReader => ({
  path: (rel) => join(dir, rel),
  read(rel) {
    const path = join(dir, rel);
    if (!existsSync(path)) throw new CliError(`${path}: file not found (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
    return readText(path);
  },
});

/** Exit 2 before any model loads when no query is judged; `where` completes "none of the N queries in …". */
export function checkJudged(queries: readonly BeirQuery[], qrels: Qrels, where: string): void {
  if (!queries.some((q) => qrels.has(q.id))) throw new CliError(`nothing to evaluate: none of the ${queries.length} queries in ${where} (${qrels.size} judged query ids)`);
}
export const judgedIn = (dir: string, split: string) => `${join(dir, 'queries.jsonl')} is judged in ${join(dir, 'qrels', `${split}.tsv`)}`;

const fail = (message: string): never => { throw new CliError(message); };

/** Errors of the data and settings as the one-line CLI error (exit 2); others pass. */
export const asCliError = (e: unknown, data?: string): never => {
  if (e instanceof RetrievalDataError) throw new CliError(`--data ${data}: ${e.message}`);
  if (e instanceof DataError || e instanceof RunSettingsError) throw new CliError(e.message);
  throw e;
};

export async function evalBeirCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, modes: { type: 'string' }, config: { type: 'string' },
    'run-out': { type: 'string' }, 'report-out': { type: 'string' }, json: { type: 'boolean', default: false }, analyze: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    'train-embedder': { type: 'boolean', default: false },
    ...RUN_FLAG_OPTIONS, ...KB_ARGS, ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data && !values.kb) throw new CliError(`--data or --kb is required\n\n${HELP}`);
  if (values['train-embedder'] && (values.kb || values.embedder)) throw new CliError('--train-embedder trains the embedder on --data: give it without --kb and --embedder');
  if (values.kb) {
    const given = values as Record<string, unknown>;
    const fixed = DATASET_ONLY.map((k) => RUN_SETTINGS[k].flag!).filter((f) => given[f] !== undefined && given[f] !== false);
    if (fixed.length) throw new CliError(`${fixed.map((f) => `--${f}`).join(', ')}: the artifact keeps the settings it was built with (rebuild it with rag-lab build-index to change them)`);
  }
  const file = values.config ? readRunConfig(values.config) : null;
  if (file?.embedder && !values.embedder && !values['train-embedder']) values.embedder = file.embedder;
  const [modes, settings] = (() => { try { return [modesFlag(values.modes ?? file?.mode ?? 'sparse'), settingsFromFlags(values, file?.settings)] as const; } catch (e) { return asCliError(e); } })();
  const need = modelsNeeded(modes);
  // Output paths are checked before any work, so a typo does not cost the run.
  if (values['run-out']) checkOutputFile(values['run-out'], '--run-out');
  const reportFile = values['report-out'] ?? null;
  if (reportFile) checkOutputFile(reportFile, '--report-out');
  checkModelArgs(values, need);
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };
  const { ref, artifact, hubData } = await openDataRef(values, settings, need, log);
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
    models: (data) => runModels(data, { values, argv, artifact, need, modes, index: settings.index, log }),
    ...(values['run-out'] ? { runLines } : {}),
  }).catch((e: unknown) => asCliError(e, values.data));
  for (const n of run.notes) log(n);
  if (values['run-out']) writeText(values['run-out'], runLines.join('\n') + '\n');
  if (reportFile && !report) process.stderr.write(`no report written to ${reportFile}: no mode could run\n`);
  writeReport(reportFile ?? undefined, report, `${run.modes.map((m) => m.mode).join(', ') || 'no mode'}; ${run.judged} queries`);
  const out = beirEvalOutput(run, report, { analyze: values.analyze, modes: modes.length });
  if (out.noAnalysis !== null) process.stderr.write(`no analysis: ${out.noAnalysis}\n`);
  console.log(values.json ? out.json : out.table);
  // As rag-lab analyze does: the tables on stdout, or on stderr when stdout carries the JSON line.
  if (out.analysis !== null) log(out.analysis);
  for (const line of out.stderr) process.stderr.write(`${line}\n`);
  if (out.error !== null) throw new CliError(out.error);
}

/** The flags that choose a run's models (eval-beir's and tune's). */
export type ModelFlags = ModelArgs & { 'train-embedder'?: boolean | undefined };

/**
 * A run's models from the flags: a corpus embedder trained here on the dataset (--train-embedder), or the models
 * --embedder / --reranker / --models-dir name (an artifact's own embedder by default); the dense side attached.
 */
export async function runModels(
  data: RetrievalData,
  o: { values: ModelFlags; argv: string[]; artifact: CliKb | null; need: { dense: boolean; reranker: boolean }; modes: readonly RetrievalMode[]; index: VectorIndexKind; log: (m: string) => void },
): Promise<RunModels & { attach(kb: KnowledgeBase, kbKey: string): Promise<void> }> {
  const { values, argv, artifact, need, modes, log } = o;
  if (data.kind === 'hub-dataset') for (const n of data.notes) log(n);
  const kb: CliKb = artifact ?? { id: data.kind === 'hub-dataset' ? 'hub-dataset' : 'beir', label: data.dataset, kb: data.kb, dense: null, queries: null, qrels: null, hashText: '', notes: [] };
  // --train-embedder: a corpus embedder trained here on the dataset's training texts (run-embedder.ts), loaded from memory.
  const own = values['train-embedder'] && need.dense ? await trainDatasetEmbedder(data, { onProgress: (p) => { if (p.done === 0) log(`training the corpus embedder: ${p.stage}`); } }) : null;
  if (own) log(`trained ${own.id} on ${own.summary.documents} ${data.kb.options.chunking ? 'chunks' : 'documents'} (${own.summary.dim}-d) in ${own.summary.seconds.toFixed(1)} s`);
  const args = own ? { ...values, embedder: own.id } : modelArgsFor(values, kb, argv);
  // A model that cannot load skips the modes that need it; the others still run.
  const models = await loadCliModels(args, need, log, { skipFailed: true, ...(own ? { trained: own.files } : {}) });
  // The key of a dataset's embeddings, as the tab's retrieval benchmark names them (caches stay valid).
  await attachKbDense(kb, models, { index: o.index, ...(artifact ? {} : { kbKey: data.vectorKey }) }, log);
  // What the embedder was trained on: this dataset (--train-embedder), or its folder's config.json (a corpus-trained model of --models-dir).
  const config = args['models-dir'] && args.embedder ? join(args['models-dir'], args.embedder, 'config.json') : null;
  const corpus = own?.corpus ?? (models.embedder && config && existsSync(config) ? corpusOfConfig(readFileSync(config, 'utf8'), await datasetCorpusHash(data.kb)) : null);
  const notes = corpus && !corpus.thisDataset ? [`the dense modes use ${args.embedder}, trained on ${corpus.title}, another corpus than this dataset`] : [];
  // `attach`: the same embedder's vectors for the dataset built again (tune's chunking dimensions).
  return { ...namedModels(args, need, 'cpu'), search: models.search, unavailable: unavailableModes(modes, models.failed), embedderCorpus: corpus, notes, attach: (again, kbKey) => attachKbDense({ ...kb, kb: again }, models, { index: o.index, kbKey }, log) };
}

/** What `--data` / `--kb` name, opened (eval-beir's and tune's): a Hub dataset, an artifact with its or --data's judgements, or a BEIR folder. */
export async function openDataRef(
  values: { data?: string | undefined; kb?: string | undefined; 'token-env'?: string | undefined },
  settings: RetrievalRunSettings, need: { dense: boolean }, log: (m: string) => void,
): Promise<{ ref: RetrievalDataRef; artifact: CliKb | null; hubData: { dataset: string; revision: string | null } | null }> {
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
  return { ref, artifact, hubData };
}

/** `--config FILE`: a tune's settings file (rag-lab tune --config-out), read within its bound and checked. */
export function readRunConfig(path: string): RunConfigFile {
  const text = readSmallText(path, MAX_RUN_CONFIG_BYTES, 'a settings file');
  try { return parseRunConfigFile(text); } catch (e) { throw new CliError(`--config ${path}: ${(e as Error).message}`); }
}
