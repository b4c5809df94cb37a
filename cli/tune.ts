/**
 * `rag-lab tune`: retrieval settings searched on a test set (the session: src/lib/tune/tune-session.ts, docs/tuning.md).
 * Here the flags, the data and models as eval-beir opens them, the test set, and what is printed.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { openRetrievalData, readBeirJudgements, RetrievalDataError } from '../src/lib/eval/retrieval/retrieval-data.ts';
import { modesFlag, RUN_FLAG_OPTIONS, RUN_FLAGS_HELP, settingsFromFlags } from '../src/lib/eval/retrieval/retrieval-flags.ts';
import { modelsNeeded } from '../src/lib/eval/retrieval/retrieval-request.ts';
import { isMode, MODE_IDS, MODES } from '../src/lib/retrieval/modes.ts';
import { DATASET_ONLY, flatOfRun } from '../src/lib/settings/retrieval-run.ts';
import { IR_METRIC_IDS } from '../src/lib/stats/ir-metrics.ts';
import { SpaceError, spaceFromFile, spaceFromFlags, TUNED } from '../src/lib/tune/space.ts';
import { pseudoQueries } from '../src/lib/tune/pseudo-queries.ts';
import { parseTestSetFile, TEST_SET_LIMITS } from '../src/lib/tune/test-set-file.ts';
import { testSetFolder } from '../src/lib/tune/test-set-make.ts';
import { denseCopy, runTuneSession, TuneError, type IrMetricId, type TuneEmbedder } from '../src/lib/tune/tune-session.ts';
import { tuneTable } from '../src/lib/tune/tune-text.ts';
import { jsonOf, tuneReport } from '../src/lib/tune/tune-report.ts';
import { reportEnvironment } from '../src/lib/eval/ragbench/report-from-run.ts';
import type { JsonValue } from '../src/lib/reports/format.ts';
import { CliError, numberArg, parse } from './args.ts';
import { writeReport } from './compare.ts';
import { asCliError, checkJudged, folderReader, openDataRef, runModels } from './eval-beir.ts';
import { checkOutputFile, readSmallText, writeText } from './fs-errors.ts';
import { KB_ARGS } from './kb-arg.ts';
import { MODEL_ARGS, MODEL_HELP } from './models.ts';

const DEFAULT_MODES = MODE_IDS.filter((m) => !MODES[m].needsReranker);

const HELP = `Usage: rag-lab tune --data <BEIR folder | hub:owner/name[@revision]> [options]
       rag-lab tune --kb <artifact folder | hub:owner/repo>[#index-id] [--data <BEIR folder>] [options]

  --data DIR        a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) or a BEIR dataset on the Hub, as eval-beir reads it
  --kb KB           an artifact with its own queries and qrels, or --data's (a test set imported as BEIR files), as eval-beir
                    reads it; its chunking and BM25 are kept (not tuned)
  --token-env VAR   for a hub: artifact or dataset, the environment variable holding the hf_ token
  --modes LIST      the modes the space may use (default: ${DEFAULT_MODES.join(', ')}; the ones the models allow)
  --mode MODE       the current mode, which the winner is compared with (default sparse, the Search tab's)
  --budget N        trials: settings sampled from the space, each mode's current one first (default 40, at most 10000)
  --minutes M       a budget in time: as many trials as fit (at most --budget, default then 10000), from the current
                    settings' latency on the first rung's queries
  --held-out F      the fraction of the judged queries held out from tuning, in (0, 1) (default 0.3)
  --metric M        the objective: ${IR_METRIC_IDS.join(', ')} (default ndcg@10); the front's other axis is p95 latency
  --space K=V,V     narrow a dimension to these values (repeatable; "auto" for an unset k), or FILE: a JSON object of
                    them, e.g. {"alpha": [0.3, 0.7], "candidate-k": ["auto", 50]}. The dimensions and their
                    default values: ${TUNED.map(([k, s]) => `${s.flag} (${s.tune!.values.map((x) => (x === null ? 'auto' : String(x))).join(', ')})`).join('; ')}
  --json            print the result as one JSON object on the last line of stdout
  --config-out FILE write the winner's settings as JSON: { "mode", "settings" } (eval-beir's flat settings) and "embedder" when it is one of --embedders
  --report-out FILE write the tune as a RAG Lab report (kind tune): Reports, Compare, share links, rag-lab compare
  --train-embedder  train a corpus embedder (LSI) on the dataset for the dense and hybrid modes (as eval-beir)
  --embedders LIST  other embedders (ids, as --embedder) join the space in the dense modes, the documents embedded by each
  --rebuild         chunking (whole documents, or chunks of 400, 800, 1600 characters) and BM25's analyzer join the space:
                    each a knowledge base built again from --data's documents, its items embedded by the same embedder
  --pseudo N        tune on N pseudo-queries (a sentence of a sampled document; offline, a smoke test: biased toward
                    lexical matching, so the winner is not adopted unless --agree-with labelled queries agrees)
  --testset FILE    a test set written by hand, .csv (a header row) or .jsonl: a question per row and its doc_id, chunk_id
                    or answer text (docs/tuning.md), or a folder rag-lab testset wrote; instead of --data's or the artifact's
  --agree-with T    a second test set of the same documents (a BEIR folder's queries.jsonl and qrels, or pseudo:N): every
                    trial scored on both, Kendall τ of the rankings and the regret of its top setting (passes: τ ≥ 0.9, ≤ 0.01)
  The current settings (--seed also seeds the split, the sample and the query order):
${RUN_FLAGS_HELP}
${MODEL_HELP}
`;

export async function tuneCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, modes: { type: 'string' }, mode: { type: 'string' }, budget: { type: 'string' },
    'held-out': { type: 'string' }, minutes: { type: 'string' }, metric: { type: 'string' }, space: { type: 'string', multiple: true }, json: { type: 'boolean', default: false },
    'config-out': { type: 'string' }, 'report-out': { type: 'string' }, 'train-embedder': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    pseudo: { type: 'string' }, 'agree-with': { type: 'string' }, testset: { type: 'string' }, rebuild: { type: 'boolean', default: false }, embedders: { type: 'string' },
    ...RUN_FLAG_OPTIONS, ...KB_ARGS, ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data && !values.kb) throw new CliError(`--data or --kb is required\n\n${HELP}`);
  if ((values['train-embedder'] || values.rebuild) && values.kb) throw new CliError(values.rebuild ? '--rebuild builds from --data: give it without --kb (an artifact keeps its chunking)' : '--train-embedder trains the embedder on --data: give it without --kb');
  const [settings, modes] = (() => { try { return [settingsFromFlags({ ...values, space: undefined }), values.modes ? modesFlag(values.modes) : DEFAULT_MODES] as const; } catch (e) { return asCliError(e); } })();
  const current = values.mode ?? 'sparse';
  if (!isMode(current)) throw new CliError(`--mode: unknown mode "${current}" (choose from ${MODE_IDS.join(', ')})`);
  const minutes = numberArg('minutes', values.minutes, (x) => x > 0 && x <= 10_000, 'a number of minutes above 0');
  const budget = numberArg('budget', values.budget, (x) => Number.isInteger(x) && x >= 1, 'a whole number of trials') ?? (minutes ? 10_000 : 40);
  const heldOut = numberArg('held-out', values['held-out'], (x) => x > 0 && x < 1, 'a fraction between 0 and 1 (exclusive)') ?? 0.3;
  const metric = (values.metric ?? 'ndcg@10') as IrMetricId;
  if (!IR_METRIC_IDS.includes(metric)) throw new CliError(`--metric must be one of ${IR_METRIC_IDS.join(', ')}, got "${metric}"`);
  const narrow = (() => { try { return spaceFromFlags((values.space ?? []).flatMap((x) => (x.includes('=') ? [x] : spaceFromFile(readSmallText(x, 65_536, 'a space file'), x)))); } catch (e) { throw new CliError((e as Error).message); } })();
  if (values['config-out']) checkOutputFile(values['config-out'], '--config-out');
  if (values['report-out']) checkOutputFile(values['report-out'], '--report-out');
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };

  const need = modelsNeeded([...modes, current]);
  const { ref, artifact } = await openDataRef(values, settings, need, log);
  const data = await openRetrievalData(ref, settings, {
    check: (o) => { if (o.kind === 'hub-dataset') checkJudged(o.queries, o.qrels, `${o.dataset} is judged in its qrels`); },
  }).catch((e: unknown) => (e instanceof RetrievalDataError ? asCliError(e, values.data) : asCliError(e)));
  log(`${data.dataset}: ${data.kb.size} ${data.kb.options.chunking ? 'chunks' : 'documents'}, ${data.queries.filter((q) => data.qrels.has(q.id)).length} judged queries`);
  // The test set: the data's judged queries, or pseudo-queries made from its documents (labelled: a smoke test).
  const pseudoOf = (n: number) => pseudoQueries(data.kb.docs, n, settings.seed);
  const file = values.testset, format = file?.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl';
  // --testset DIR: BEIR files as rag-lab testset writes them (its testset.json says the kind and what it was made from).
  const folder = file && statSync(file, { throwIfNoEntry: false })?.isDirectory() ? await testSetFolder(folderReader(resolve(file)), data.kb.docs, settings.split).catch((e: unknown) => { throw new CliError(`--testset ${file}: ${(e as Error).message}`); }) : null;
  const test = values.pseudo ? pseudoOf(numberArg('pseudo', values.pseudo, (x) => Number.isInteger(x) && x >= 1, 'a whole number of queries')!)
    : folder ?? (file ? (() => { try { return parseTestSetFile(readSmallText(file, TEST_SET_LIMITS.bytes, 'a test set'), format, data.kb); } catch (e) { throw new CliError(`--testset ${file}: ${(e as Error).message}`); } })() : data);
  const agree = values['agree-with'];
  const other = !agree ? undefined : /^pseudo:[1-9]\d*$/.test(agree) ? { label: agree, pseudo: true, ...pseudoOf(Number(agree.slice(7))) }
    : { label: agree, ...(() => { try { return readBeirJudgements(folderReader(resolve(agree)), settings.split); } catch (e) { return asCliError(e, agree); } })() };
  const models = await runModels(data, { values, argv, artifact, need, modes: [...modes, current], index: settings.index, log });
  const unavailable = new Set((models.unavailable ?? []).map((u) => u.mode));
  // --embedders: each loaded as --embedder loads it; its dense side on a copy of each knowledge base the tune builds.
  const vectorKeys = new Map([[data.kb, data.vectorKey]]), embedders: TuneEmbedder[] = [], loaded = [...models.loaded];
  for (const id of need.dense && values.embedders ? values.embedders.split(',').map((x) => x.trim()).filter(Boolean) : []) {
    const own = data.kb.withoutDense();
    const m = await runModels({ ...data, kb: own }, { values: { ...values, embedder: id, 'train-embedder': false }, argv: [...argv, '--embedder', id], artifact: null, need: { dense: true, reranker: false }, modes: ['dense'], index: settings.index, log });
    if (!m.embedder || !m.search.encoder) throw new CliError(`--embedders ${id}: ${m.unavailable?.[0]?.reason ?? 'it did not load'}`);
    loaded.push(...m.loaded);
    embedders.push({ identity: { embedder: m.embedder, embedderCorpus: m.embedderCorpus ?? null }, flag: id, encoder: m.search.encoder, attach: async (kb) => (kb === data.kb ? own : denseCopy(kb, (c) => m.attach(c, vectorKeys.get(kb)!))) });
  }
  let lastRung = -1;
  const result = await runTuneSession({
    kb: data.kb, queries: test.queries, qrels: test.qrels, base: settings, current, models: models.search, embedders, pseudo: !!values.pseudo || folder?.pseudo === true, ...(other ? { agreeWith: other } : {}),
    identity: { dataKey: data.dataKey, dataset: data.dataset, kb: data.kbId, embedder: models.embedder, reranker: models.reranker, embedderCorpus: models.embedderCorpus ?? null },
    // An artifact keeps the chunking and BM25 it was built with (as eval-beir --kb): those are not tuned.
    modes: modes.filter((m) => !unavailable.has(m)), budget, ...(minutes ? { minutes } : {}), seed: settings.seed, heldOut, objective: metric, space: { narrow, rebuild: values.rebuild, ...(artifact ? { fixed: DATASET_ONLY } : {}) },
    rebuild: async (x) => { const d = await openRetrievalData(ref, { ...settings, ...x }); log(`built again: ${d.kb.size} ${x.chunking ? 'chunks' : 'documents'}, ${x.analyzer} analyzer`); await models.attach(d.kb, d.vectorKey); vectorKeys.set(d.kb, d.vectorKey); return d.kb; },
    onProgress: (p) => { if (p.rung !== lastRung) { lastRung = p.rung; log(`rung ${p.rung + 1} of ${p.rungs}: ${p.total} trials on ${p.queries} tuning queries`); } },
  }).catch((e: unknown) => { if (e instanceof TuneError || e instanceof SpaceError) throw new CliError(e.message); throw e; });
  for (const u of models.unavailable ?? []) if (modes.includes(u.mode)) result.notes.unshift(`${u.mode} is not in the space: ${u.reason}`);
  if (file || values.pseudo) result.notes.unshift(...(test.notes ?? []).map((n) => `${file ? '--testset' : '--pseudo'}: ${n}`));
  if (values['config-out'] && result.adoptable) {
    writeText(values['config-out'], JSON.stringify(result.winnerSettings, null, 2) + '\n');
    process.stderr.write(`the winner's settings written to ${values['config-out']}\n`);
  }
  if (values['report-out']) {
    const report = await tuneReport(result, {
      testSet: { label: result.testSetLabel ?? file ?? `${data.dataset} (${settings.split})`, kind: values.pseudo || folder?.pseudo ? 'pseudo' : file ? 'imported' : 'labelled', splitSeed: settings.seed },
      budget, ...(minutes ? { minutes } : {}), modes, base: jsonOf({ mode: current, settings: flatOfRun(settings) }) as Record<string, JsonValue>,
      data: { dataset: data.dataset, kb: data.kbId, source: data.source, revision: data.revision },
      environment: reportEnvironment({ runtime: 'node', agent: `node ${process.version} (${process.platform})`, models: loaded }, null, null),
    });
    writeReport(values['report-out'], report, `kind tune; ${result.trials.length} trials`);
  }
  console.log(values.json ? JSON.stringify(result) : tuneTable(result));
  if (values['config-out'] && !result.adoptable) throw new CliError(`--config-out ${values['config-out']}: not written: a winner on pseudo-queries is not adopted unless --agree-with labelled queries passes the agreement check`);
}
