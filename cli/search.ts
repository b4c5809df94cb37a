/**
 * `rag-lab search`: top-k results of queries over a knowledge base, through the same core call and request fields
 * as the Search tab's session (`runSearch` with a SearchRequest) and the Search tab's defaults (url-state.ts), so
 * its `--json` output is what the browser shows for the same artifact (the browser parity test compares them).
 */
import { CALIBRATIONS, type Calibration } from '../src/lib/retrieval/calibrate.ts';
import { isMode, MODE_IDS, MODES } from '../src/lib/retrieval/modes.ts';
import { DEFAULT_SEARCH, type SearchOutcome } from '../src/lib/retrieval/search.ts';
import type { SearchRequest } from '../src/lib/retrieval/search-request.ts';
import { runSearch } from '../src/lib/retrieval/search-run.ts';
import { CliError, numberArg, parse } from './args.ts';
import { attachKbDense, KB_ARGS, KB_HELP, modelArgsFor, openKb } from './kb-arg.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP } from './models.ts';
import { SEPARATE_K_ARGS, SEPARATE_K_HELP, separateKs } from './rag-flags.ts';

const HELP = `Usage: rag-lab search [--kb KB] [options] "query" ["query" …]

${KB_HELP}
  --mode MODE        retrieval mode (default ${DEFAULT_SEARCH.mode}): ${MODE_IDS.join(', ')}
  --top-k N          results per query (default ${DEFAULT_SEARCH.topK}, as the Search tab)
  --candidate-k N    candidates per retriever before fusion (default ${DEFAULT_SEARCH.candidateK})
${SEPARATE_K_HELP}
  --calibration C    ${CALIBRATIONS.join(' | ')} (default ${DEFAULT_SEARCH.calibration})
  --reject-threshold X
                     reject below this confidence, in [0, 1] (default: the mode's threshold; 0 never rejects)
  --json             print one JSON object: {kb, mode, results: [{query, status, hits: [{id, docId, score, …}]}]}
${MODEL_HELP}
`;

/** A hit as printed with --json: the core's numbers at full precision, and the document's title and metadata. */
export interface SearchJsonHit {
  rank: number; id: string; docId: string; score: number;
  sparse: number | null; dense: number | null; sparseCal: number | null; denseCal: number | null; rerank: number | null;
  title: string; meta: Record<string, string | number>;
}

export async function searchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    ...KB_ARGS, mode: { type: 'string', default: DEFAULT_SEARCH.mode },
    'top-k': { type: 'string' }, 'candidate-k': { type: 'string' }, ...SEPARATE_K_ARGS, calibration: { type: 'string', default: DEFAULT_SEARCH.calibration },
    'reject-threshold': { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    ...MODEL_ARGS,
  }, true);
  if (values.help) { console.log(HELP); return; }
  const queries = positionals.map((q) => q.trim()).filter(Boolean);
  if (queries.length === 0) throw new CliError(`a query is required\n\n${HELP}`);
  const mode = values.mode;
  if (!isMode(mode)) throw new CliError(`unknown mode "${mode}" (choose from ${MODE_IDS.join(', ')})`);
  if (!(CALIBRATIONS as readonly string[]).includes(values.calibration)) throw new CliError(`--calibration must be one of ${CALIBRATIONS.join(', ')}, got "${values.calibration}"`);
  const topK = numberArg('top-k', values['top-k'], (n) => Number.isInteger(n) && n >= 1 && n <= 100, 'an integer in [1, 100]') ?? DEFAULT_SEARCH.topK;
  const candidateK = numberArg('candidate-k', values['candidate-k'], (n) => Number.isInteger(n) && n >= 1 && n <= 1000, 'an integer in [1, 1000]') ?? DEFAULT_SEARCH.candidateK;
  const ks = separateKs(values);
  // Only the k's given are sent (and printed): the request stays the Search tab's.
  const given = Object.fromEntries(Object.entries(ks).filter(([, k]) => k !== null)) as Partial<typeof ks>;
  const rejectThreshold = numberArg('reject-threshold', values['reject-threshold'], (n) => n >= 0 && n <= 1, 'a number in [0, 1]') ?? null;
  const need = { dense: MODES[mode].needsDense, reranker: MODES[mode].needsReranker };
  checkModelArgs(values, need);
  const log = (m: string) => process.stderr.write(`${m}\n`);

  const opened = await openKb(values, { log, dense: need.dense ? 'auto' : 'none' });
  const models = await loadCliModels(modelArgsFor(values, opened, argv), need, log);
  await attachKbDense(opened, models, {}, log);

  const results: { query: string; status: SearchOutcome['status']; reason?: string; confidence: number | null; hits: SearchJsonHit[] }[] = [];
  for (const query of queries) {
    // The request the Search tab sends its session (SearchRequest), field by field.
    const request: SearchRequest = { query, mode, topK, candidateK, ...given, calibration: values.calibration as Calibration, rejectThreshold, filters: [] };
    const out = (await runSearch(opened.kb, request, models.search))!;
    if (out.status === 'unavailable') throw new CliError(`${mode}: ${out.reason}`);
    const hits = out.hits.map((h): SearchJsonHit => {
      const doc = opened.kb.docOf(h.item);
      return { rank: h.rank, id: h.id, docId: h.docId, score: h.score, sparse: h.sparse, dense: h.dense, sparseCal: h.sparseCal, denseCal: h.denseCal, rerank: h.rerank, title: doc.title, meta: doc.meta ?? {} };
    });
    results.push({ query, status: out.status, ...('reason' in out ? { reason: out.reason } : {}), confidence: out.telemetry?.confidence ?? null, hits });
  }
  if (values.json) {
    console.log(JSON.stringify({ kb: opened.label, mode, topK, candidateK, ...given, calibration: values.calibration, results }));
    return;
  }
  for (const r of results) {
    console.log(`${r.query}${r.status === 'ok' ? '' : ` [${r.status}${r.reason ? `: ${r.reason}` : ''}]`}`);
    for (const h of r.hits) console.log(`  ${String(h.rank).padStart(3)}  ${h.id}  ${h.docId}  ${h.score.toFixed(4)}  ${h.title}`);
  }
}
