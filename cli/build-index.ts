/**
 * `rag-lab build-index`: builds a knowledge-base artifact (format v1, docs/index-format.md) from a BEIR folder, a
 * RAGBench subset or a folder of PDF/TXT/MD/HTML files, writes `<out>/<id>/…` and updates `<out>/index_config.json`, and with
 * `--push` uploads both to a Hub dataset repo. The same core (KnowledgeBase, embedItems, writeArtifact) as the browser.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ARXIV_API, ARXIV_MAX_RESULTS, type ArxivRequest } from '../src/lib/data/arxiv.ts';
import { FILES, parseIndexConfig, parseJsonBytes, type IndexConfig } from '../src/lib/artifact/format.ts';
import { ArtifactError } from '../src/lib/artifact/types.ts';
import { addToIndexConfig, indexConfigBytes, writeArtifact, type ArtifactInput } from '../src/lib/artifact/write.ts';
import { pushFiles } from '../src/lib/hub/push.ts';
import { prefixesFor } from '../src/lib/models/registry.ts';
import type { TextEmbedder } from '../src/lib/models/types.ts';
import { DEFAULT_BM25 } from '../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../src/lib/retrieval/chunk.ts';
import { denseCdfTable, embedItems } from '../src/lib/retrieval/dense-build.ts';
import { ExactDenseIndex } from '../src/lib/retrieval/dense.ts';
import { HNSW_DEFAULTS, HnswIndex } from '../src/lib/retrieval/hnsw.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { buildVectorIndex } from '../src/lib/retrieval/vector-index.ts';
import { CliError, parse } from './args.ts';
import { dataChunking, loadArxivData, loadBuildData, type BuildData } from './build-data.ts';
import { checkOutputDir, withFile } from './fs-errors.ts';
import { artifactFault, hubUrl, stderrOutput, tokenFromEnv } from './kb-arg.ts';
import { loadCliModels, MODEL_ARGS } from './models.ts';
import { ProgressBar } from './progress-bar.ts';
import { ensureIndexedDb } from './vector-files.ts';

const HELP = `Usage: rag-lab build-index --data <source> --out <dir> [options]
       rag-lab build-index --arxiv "QUERY" --max N --out <dir> [options]

  --data PATH          what to index, detected from what the path holds:
                         a BEIR folder (corpus.jsonl; queries.jsonl and qrels/<split>.tsv travel with the artifact)
                         a RAGBench subset: <subset>.jsonl or .parquet, or a folder of one subset's files
                         a folder of PDF, TXT, MD and HTML files (subfolders too): a document per file, and per
                         page of a PDF (title = first Markdown heading, HTML <title>, PDF title, else the file name);
                         files that cannot be used are listed with the reason
                         a built knowledge base: a .zip (the Build tab's export) or an artifact folder
                         [#index-id]: its documents (and queries, qrels) built again with these flags (its
                         title and chunking unless --title / --chunk / --no-chunk say otherwise)
  --arxiv QUERY        index arXiv papers (titles and abstracts, arXiv ids and links as metadata) found by QUERY:
                       plain words (each must match: all:word AND …) or arXiv's syntax (ti:, abs:, au:, cat:,
                       AND / OR / ANDNOT), e.g. "ti:retrieval AND cat:cs.IR"; one request every 3 seconds
  --max N              with --arxiv: papers wanted, 1–${ARXIV_MAX_RESULTS} (default 200)
  --arxiv-sort S       with --arxiv: relevance | lastUpdatedDate | submittedDate (default relevance)
  --arxiv-endpoint URL with --arxiv: the API endpoint (default ${ARXIV_API})
  --out DIR            the artifact repo folder: writes DIR/<id>/… and adds <id> to DIR/index_config.json
                       (other indexes listed there are kept; an index of the same id is replaced)
  --id ID              index id and folder name (default: from the data's folder or subset name)
  --title T            title shown in the knowledge-base picker (default: the id)
  --description D      one line shown under the title
  --split NAME         BEIR qrels split carried (default test)
  --chunk SIZE/OVERLAP chunk documents, e.g. 800/120 (default: ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap} for RAGBench and text folders,
                       none for BEIR: whole documents, as eval-beir ranks them without --chunk)
  --no-chunk           index whole documents
  --embedder ID        embed every chunk with this model (no embedder: a BM25-only artifact)
  --dtype D            q8 | fp32 (default fp32): the embedder's weights
  --models-dir DIR     load the embedder from DIR/<owner>/<name>/ only (no downloads)
  --model-host URL     download the embedder from this host in Hub layout (default https://huggingface.co/)
  --int8               also ship int8-quantized vectors (about a quarter of the float32 bytes)
  --hnsw               also ship an HNSW graph (for large corpora; small ones are scanned exactly)
  --push OWNER/REPO    upload DIR/<id>/ and index_config.json to this Hub dataset repo (HF_ENDPOINT, default
                       https://huggingface.co); a concurrent writer is merged, not overwritten
  --token-env VAR      with --push: the environment variable holding the hf_ write token (never the token itself)
`;

export const NO_IDB = 'an HNSW graph is serialised through IndexedDB (hnswlib-wasm uses IDBFS), and the fake-indexeddb package that gives Node one is not installed (npm install fake-indexeddb)';

const CHUNK = /^(\d+)\/(\d+)$/;

/** `--chunk SIZE/OVERLAP` → chunk options (the default separators), checked. */
export function parseChunkArg(value: string): ChunkOptions {
  const m = CHUNK.exec(value.trim());
  if (!m) throw new CliError(`--chunk must be SIZE/OVERLAP (e.g. ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}), got "${value}"`);
  const size = Number(m[1]), overlap = Number(m[2]);
  if (size < 1 || size > 100_000) throw new CliError(`--chunk: the size must be between 1 and 100000 characters, got ${size}`);
  if (overlap >= size) throw new CliError(`--chunk: the overlap (${overlap}) must be smaller than the size (${size})`);
  return { ...DEFAULT_CHUNKING, chunkSize: size, overlap };
}

const writeBytes = (path: string, bytes: Uint8Array) => withFile(path, () => writeFileSync(path, bytes));

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

const SORTS = ['relevance', 'lastUpdatedDate', 'submittedDate'] as const;

/** `--arxiv`, `--max`, `--arxiv-sort`, checked (the endpoint is checked by arxivDocuments). */
function arxivRequest(values: { arxiv?: string; max?: string; 'arxiv-sort'?: string }): ArxivRequest {
  const query = values.arxiv!.trim();
  if (!query) throw new CliError('--arxiv needs a query: words, or arXiv fields such as "ti:retrieval AND cat:cs.IR"');
  const max = values.max === undefined ? 200 : Number(values.max);
  if (!Number.isInteger(max) || max < 1 || max > ARXIV_MAX_RESULTS) throw new CliError(`--max must be a whole number from 1 to ${ARXIV_MAX_RESULTS} (arXiv gives at most ${ARXIV_MAX_RESULTS} results per request), got "${values.max}"`);
  const sort = values['arxiv-sort'];
  if (sort !== undefined && !(SORTS as readonly string[]).includes(sort)) throw new CliError(`--arxiv-sort must be ${SORTS.join(', ')}, got "${sort}"`);
  return { query, max, ...(sort ? { sortBy: sort as ArxivRequest['sortBy'] } : {}) };
}

/** Reads and validates an existing `<out>/index_config.json`, or null when there is none. */
function readIndexConfig(path: string): IndexConfig | null {
  if (!existsSync(path)) return null;
  const bytes = withFile(path, () => readFileSync(path));
  try {
    return parseIndexConfig(parseJsonBytes(bytes, path), path);
  } catch (e) {
    if (e instanceof ArtifactError) throw new CliError(`${e.message} (fix or remove it; build-index adds to it and keeps the other indexes)`);
    throw e;
  }
}

/** Row-major vectors of the knowledge base's items, with progress and passages/s. */
async function embedAll(kb: KnowledgeBase, embedder: TextEmbedder, bar: ProgressBar): Promise<{ vectors: Float32Array; dim: number; seconds: number }> {
  const t0 = performance.now();
  const got = await embedItems(kb, embedder, { onProgress: (d, t) => bar.update('embed', d, t) });
  bar.end();
  return { ...got, seconds: (performance.now() - t0) / 1000 };
}

export async function buildIndexCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, out: { type: 'string' }, id: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' },
    split: { type: 'string', default: 'test' }, chunk: { type: 'string' }, 'no-chunk': { type: 'boolean', default: false },
    int8: { type: 'boolean', default: false }, hnsw: { type: 'boolean', default: false },
    push: { type: 'string' }, 'token-env': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    arxiv: { type: 'string' }, max: { type: 'string' }, 'arxiv-sort': { type: 'string' }, 'arxiv-endpoint': { type: 'string' },
    ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (values.data !== undefined && values.arxiv !== undefined) throw new CliError('give --data or --arxiv, not both');
  const arxiv = values.arxiv !== undefined ? arxivRequest(values) : null;
  for (const flag of ['max', 'arxiv-sort', 'arxiv-endpoint'] as const) if (!arxiv && values[flag] !== undefined) throw new CliError(`--${flag} goes with --arxiv`);
  if (!values.data && !arxiv) throw new CliError(`--data (or --arxiv) is required\n\n${HELP}`);
  if (!values.out) throw new CliError(`--out is required (the folder that holds index_config.json and one folder per index)\n\n${HELP}`);
  if (values.chunk !== undefined && values['no-chunk']) throw new CliError('give --chunk SIZE/OVERLAP or --no-chunk, not both');
  const chunkArg = values.chunk !== undefined ? parseChunkArg(values.chunk) : values['no-chunk'] ? false : null;
  if (values.dtype !== 'fp32' && values.dtype !== 'q8') throw new CliError(`--dtype must be q8 or fp32, got "${values.dtype}"`);
  if ((values.int8 || values.hnsw) && !values.embedder) throw new CliError(`${values.int8 ? '--int8' : '--hnsw'} needs --embedder (it packs the vectors)`);
  if (values.id !== undefined && !ID.test(values.id)) throw new CliError(`--id must be letters, digits, ".", "_" or "-" (at most 100, not starting with a dot), got "${values.id}"`);
  // Push checks come before any work: a missing token must not cost the build.
  let token: string | undefined;
  if (values.push !== undefined) {
    if (!REPO.test(values.push)) throw new CliError(`--push must be a Hub dataset repo id owner/name, got "${values.push}"`);
    if (values['token-env'] === undefined) throw new CliError('--push needs --token-env VAR: the environment variable that holds your hf_ write token');
    token = tokenFromEnv(values['token-env'], 'it must hold an hf_ token with write access to the repo');
  } else if (values['token-env'] !== undefined) {
    throw new CliError('--token-env goes with --push');
  }
  if (values.hnsw && !(await ensureIndexedDb())) throw new CliError(`--hnsw: ${NO_IDB}`);
  const out = resolve(values.out);
  checkOutputDir(out, '--out');
  const configPath = join(out, FILES.indexConfig);
  const previous = readIndexConfig(configPath);
  const log = (m: string) => bar.log(m);
  const bar = new ProgressBar(stderrOutput(), {
    rate: (stage, done, ms) => (stage === 'embed' && ms > 0 ? `${(done / (ms / 1000)).toFixed(1)} passages/s` : null),
  });

  const data: BuildData = arxiv
    ? await loadArxivData(arxiv, {
      ...(values['arxiv-endpoint'] !== undefined ? { endpoint: values['arxiv-endpoint'] } : {}),
      onProgress: (p) => bar.update('download', p.done, p.total), onNotice: log,
    }).finally(() => bar.end())
    : await loadBuildData(values.data!, values.split);
  log(`data: ${data.summary}`);
  for (const n of data.notes) log(n);
  const id = values.id ?? data.id;
  const title = values.title ?? data.title ?? id;
  const chunking = chunkArg ?? dataChunking(data);

  const kb = KnowledgeBase.build(data.docs, { chunking, bm25: DEFAULT_BM25 }, (stage, done, total) => bar.update(stage, done, total));
  bar.end();
  log(`indexed ${data.docs.length} documents as ${kb.size} ${chunking ? `chunks of ${chunking.chunkSize}/${chunking.overlap}` : 'whole documents'}`);

  let dense: ArtifactInput['dense'];
  if (values.embedder) {
    const models = await loadCliModels({ ...values, 'no-cache': true }, { dense: true, reranker: false }, log);
    const embedder = models.embedder!;
    const { vectors, dim, seconds } = await embedAll(kb, embedder, bar);
    log(`embedded ${kb.size} passages with ${embedder.spec.id} (${embedder.spec.dtype}) in ${seconds.toFixed(1)} s: ${(kb.size / Math.max(seconds, 1e-9)).toFixed(1)} passages/s`);
    // The dense corpus-CDF table as attachDense computes it (same pseudo-queries and seed), over the exact vectors.
    bar.update('dense-calibrate', 0, 1);
    const exact = new ExactDenseIndex(vectors, dim, 'cosine');
    const cdf = await denseCdfTable(kb, exact, embedder, kb.options.cdfQueries, kb.options.seed);
    bar.update('dense-calibrate', 1, 1);
    bar.end();
    let hnsw = null;
    if (values.hnsw) {
      const index = await buildVectorIndex('hnsw', vectors, dim, (d, t) => bar.update('hnsw', d, t), { metric: 'cosine', hnsw: HNSW_DEFAULTS });
      bar.end();
      hnsw = await (index as HnswIndex).toData();
      (index as HnswIndex).dispose();
    }
    const p = prefixesFor(embedder.spec.id);
    dense = {
      vectors, dim, cdf, int8: values.int8, hnsw,
      embedder: { id: embedder.spec.id, dtype: embedder.spec.dtype, dim, pooling: 'mean', normalized: true, prefixes: { query: p.query, passage: p.passage } },
    };
  }

  bar.update('encode', 0, 1);
  let built;
  try {
    built = await writeArtifact({
      id, title, fields: data.fields, kb,
      ...(values.description !== undefined ? { description: values.description } : arxiv ? { description: `arXiv: ${arxiv.query} (${data.docs.length} papers)` } : {}),
      ...(data.examples ? { examples: data.examples } : {}),
      ...(dense ? { dense } : {}),
      ...(data.queries ? { queries: data.queries } : {}),
      ...(data.qrels ? { qrels: data.qrels } : {}),
    });
  } catch (e) {
    bar.end();
    return artifactFault(e);
  }
  bar.update('encode', 1, 1);
  bar.end();
  const config = addToIndexConfig(previous, built.entry);
  // The index folder is written beside its final place and renamed in, so a failed run leaves the old one whole.
  const folder = join(out, id);
  const staging = join(out, `.${id}.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  let done = 0;
  try {
    for (const [path, bytes] of built.files) {
      const file = join(staging, path);
      withFile(dirname(file), () => mkdirSync(dirname(file), { recursive: true }));
      writeBytes(file, bytes);
      bar.update('write', ++done, built.files.size);
    }
    withFile(folder, () => rmSync(folder, { recursive: true, force: true }));
    withFile(folder, () => renameSync(staging, folder));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  writeBytes(configPath, indexConfigBytes(config));
  bar.end();
  const bytes = [...built.files.values()].reduce((a, b) => a + b.byteLength, 0);
  log(`wrote ${folder} (${built.files.size} files, ${(bytes / 1e6).toFixed(2)} MB) and ${configPath} (${config.indexes.length} ${config.indexes.length === 1 ? 'index' : 'indexes'})`);

  if (values.push !== undefined) {
    log(`pushing ${built.files.size + 1} files to ${values.push} on ${new URL(hubUrl()).host}`);
    const files = new Map<string, Uint8Array>();
    for (const [path, b] of built.files) files.set(`${id}/${path}`, b);
    try {
      const pushed = await pushFiles({
        repo: values.push, files, hubUrl: hubUrl(), token: token!,
        title: `build-index: ${id}`,
        // Re-read at every try (a concurrent writer's 412): their entries are kept, ours added or replaced.
        updateIndexConfig: (remote) => indexConfigBytes(addToIndexConfig(remote ? parseIndexConfig(parseJsonBytes(remote, FILES.indexConfig)) : null, built.entry)),
      });
      log(`pushed ${id} to ${values.push}: commit ${pushed.commit}${pushed.attempts > 1 ? ` (after ${pushed.attempts - 1} concurrent commits)` : ''}`);
    } catch (e) {
      return artifactFault(e);
    }
  }
}
