/**
 * `rag-lab train-embedder`: learns a corpus-trained embedding model (LSI, docs/corpus-embedder.md) from the items of
 * the knowledge base build-index makes of `--data` (whole documents for BEIR, 800/120 chunks for other data, an
 * artifact's own chunking; each item as BM25 indexes it, title line and text; queries and qrels are never read) —
 * the texts and the training session the tab uses (`trainOnData` → `trainOnTexts`), so both give the same model for
 * the same knowledge base — and writes it in Hub layout to `--out` (a staging folder renamed into place), loadable as any other model
 * with `--models-dir <dir> --embedder <owner>/<name>`.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { BuildError } from '../src/lib/kb-build/build-kb.ts';
import { trainOnData } from '../src/lib/kb-build/collect-data.ts';
import { TrainEmbedderError } from '../src/lib/kb-build/train-embedder.ts';
import { checkTrainFlags, trainedLine } from '../src/lib/kb-build/train-flags.ts';
import type { ChunkOptions } from '../src/lib/retrieval/chunk.ts';
import { TRAIN_DEFAULTS, type TrainedModel } from '../src/lib/models/corpus-embedder/train.ts';
import { CliError, parse } from './args.ts';
import { cliFault, loadBuildData } from './build-data.ts';
import { writeStagedFolder } from './build-index.ts';
import { checkOutputDir, withFile } from './fs-errors.ts';
import { stderrOutput } from './kb-arg.ts';
import { ProgressBar } from '../src/lib/util/progress-bar.ts';

const HELP = `Usage: rag-lab train-embedder --data <source> --out <MODELS_DIR/OWNER/NAME> [options]

Trains a corpus-trained embedding model (latent semantic indexing: a truncated SVD of the documents' tf-idf
matrix; no pretrained weights, no queries, no labels) and writes it as a transformers.js model folder.

  --data PATH          the documents to learn from, read as build-index reads --data: a BEIR folder
                       (corpus.jsonl only), a built knowledge base (artifact folder or .zip), a folder of PDF,
                       TXT, MD and HTML files, or a RAGBench subset; it learns from the items build-index would
                       index (title line + text of each whole BEIR document, else each chunk), as the tab does
  --out DIR            the model folder to create, e.g. models/corpus/scifact-lsi256 (it must not exist, or be
                       empty); then: --models-dir models --embedder corpus/scifact-lsi256
  --dim K              embedding size (default ${TRAIN_DEFAULTS.dim}; clamped to what the corpus allows, with a note; under 32 items or 16 dims: refused)
  --seed S             seed of the randomized SVD (default ${TRAIN_DEFAULTS.seed})
  --min-df N           a word is a term when at least N documents hold it (default ${TRAIN_DEFAULTS.minDf})
  --max-vocab N        at most N terms, the most frequent by document frequency (default ${TRAIN_DEFAULTS.maxVocab})
  --power-iterations Q power iterations of the randomized SVD (default ${TRAIN_DEFAULTS.powerIterations})
  --idf-power B        token vectors idf^B · U_k (default ${TRAIN_DEFAULTS.idfPower}; 0–8: a larger B quiets frequent words)
  --analysis A         what the SVD counts: words or stems (default ${TRAIN_DEFAULTS.analysis}); stems is BM25's analysis
                       (stop words dropped, Porter stems), every surface word of the corpus taking its stem's vector
  --json               print the summary as one JSON object on stdout
`;

/** `--out` must be a new or empty folder: a model folder is never overwritten. */
function checkOut(path: string): string {
  const out = resolve(path);
  if (existsSync(out)) {
    withFile(out, () => {
      if (!statSync(out).isDirectory()) throw new CliError(`--out ${path}: is a file, not a folder`);
      if (readdirSync(out).length > 0) throw new CliError(`--out ${path}: the folder exists and is not empty (remove it or give a new folder)`);
    });
  }
  checkOutputDir(dirname(out), '--out');
  return out;
}

/** `<owner>/<name>` when --out is `<models dir>/<owner>/<name>`: what --embedder takes. */
function modelId(out: string): string {
  return relative(dirname(dirname(out)), out).split(sep).join('/');
}

export async function trainEmbedderCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, out: { type: 'string' }, dim: { type: 'string' }, seed: { type: 'string' },
    'min-df': { type: 'string' }, 'max-vocab': { type: 'string' }, 'power-iterations': { type: 'string' }, 'idf-power': { type: 'string' },
    analysis: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data) throw new CliError(`--data is required\n\n${HELP}`);
  if (!values.out) throw new CliError(`--out is required (the model folder to create, e.g. models/corpus/<name>-lsi256)\n\n${HELP}`);
  const options = await cliFault(async () => checkTrainFlags(values));
  const out = checkOut(values.out);

  const bar = new ProgressBar(stderrOutput());
  const data = await loadBuildData(values.data);
  bar.log(`read ${data.summary}`);
  let model: TrainedModel, chunking: ChunkOptions | false;
  try {
    ({ model, chunking } = await trainOnData(data, { ...options, onProgress: (p) => bar.update(p.stage, p.done, p.total) }, values.data));
  } catch (e) {
    bar.end();
    if (e instanceof TrainEmbedderError || e instanceof BuildError) throw new CliError(e.message);
    throw e;
  }
  bar.end();
  for (const note of model.summary.notes) bar.log(`note: ${note}`);
  const bytes = writeStagedFolder(out, Object.entries(model.files), () => { if (existsSync(out)) withFile(out, () => rmSync(out, { recursive: false, force: true })); });
  const s = model.summary;
  const id = modelId(out);
  if (values.json) {
    console.log(JSON.stringify({ ...s, out, id, bytes }));
    return;
  }
  console.log(trainedLine(s, { id, analysis: options.analysis, chunked: chunking !== false, out, bytes, modelsDir: dirname(dirname(out)) }));
}
