/** `rag-lab eval-beir`: IR metrics of retrieval modes on a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv). */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DataError, parseCorpus, parseQrels, parseQueries } from '../src/lib/data/beir.ts';
import { evaluateBeir, type BeirEvalResult } from '../src/lib/eval/beir-eval.ts';
import { DEFAULT_BM25 } from '../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { isMode, MODE_IDS, MODES, type RetrievalMode } from '../src/lib/retrieval/modes.ts';
import { sha256Hex } from '../src/lib/store/checksum.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { CliError, numberArg, parse } from './args.ts';
import { loadCliModels, MODEL_ARGS, MODEL_HELP } from './models.ts';

const HELP = `Usage: rag-lab eval-beir --data <BEIR folder> [options]

  --data DIR        folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv
  --modes LIST      comma-separated modes, or "all" (default: sparse)
                    ${MODE_IDS.join(', ')}
  --split NAME      qrels split (default: test)
  --k1 K --b B      BM25 parameters (default: k1=${DEFAULT_BM25.k1}, b=${DEFAULT_BM25.b})
  --chunk           index ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}-character chunks and rank documents by their best chunk
  --run-out FILE    write the rankings as a TREC run file
  --json            print one JSON object on the last line of stdout
  --index KIND      vector index: auto | exact | int8 | hnsw (default auto)
${MODEL_HELP}
`;

function readData(dir: string, rel: string): string {
  const path = join(dir, rel);
  if (!existsSync(path)) throw new CliError(`${path}: file not found (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
  return readFileSync(path, 'utf8');
}

export async function evalBeirCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, modes: { type: 'string', default: 'sparse' }, split: { type: 'string', default: 'test' },
    k1: { type: 'string' }, b: { type: 'string' }, chunk: { type: 'boolean', default: false },
    'run-out': { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
    index: { type: 'string', default: 'auto' },
    ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data) throw new CliError(`--data is required\n\n${HELP}`);
  const modes: RetrievalMode[] = values.modes === 'all' ? [...MODE_IDS] : values.modes.split(',').map((m) => m.trim()).filter(Boolean).map((m) => {
    if (!isMode(m)) throw new CliError(`unknown mode "${m}" (choose from ${MODE_IDS.join(', ')}, or all)`);
    return m;
  });
  const k1 = numberArg('k1', values.k1, (n) => n >= 0, 'a number >= 0') ?? DEFAULT_BM25.k1;
  const b = numberArg('b', values.b, (n) => n >= 0 && n <= 1, 'a number in [0, 1]') ?? DEFAULT_BM25.b;
  const dir = resolve(values.data);
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };

  let docs, queries, qrels;
  try {
    docs = parseCorpus(readData(dir, 'corpus.jsonl'), join(dir, 'corpus.jsonl'));
    queries = parseQueries(readData(dir, 'queries.jsonl'), join(dir, 'queries.jsonl'));
    const qrelsFile = join('qrels', `${values.split}.tsv`);
    qrels = parseQrels(readData(dir, qrelsFile), join(dir, qrelsFile));
  } catch (e) {
    if (e instanceof DataError) throw new CliError(e.message);
    throw e;
  }

  const t0 = performance.now();
  const kb = KnowledgeBase.build(docs, { chunking: values.chunk ? DEFAULT_CHUNKING : false, bm25: { k1, b } });
  log(`indexed ${docs.length} documents as ${kb.size} ${values.chunk ? 'chunks' : 'documents'} in ${(performance.now() - t0).toFixed(0)} ms`);

  if (!['auto', 'exact', 'int8', 'hnsw'].includes(values.index)) throw new CliError(`--index must be auto, exact, int8 or hnsw, got "${values.index}"`);
  const need = { dense: modes.some((m) => MODES[m].needsDense), reranker: modes.some((m) => MODES[m].needsReranker) };
  const models = await loadCliModels(values, need, log);
  if (models.embedder) {
    const corpusHash = (await sha256Hex(readData(dir, 'corpus.jsonl'))).slice(0, 16);
    const t1 = performance.now();
    const setup = await attachDense(kb, models.embedder, {
      kbKey: `beir:${corpusHash}:${values.chunk ? 'chunk' : 'doc'}:${JSON.stringify(kb.options.chunking)}`,
      store: models.store,
      index: values.index as 'auto',
    });
    log(`dense: ${setup.dim} dimensions, ${setup.index} index, embeddings ${setup.source === 'cache' ? 'from cache' : 'computed'} in ${(performance.now() - t1).toFixed(0)} ms`);
    if (setup.cacheNote) log(setup.cacheNote);
  }

  const runLines: string[] = [];
  const result = await evaluateBeir(kb, queries, qrels, {
    dataset: basename(dir), modes, depth: 100, search: {}, models: models.search,
    ...(values['run-out'] ? { runLines } : {}),
  });
  if (values['run-out']) writeFileSync(values['run-out'], runLines.join('\n') + '\n');
  for (const [mode, reason] of Object.entries(result.skipped)) log(`skipped ${mode}: ${reason}`);
  if (values.json) console.log(JSON.stringify(result));
  else console.log(formatTable(result));
  if (Object.keys(result.modes).length === 0) throw new CliError('no mode could run', 1);
}

export function formatTable(r: BeirEvalResult): string {
  const cols = ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100', 'mean_ms', 'p95_ms'] as const;
  const head = ['mode'.padEnd(26), ...cols.map((c) => c.padStart(8))].join(' ');
  const rows = Object.entries(r.modes).map(([mode, m]) =>
    [mode.padEnd(26), ...cols.map((c) => (c.endsWith('_ms') ? m[c].toFixed(3) : m[c].toFixed(4)).padStart(8))].join(' '));
  return [`${r.dataset}: ${r.queries} judged queries`, head, ...rows].join('\n');
}
