/**
 * `rag-lab search`: top-k results of queries over a knowledge base, through the same core call and request fields
 * as the Search tab's session (`runSearch` with a SearchRequest) and the Search tab's defaults (url-state.ts), so
 * its `--json` output is what the browser shows for the same artifact (the browser parity test compares them).
 */
import { MODES } from '../src/lib/retrieval/modes.ts';
import type { SearchOutcome } from '../src/lib/retrieval/search.ts';
import type { SearchRequest } from '../src/lib/retrieval/search-request.ts';
import { runSearch } from '../src/lib/retrieval/search-run.ts';
import { flagHelp, flagOptions, readFlags } from '../src/lib/settings/cli-flags.ts';
import { recordedConfig } from '../src/lib/settings/schema.ts';
import { SEARCH_DEFAULTS, SEARCH_SETTINGS } from '../src/lib/settings/search.ts';
import { CliError, parse } from './args.ts';
import { attachKbDense, KB_ARGS, KB_HELP, modelArgsFor, openKb } from './kb-arg.ts';
import { readRunConfig } from './eval-beir.ts';
import { searchOfRunConfig } from '../src/lib/settings/run-config-file.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP } from './models.ts';

// The search settings' flags and help lines come from their declarations (src/lib/settings/search.ts).
const HELP = `Usage: rag-lab search [--kb KB] [options] "query" ["query" …]

${KB_HELP}
${flagHelp(SEARCH_SETTINGS)}
  --json             print one JSON object: {kb, mode, results: [{query, status, hits: [{id, docId, score, …}]}]}
  --config FILE      a tune's winner (rag-lab tune --config-out): its mode, search settings and BM25; a flag given wins
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
    ...KB_ARGS, ...flagOptions(SEARCH_SETTINGS), json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' }, config: { type: 'string' }, ...MODEL_ARGS,
  }, true);
  if (values.help) { console.log(HELP); return; }
  const queries = positionals.map((q) => q.trim()).filter(Boolean);
  if (queries.length === 0) throw new CliError(`a query is required\n\n${HELP}`);
  // A tune's winner (--config best.json): its mode and search settings (BM25's k1 and b among them); a flag given wins.
  const tuned = values.config ? searchOfRunConfig(readRunConfig(values.config)) : null;
  const settings = { ...SEARCH_DEFAULTS, ...tuned, ...readFlags(SEARCH_SETTINGS, values, (m) => new CliError(m)) };
  const mode = settings.mode, need = { dense: MODES[mode].needsDense, reranker: MODES[mode].needsReranker };
  checkModelArgs(values, need);
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const opened = await openKb(values, { log, dense: need.dense ? 'auto' : 'none' }), own = opened.kb.options.bm25;
  // The search re-weights BM25 with the settings' k1 / b (retrieval/bm25-variant.ts).
  if ((settings.k1 ?? own.k1) !== own.k1 || (settings.b ?? own.b) !== own.b) log(`BM25 k1 ${settings.k1 ?? own.k1}, b ${settings.b ?? own.b} (the index was built with ${own.k1}, ${own.b})`);
  const models = await loadCliModels(modelArgsFor(values, opened, argv), need, log);
  await attachKbDense(opened, models, {}, log);

  const results: { query: string; status: SearchOutcome['status']; reason?: string; confidence: number | null; hits: SearchJsonHit[] }[] = [];
  for (const query of queries) {
    // The request the Search tab sends its session (SearchRequest), field by field.
    const request: SearchRequest = { query, ...settings, filters: [] };
    const out = (await runSearch(opened.kb, request, models.search))!;
    if (out.status === 'unavailable') throw new CliError(`${mode}: ${out.reason}`);
    const hits = out.hits.map((h): SearchJsonHit => {
      const doc = opened.kb.docOf(h.item);
      return { rank: h.rank, id: h.id, docId: h.docId, score: h.score, sparse: h.sparse, dense: h.dense, sparseCal: h.sparseCal, denseCal: h.denseCal, rerank: h.rerank, title: doc.title, meta: doc.meta ?? {} };
    });
    results.push({ query, status: out.status, ...('reason' in out ? { reason: out.reason } : {}), confidence: out.telemetry?.confidence ?? null, hits });
  }
  if (values.json) {
    // The settings set (unset k's and threshold left out), as the request carried them.
    console.log(JSON.stringify({ kb: opened.label, ...recordedConfig(SEARCH_SETTINGS, settings, { omitNull: true }), results }));
    return;
  }
  for (const r of results) {
    console.log(`${r.query}${r.status === 'ok' ? '' : ` [${r.status}${r.reason ? `: ${r.reason}` : ''}]`}`);
    for (const h of r.hits) console.log(`  ${String(h.rank).padStart(3)}  ${h.id}  ${h.docId}  ${h.score.toFixed(4)}  ${h.title}`);
  }
}
