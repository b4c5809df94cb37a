/**
 * The random-weight MiniLM-L6-shaped models `npm run bench:models` times, generated on first use into a folder
 * outside the repository (default `<os tmpdir>/rag-lab-minilm/`), in Hub layout `<root>/<owner>/<name>/<file>`:
 *
 *   rag-lab/minilm-shape/      `scripts/make-fixture-models.py --minilm` (BertModel, last_hidden_state) + variants
 *   rag-lab/minilm-shape-cls/  the same encoder + a [CLS] pooler and a one-logit head (models-make-classifier.py) + variants
 *   rag-lab/bench-embedder/, rag-lab/bench-reranker/
 *                              what is loaded: config and tokenizer files, `onnx/` linked to the folders above; the
 *                              tokenizer is the fixture's or the corpus vocabulary of models-vocab.ts (--vocab)
 *
 * Variants (models-quantize.py, the patterns of ONNX Runtime's quantizers): q8 onnx/model_quantized.onnx (dynamic
 * int8), uint8 onnx/model_uint8.onnx, q4 onnx/model_q4.onnx (MatMulNBits), fp16 onnx/model_fp16.onnx. A stamp file
 * holds a hash of the three Python generators; when they change, the models are rebuilt.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onnxGraphFile } from '../../src/lib/models/download-size.ts';
import { DTYPES, type Dtype } from '../../src/lib/models/types.ts';
import { corpusVocabTokenizer, type VocabStats } from './models-vocab.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '../..');
export const PYTHON = '/usr/bin/python3';
const MAKE_FIXTURES = join(REPO_ROOT, 'scripts/make-fixture-models.py');
const MAKE_CLASSIFIER = join(HERE, 'models-make-classifier.py');
const QUANTIZE = join(HERE, 'models-quantize.py');

export const EMBEDDER_ID = 'rag-lab/bench-embedder';
export const RERANKER_ID = 'rag-lab/bench-reranker';
const ENCODER = 'rag-lab/minilm-shape';
const CLASSIFIER = 'rag-lab/minilm-shape-cls';

/** A setup problem the user fixes (missing python3-onnx / python3-numpy, a bad --models-dir): message, exit code 2. */
export class SetupError extends Error {
  readonly exitCode = 2;
}

function checkPython(): void {
  const r = existsSync(PYTHON) ? spawnSync(PYTHON, ['-c', 'import onnx, numpy'], { encoding: 'utf8' }) : null;
  if (!r || r.status !== 0) {
    throw new SetupError(
      `Generating the MiniLM-shaped benchmark model needs Debian's python3-onnx and python3-numpy at ${PYTHON}` +
        `${r ? ` (${(r.stderr || '').trim().split('\n').pop()})` : ' (not found)'}. Install them with:\n` +
        '  apt-get install -y python3-onnx python3-numpy',
    );
  }
}

function py(log: (m: string) => void, ...args: string[]): void {
  const out = execFileSync(PYTHON, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  for (const line of out.trim().split('\n')) if (line) log(line);
}

function generatorsHash(): string {
  const h = createHash('sha256');
  for (const f of [MAKE_FIXTURES, MAKE_CLASSIFIER, QUANTIZE]) h.update(readFileSync(f));
  return h.digest('hex').slice(0, 16);
}

export interface BenchModels {
  root: string;
  embedderId: string;
  rerankerId: string;
  vocab: 'corpus' | 'fixture';
  vocabStats: VocabStats | null;
  generated: boolean;
  /** Sizes in bytes of the ONNX files, by dtype. */
  bytes: Record<Dtype, { embedder: number; reranker: number }>;
}

/**
 * Makes sure the generated models exist under `root` (building them into a scratch folder and renaming it into
 * place, so an interrupted run leaves nothing half-written), then writes the two `bench-*` model folders.
 */
export function ensureBenchModels(root: string, vocab: 'corpus' | 'fixture', corpusTexts: () => readonly string[], log: (m: string) => void): BenchModels {
  const rel = relative(REPO_ROOT, resolve(root));
  if (!rel.startsWith('..') && !isAbsolute(rel)) {
    throw new SetupError(`--models-dir ${root} is inside the repository: the generated models (~230 MB) must never be committed; use a folder outside it.`);
  }
  const stampFile = join(root, 'rag-lab', '.generated');
  const hash = generatorsHash();
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
  let generated = false;
  if (stamp !== hash) {
    checkPython();
    const scratch = join(root, `.scratch-${process.pid}`);
    rmSync(scratch, { recursive: true, force: true });
    const enc = join(scratch, ENCODER);
    const cls = join(scratch, CLASSIFIER);
    log(`generating the MiniLM-L6-shaped random model under ${root} (once; never commit it)`);
    py(log, MAKE_FIXTURES, '--minilm', enc);
    py(log, MAKE_CLASSIFIER, enc, cls);
    py(log, QUANTIZE, enc);
    py(log, QUANTIZE, cls);
    // Only the folders made here are replaced: anything else under `root` is left alone.
    mkdirSync(join(root, 'rag-lab'), { recursive: true });
    for (const id of [ENCODER, CLASSIFIER]) {
      rmSync(join(root, id), { recursive: true, force: true });
      renameSync(join(scratch, id), join(root, id));
    }
    rmSync(scratch, { recursive: true, force: true });
    writeFileSync(stampFile, `${hash}\n`);
    generated = true;
  }

  let vocabStats: VocabStats | null = null;
  let tokenizer: string | null = null;
  if (vocab === 'corpus') {
    const fixture = JSON.parse(readFileSync(join(root, ENCODER, 'tokenizer.json'), 'utf8'));
    const size = (JSON.parse(readFileSync(join(root, ENCODER, 'config.json'), 'utf8')) as { vocab_size: number }).vocab_size;
    const made = corpusVocabTokenizer(fixture, corpusTexts(), size);
    vocabStats = made.stats;
    tokenizer = JSON.stringify(made.tokenizer);
  }
  for (const [id, source] of [[EMBEDDER_ID, ENCODER], [RERANKER_ID, CLASSIFIER]] as const) {
    const dir = join(root, id);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const f of ['config.json', 'tokenizer_config.json', 'tokenizer.json']) cpSync(join(root, source, f), join(dir, f));
    if (tokenizer) writeFileSync(join(dir, 'tokenizer.json'), tokenizer);
    symlinkSync(join(root, source, 'onnx'), join(dir, 'onnx'), 'dir');
  }
  const size = (id: string, d: Dtype) => statSync(join(root, id, onnxGraphFile(d))).size;
  return {
    root,
    embedderId: EMBEDDER_ID,
    rerankerId: RERANKER_ID,
    vocab,
    vocabStats,
    generated,
    bytes: Object.fromEntries(DTYPES.map((d) => [d, { embedder: size(ENCODER, d), reranker: size(CLASSIFIER, d) }])) as BenchModels['bytes'],
  };
}
