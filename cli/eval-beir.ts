/**
 * `rag-lab eval-beir`: IR metrics of retrieval modes on a BEIR folder (corpus.jsonl, queries.jsonl,
 * qrels/<split>.tsv), or on a built artifact (`--kb`) without rebuilding it: its own queries and qrels, or those of
 * `--data`, and its vectors for the dense modes.
 */
import { beirDataKey, beirVectorKey, hubBeirDataKey, hubBeirVectorKey } from '../src/lib/cache-keys.ts';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DataError, parseCorpus, parseQrels, parseQueries, type BeirQuery, type Qrels } from '../src/lib/data/beir.ts';
import { analysisJson, analyzeRetrievalReport } from '../src/lib/eval/analysis.ts';
import { beirEvalResult, type BeirEvalResult } from '../src/lib/eval/beir-eval.ts';
import { QPP_DEFAULTS } from '../src/lib/eval/qpp.ts';
import { readHubBeir } from '../src/lib/data/beir-hub.ts';
import {
  buildRunKb, corpusHash, DEFAULT_RUN_SETTINGS, INDEX_KINDS, PROTOCOL_PRESETS, PROTOCOLS, runRetrievalSession, runSettings,
  RunSettingsError, BM25_ANALYZERS, type BmAnalyzer, type RetrievalProtocol, type RetrievalRunSettings, type VectorIndexKind,
} from '../src/lib/eval/retrieval-session.ts';
import { DEFAULT_MODELS } from '../src/lib/models/registry.ts';
import { serializeReport, type JsonValue } from '../src/lib/reports/format.ts';
import { reportEnvironment } from '../src/lib/eval/report-from-run.ts';
import { CALIBRATIONS, type Calibration } from '../src/lib/retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { ENTROPY_BASES, type EntropyBasis } from '../src/lib/retrieval/entropy.ts';
import { isMode, MODE_IDS, MODES, type RetrievalMode } from '../src/lib/retrieval/modes.ts';
import { analysisText } from './analyze.ts';
import { CliError, numberArg, parse } from './args.ts';
import { checkInputDir, checkOutputFile, readText, writeText } from './fs-errors.ts';
import { attachKbDense, hubUrl, KB_ARGS, modelArgsFor, openKb, tokenFromEnv, type CliKb } from './kb-arg.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP, type CliModels } from './models.ts';

const seedB = PROTOCOL_PRESETS['seed-b'];
const seedBChunks = seedB.chunking ? `${seedB.chunking.chunkSize}/${seedB.chunking.overlap}` : 'no';
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
  --protocol P      default | seed-b. seed-b is the evaluation protocol of seed B (the calibrated entropy-
                    weighted hybrid retrieval study; docs/seeds.md): ${seedBChunks}-character chunks
                    with document dedup, --candidate-k 20 from each retriever with no pool growth (the
                    cross-encoder reranks those candidates), --calibration cdf with entropy of the calibrated
                    scores, BM25 k1=1.5 b=0.75 over --analyzer plain tokens, --index exact, and
                    --resamples 1000; each flag below
                    overrides its part
  --k1 K --b B      BM25 parameters (default: k1=${DEFAULT_RUN_SETTINGS.bm25.k1}, b=${DEFAULT_RUN_SETTINGS.bm25.b})
  --analyzer A      BM25 tokens: english (default: stop words dropped, Porter stems) | plain (lower-cased words,
                    nothing dropped or stemmed: seed-b's)
  --chunk           index ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}-character chunks and rank documents by their best chunk
  --chunk-size N --overlap N
                    chunk size and overlap in characters (imply --chunk)
                    (--k1, --b and the chunking apply to --data; an artifact keeps the settings it was built with)
  --candidate-k N   candidates from each retriever (default: depth 100, × 10 on chunks)
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
    'run-out': { type: 'string' }, 'report-out': { type: 'string' }, json: { type: 'boolean', default: false }, analyze: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    'no-predictors': { type: 'boolean', default: false },
    index: { type: 'string' },
    protocol: { type: 'string', default: 'default' }, 'candidate-k': { type: 'string' }, pool: { type: 'string' },
    calibration: { type: 'string' }, 'entropy-basis': { type: 'string' }, resamples: { type: 'string' },
    'chunk-size': { type: 'string' }, overlap: { type: 'string' }, analyzer: { type: 'string' }, 'max-queries': { type: 'string' }, seed: { type: 'string' },
    ...KB_ARGS,
    ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data && !values.kb) throw new CliError(`--data or --kb is required\n\n${HELP}`);
  if (values.kb) {
    const fixed = (['chunk', 'k1', 'b', 'chunk-size', 'overlap', 'analyzer'] as const).filter((f) => values[f] !== undefined && values[f] !== false);
    if (fixed.length) throw new CliError(`${fixed.map((f) => `--${f}`).join(', ')}: the artifact keeps the settings it was built with (rebuild it with rag-lab build-index to change them)`);
  }
  const modes: RetrievalMode[] = values.modes === 'all' ? [...MODE_IDS] : values.modes.split(',').map((m) => m.trim()).filter(Boolean).map((m) => {
    if (!isMode(m)) throw new CliError(`unknown mode "${m}" (choose from ${MODE_IDS.join(', ')}, or all)`);
    return m;
  });
  if (modes.length === 0) throw new CliError(`--modes is empty (choose from ${MODE_IDS.join(', ')}, or all)`);
  const settings = settingsFrom(values);
  const need = { dense: modes.some((m) => MODES[m].needsDense), reranker: modes.some((m) => MODES[m].needsReranker) };
  // Output paths are checked before any work, so a typo does not cost the run.
  if (values['run-out']) checkOutputFile(values['run-out'], '--run-out');
  const reportFile = values['report-out'] ?? null;
  if (reportFile) checkOutputFile(reportFile, '--report-out');
  checkModelArgs(values, need);
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };
  const hubData = values.data?.startsWith('hub:') ? parseHubData(values.data) : null;
  if (hubData && values.kb) throw new CliError('--data hub:… reads a whole BEIR dataset: give it without --kb');
  if (!hubData && values['token-env'] !== undefined && !values.kb?.startsWith('hub:')) throw new CliError('--token-env is for a hub: knowledge base or --data hub:dataset');
  const dataDir = values.data && !hubData ? resolve(values.data) : null;
  if (dataDir) checkInputDir(dataDir, '--data', 'a BEIR folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv');

  let source: CliKb, queries: BeirQuery[], qrels: Qrels, dataset: string;
  /** The data's content key (the run's identity) and its vectors' cache key, as the tab names them. */
  let keys: { data: string; vectors: string | null };
  let revision: string | null = null;
  if (hubData) {
    const hub = await readHubBeir(hubData, { hubUrl: hubUrl(), token: tokenFromEnv(values['token-env'], `--data ${values.data}`) ?? null }, (stage, done, total) => {
      if (stage === 'inspect') log(`reading ${hubData.dataset} from ${hubUrl()}`);
      else if (done === total) log(`downloaded ${hubData.dataset}: ${total} rows`);
    }).catch((e: unknown) => { throw new CliError(`--data ${values.data}: ${(e as Error).message}`); });
    ({ queries, qrels, dataset } = hub);
    revision = hub.revision;
    checkJudged(queries, qrels, `${hub.dataset} is judged in its qrels`);
    const kb = buildRunKb(hub.docs, settings);
    log(`indexed ${hub.docs.length} documents as ${kb.size} ${settings.chunking ? 'chunks' : 'documents'}`);
    for (const n of hub.notes) log(n);
    source = { id: 'hub-dataset', label: hub.dataset, kb, dense: null, queries, qrels, hashText: hub.docsKey, notes: hub.notes };
    keys = { data: hubBeirDataKey(hub.docsKey), vectors: hubBeirVectorKey(hub.dataset, hub.docsKey, kb.options.chunking) };
  } else if (values.kb) {
    source = await openKb(values, {
      log,
      // The vectors --index asks for: exact scans need float32; hnsw uses a shipped graph when there is one.
      dense: !need.dense ? 'none' : settings.index === 'exact' ? 'float32' : 'auto',
      hnsw: need.dense && settings.index === 'hnsw',
    });
    if (dataDir) {
      ({ queries, qrels } = readJudgements(dataDir, settings.split));
      checkJudged(queries, qrels, `${join(dataDir, 'queries.jsonl')} is judged in ${join(dataDir, 'qrels', `${settings.split}.tsv`)}`);
      log(`queries and qrels from ${dataDir}`);
    } else if (source.queries && source.qrels) {
      ({ queries, qrels } = { queries: source.queries, qrels: source.qrels });
      checkJudged(queries, qrels, `${source.label} is judged in its qrels`);
    } else {
      throw new CliError(`nothing to evaluate: ${source.label} carries no queries and qrels; give --data <BEIR folder> with queries.jsonl and qrels/${settings.split}.tsv`);
    }
    dataset = source.label.split('#').pop()!;
    revision = /@([0-9a-f]{7,40})/.exec(source.label)?.[1] ?? null;
    keys = { data: `artifact:${await corpusHash(source.hashText)}`, vectors: null };
  } else {
    const dir = dataDir!;
    let docs, corpusText;
    try {
      corpusText = readData(dir, 'corpus.jsonl');
      docs = parseCorpus(corpusText, join(dir, 'corpus.jsonl'));
      ({ queries, qrels } = readJudgements(dir, settings.split));
    } catch (e) {
      if (e instanceof DataError) throw new CliError(e.message);
      throw e;
    }
    checkJudged(queries, qrels, `${join(dir, 'queries.jsonl')} is judged in ${join(dir, 'qrels', `${settings.split}.tsv`)}`);
    const t0 = performance.now();
    const kb = buildRunKb(docs, settings);
    log(`indexed ${docs.length} documents as ${kb.size} ${settings.chunking ? 'chunks' : 'documents'} in ${(performance.now() - t0).toFixed(0)} ms`);
    source = { id: 'beir', label: dir, kb, dense: null, queries, qrels, hashText: corpusText, notes: [] };
    dataset = basename(dir);
    const hash = await corpusHash(corpusText);
    keys = { data: beirDataKey(hash), vectors: beirVectorKey(hash, kb.options.chunking) };
  }
  // A model that cannot load skips the modes that need it; the others still run.
  const models = await loadCliModels(modelArgsFor(values, source, argv), need, log, { skipFailed: true });
  const kb = source.kb;
  await attachKbDense(source, models, {
    index: settings.index,
    // The key of a dataset's embeddings, as the tab's retrieval benchmark names them (caches stay valid).
    ...(keys.vectors ? { kbKey: keys.vectors } : {}),
  }, log);

  const unavailable = modes.flatMap((m) => { const reason = missingModel(m, models.failed); return reason ? [{ mode: m, reason }] : []; });
  const runLines: string[] = [];
  const embedder = need.dense ? `${values.embedder ?? DEFAULT_MODELS.embedder}@${values.dtype}` : null;
  const reranker = need.reranker ? `${values.reranker ?? DEFAULT_MODELS['cross-encoder']}@${values.dtype}` : null;
  // Where the data came from, under the names the tab's source uses (config.source in the report).
  const runSource: JsonValue = hubData ? { kind: 'hub-dataset', dataset: hubData.dataset, revision, hubUrl: hubUrl() } : values.kb ? { kind: 'kb', kb: source.label } : { kind: 'files' };
  const { run, report } = await runRetrievalSession({
    kb, queries, qrels, settings, modes, models: models.search, unavailable, source: runSource,
    identity: { dataKey: keys.data, dataset, kb: values.kb ? source.label : null, embedder, reranker },
    data: { dataset, revision, subsets: [settings.split], source: hubData || values.kb?.startsWith('hub:') ? 'hub' : 'local', kb: values.kb ? source.label : null },
    environment: reportEnvironment({
      runtime: 'node', agent: `node ${process.version} (${process.platform})`,
      models: [
        ...(embedder ? [{ task: 'embedder', id: values.embedder ?? DEFAULT_MODELS.embedder, dtype: values.dtype, device: 'cpu' }] : []),
        ...(reranker ? [{ task: 'cross-encoder', id: values.reranker ?? DEFAULT_MODELS['cross-encoder'], dtype: values.dtype, device: 'cpu' }] : []),
      ],
    }, null, null),
    runNotes: [...source.notes],
    ...(values['run-out'] ? { runLines } : {}),
  });
  for (const n of run.notes) log(n);
  const result = beirEvalResult(run);
  if (values['run-out']) writeText(values['run-out'], runLines.join('\n') + '\n');
  if (reportFile && !report) process.stderr.write(`no report written to ${reportFile}: no mode could run\n`);
  if (reportFile && report) {
    writeText(reportFile, serializeReport(report));
    process.stderr.write(`report written to ${reportFile} (${run.modes.map((m) => m.mode).join(', ') || 'no mode'}; ${run.judged} queries)\n`);
  }
  // --analyze: seed B's H1 and H2 of this run (rag-lab analyze's code and tables), so one command gives all three.
  const analysis = report && values.analyze ? analyzeRetrievalReport(report) : null;
  if (analysis && !analysis.ok) process.stderr.write(`no analysis: ${analysis.message}\n`);
  const analysed = analysis?.ok ? analysis : null;
  if (values.json) console.log(JSON.stringify(analysed ? { ...result, analysis: analysisJson(analysed) } : result));
  else console.log(formatTable(result));
  // As rag-lab analyze does: the tables on stdout, or on stderr when stdout carries the JSON line.
  if (analysed && report) log(['', ...analysisText(analysed, report)].join('\n'));
  if (analysed) for (const w of analysed.warnings) process.stderr.write(`warning: ${w}\n`);
  const skipped = Object.entries(result.skipped);
  for (const [mode, reason] of skipped) process.stderr.write(`${mode}: skipped: ${reason}\n`);
  if (skipped.length > 0) {
    const ran = Object.keys(result.modes).length;
    throw new CliError(ran === 0 ? 'no mode could run' : `${skipped.length} of ${modes.length} modes skipped (${skipped.map(([m]) => m).join(', ')}); the results of the others are above`);
  }
}

/** `hub:owner/name[@revision]` of --data: a BEIR dataset on the Hub (HF_ENDPOINT), read as the tab reads it. */
function parseHubData(value: string): { dataset: string; revision: string | null } {
  const m = /^hub:([\w.-]+\/[\w.-]+)(?:@([\w.-]{1,96}))?$/.exec(value);
  if (!m) throw new CliError(`--data ${value}: give hub:owner/name or hub:owner/name@revision (e.g. hub:BeIR/scifact)`);
  return { dataset: m[1]!, revision: m[2] ?? null };
}

const choice = <T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${flag} must be ${allowed.join(', ')}, got "${value}"`);
  return value as T;
};
const whole = (flag: string, value: string | undefined, lo: number) => numberArg(flag, value, (n) => Number.isInteger(n) && n >= lo, `a whole number >= ${lo}`);

/** The run's settings from the flags: the protocol's preset, then each flag given. */
function settingsFrom(v: Record<string, string | boolean | undefined>): RetrievalRunSettings {
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const protocol = choice('protocol', str('protocol'), PROTOCOLS) as RetrievalProtocol;
  const preset = runSettings(protocol);
  const chunkSize = whole('chunk-size', str('chunk-size'), 1), overlap = whole('overlap', str('overlap'), 0);
  const chunked = v['chunk'] === true || chunkSize !== undefined || overlap !== undefined;
  const base = preset.chunking === false ? DEFAULT_CHUNKING : preset.chunking;
  const k1 = numberArg('k1', str('k1'), (n) => n >= 0, 'a number >= 0'), b = numberArg('b', str('b'), (n) => n >= 0 && n <= 1, 'a number in [0, 1]');
  const pool = choice('pool', str('pool'), ['grow', 'fixed'] as const);
  try {
    return runSettings(protocol, {
      ...(chunked ? { chunking: { ...base, ...(chunkSize !== undefined ? { chunkSize } : {}), ...(overlap !== undefined ? { overlap } : {}) } } : {}),
      ...(k1 !== undefined || b !== undefined ? { bm25: { k1: k1 ?? preset.bm25.k1, b: b ?? preset.bm25.b } } : {}),
      candidateK: whole('candidate-k', str('candidate-k'), 1),
      ...(pool ? { growPool: pool === 'grow' } : {}),
      calibration: choice<Calibration>('calibration', str('calibration'), CALIBRATIONS),
      analyzer: choice<BmAnalyzer>('analyzer', str('analyzer'), BM25_ANALYZERS),
      entropyBasis: choice<EntropyBasis>('entropy-basis', str('entropy-basis'), ENTROPY_BASES),
      resamples: whole('resamples', str('resamples'), 100),
      maxQueries: whole('max-queries', str('max-queries'), 1),
      seed: whole('seed', str('seed'), 0),
      split: str('split'),
      predictors: v['no-predictors'] !== true,
      index: choice<VectorIndexKind>('index', str('index'), INDEX_KINDS),
    });
  } catch (e) {
    if (e instanceof RunSettingsError) throw new CliError(e.message);
    throw e;
  }
}

export function formatTable(r: BeirEvalResult): string {
  const cols = ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100', 'mean_ms', 'p95_ms'] as const;
  const head = ['mode'.padEnd(26), ...cols.map((c) => c.padStart(8))].join(' ');
  const rows = Object.entries(r.modes).map(([mode, m]) =>
    [mode.padEnd(26), ...cols.map((c) => (!Number.isFinite(m[c]) ? 'n/a' : c.endsWith('_ms') ? m[c].toFixed(3) : m[c].toFixed(4)).padStart(8))].join(' '));
  return [`${r.dataset}: ${r.queries} judged queries`, head, ...rows].join('\n');
}
