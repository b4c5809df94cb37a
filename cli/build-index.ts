/**
 * `rag-lab build-index`: builds a knowledge-base artifact (format v1, docs/index-format.md) from a BEIR folder, a
 * RAGBench subset, a folder of PDF/TXT/MD/HTML files, arXiv or web pages, writes `<out>/<id>/…` and updates `<out>/index_config.json`, and with
 * `--push` uploads both to a Hub dataset repo: flags → the build session (`buildArtifact`, src/lib/kb-build/), which
 * is the same core as the Build tab's; here only the Node side (reading --data, the embedder, the files on disk).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ARXIV_API, ARXIV_MAX_RESULTS } from '../src/lib/data/arxiv.ts';
import { FILES } from '../src/lib/artifact/format.ts';
import { buildArtifact } from '../src/lib/kb-build/build-artifact.ts';
import { checkBuildFlags, WEB_FLAGS_HELP } from '../src/lib/kb-build/build-flags.ts';
import { DTYPES } from '../src/lib/models/types.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import { CliError, parse } from './args.ts';
import { cliFault, loadArxivData, loadBuildData, loadWebData } from './build-data.ts';
import { checkOutputDir, withFile } from './fs-errors.ts';
import { artifactFault, hubUrl, stderrOutput, tokenFromEnv } from './kb-arg.ts';
import { loadCliModels, MODEL_ARGS } from './models.ts';
import { ProgressBar } from '../src/lib/util/progress-bar.ts';
import { ensureIndexedDb } from './vector-files.ts';
import { testSetFolder } from '../src/lib/tune/test-set-make.ts';
import { folderReader } from './eval-beir.ts';

const HELP = `Usage: rag-lab build-index --data <source> --out <dir> [options]
       rag-lab build-index --arxiv "QUERY" --max N --out <dir> [options]
       rag-lab build-index --urls FILE | --search "QUERY" --search-endpoint URL [--max N] --out <dir> [options]

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
  --max N              with --arxiv: papers wanted, 1–${ARXIV_MAX_RESULTS} (default 200); with --search: see --search
  --arxiv-sort S       with --arxiv: relevance | lastUpdatedDate | submittedDate (default relevance)
  --arxiv-endpoint URL with --arxiv: the API endpoint (default ${ARXIV_API})
${WEB_FLAGS_HELP}
  --out DIR            the artifact repo folder: writes DIR/<id>/… and adds <id> to DIR/index_config.json
                       (other indexes listed there are kept; an index of the same id is replaced)
  --id ID              index id and folder name (default: from the data's folder or subset name)
  --title T            title shown in the knowledge-base picker (default: the id)
  --description D      one line shown under the title
  --split NAME         BEIR qrels split carried (default test)
  --testset DIR        carry this test set instead (rag-lab testset's folder: queries.jsonl, qrels/<split>.tsv), so
                       eval-beir --kb and tune --kb measure on it
  --chunk SIZE/OVERLAP chunk documents, e.g. 800/120 (default: ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap} for RAGBench and text folders,
                       none for BEIR: whole documents, as eval-beir ranks them without --chunk)
  --no-chunk           index whole documents
  --embedder ID        embed every chunk with this model (no embedder: a BM25-only artifact)
  --dtype D            ${DTYPES.join(' | ')} (default fp32): the embedder's weights
  --models-dir DIR     load the embedder from DIR/<owner>/<name>/ only (no downloads)
  --model-host URL     download the embedder from this host in Hub layout (default https://huggingface.co/)
  --int8               also ship int8-quantized vectors (about a quarter of the float32 bytes)
  --hnsw               also ship an HNSW graph (for large corpora; small ones are scanned exactly)
  --push OWNER/REPO    upload DIR/<id>/ and index_config.json to this Hub dataset repo (HF_ENDPOINT, default
                       https://huggingface.co); a concurrent writer is merged, not overwritten
  --token-env VAR      with --push: the environment variable holding the hf_ write token (never the token itself)
`;

export const NO_IDB = 'an HNSW graph is serialised through IndexedDB (hnswlib-wasm uses IDBFS), and the fake-indexeddb package that gives Node one is not installed (npm install fake-indexeddb)';

/**
 * Writes `files` under a staging folder beside `folder` (`.<name>.partial-<pid>`), then `clear`s the old folder and
 * renames the staging folder into place, so a failed run leaves the old one whole. Returns the bytes written.
 */
export function writeStagedFolder(folder: string, files: Iterable<[string, Uint8Array]>, clear: () => void, onFile?: (done: number) => void): number {
  const staging = join(dirname(folder), `.${basename(folder)}.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  let done = 0, bytes = 0;
  try {
    for (const [path, data] of files) {
      const file = join(staging, path);
      withFile(dirname(file), () => mkdirSync(dirname(file), { recursive: true }));
      withFile(file, () => writeFileSync(file, data));
      bytes += data.byteLength;
      onFile?.(++done);
    }
    clear();
    withFile(folder, () => renameSync(staging, folder));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return bytes;
}

export async function buildIndexCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, out: { type: 'string' }, id: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' },
    split: { type: 'string', default: 'test' }, chunk: { type: 'string' }, 'no-chunk': { type: 'boolean', default: false },
    int8: { type: 'boolean', default: false }, hnsw: { type: 'boolean', default: false },
    push: { type: 'string' }, 'token-env': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    arxiv: { type: 'string' }, max: { type: 'string' }, 'arxiv-sort': { type: 'string' }, 'arxiv-endpoint': { type: 'string' },
    urls: { type: 'string' }, search: { type: 'string' }, 'search-endpoint': { type: 'string' }, testset: { type: 'string' },
    ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  const { arxiv, web, chunking } = await cliFault(async () => checkBuildFlags(values, HELP));
  const token = values.push !== undefined ? tokenFromEnv(values['token-env'], 'it must hold an hf_ token with write access to the repo') : undefined;
  if (values.hnsw && !(await ensureIndexedDb())) throw new CliError(`--hnsw: ${NO_IDB}`);
  const out = resolve(values.out!);
  checkOutputDir(out, '--out');
  const configPath = join(out, FILES.indexConfig);
  const log = (m: string) => bar.log(m);
  const bar = new ProgressBar(stderrOutput(), {
    rate: (stage, done, ms) => (stage === 'embed' && ms > 0 ? `${(done / (ms / 1000)).toFixed(1)} passages/s` : null),
  });
  const remote = { onProgress: (p: { stage: string; done: number; total: number }) => bar.update(p.stage, p.done, p.total), onNotice: log }; // --arxiv, --urls / --search
  await cliFault(() => buildArtifact({
    id: values.id, title: values.title, description: values.description, chunking, int8: values.int8, hnsw: values.hnsw,
    push: values.push !== undefined ? { repo: values.push, hubUrl: hubUrl(), token: token! } : undefined,
  }, {
    collect: () => (arxiv || web
      ? (arxiv ? loadArxivData(arxiv, { ...(values['arxiv-endpoint'] !== undefined ? { endpoint: values['arxiv-endpoint'] } : {}), ...remote })
        : loadWebData(web!, remote)).finally(() => bar.end())
      : loadBuildData(values.data!, values.split)).then(async (d) => {
      if (!values.testset) return d;
      const t = await testSetFolder(folderReader(resolve(values.testset)), d.docs, values.split).catch((e: unknown) => { throw new CliError(`--testset ${values.testset}: ${(e as Error).message}`); });
      if (t.pseudo) throw new CliError(`--testset ${values.testset}: pseudo-queries are not carried (in an artifact they would lose their label)`);
      return { ...d, queries: t.queries, qrels: t.qrels, notes: [...d.notes, ...t.notes.map((n) => `--testset: ${n}`)] };
    }),
    ...(values.embedder ? { embedder: async () => (await loadCliModels({ ...values, 'no-cache': true }, { dense: true, reranker: false }, log)).embedder! } : {}),
    sink: {
      readConfig: () => (existsSync(configPath) ? { bytes: withFile(configPath, () => readFileSync(configPath)), path: configPath } : null),
      writeIndex: (id, files, onFile) => {
        const folder = join(out, id);
        writeStagedFolder(folder, files, () => withFile(folder, () => rmSync(folder, { recursive: true, force: true })), (done) => onFile(done, files.size));
        return folder;
      },
      writeConfig: (bytes) => { withFile(configPath, () => writeFileSync(configPath, bytes)); return configPath; },
    },
    progress: bar, log, fault: artifactFault,
  }));
}
