/**
 * `--kb`, one resolver for every command that reads a knowledge base (ask, eval-beir, search):
 *   sotu                               the embedded State of the Union corpus (indexed now)
 *   <folder>[#index-id]                an artifact folder: index_config.json (pick an index with #id when it lists
 *                                      several), one index folder with meta.json, or a seed-A folder
 *   <file>.zip[#index-id]              the same folder as a .zip (the Build tab's export)
 *   hub:owner/repo[@revision][#index]  an artifact repo on the Hub (HF_ENDPOINT, default https://huggingface.co),
 *                                      files cached under ~/.cache/rag-lab/artifacts
 *   <BEIR folder>                      (only where a command allows it: ask) a folder with corpus.jsonl, indexed now
 */
import { HUB_ORIGIN } from '../src/lib/hub/endpoint.ts';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { OpenArtifactOptions } from '../src/lib/artifact/read.ts';
import { ArtifactError, type ArtifactDense, type FileSource } from '../src/lib/artifact/types.ts';
import { DataError, parseCorpus, type BeirQuery, type Qrels } from '../src/lib/data/beir.ts';
import type { SourceDocument } from '../src/lib/retrieval/document.ts';
import { redactSecrets } from '../src/lib/util/redact.ts';
import { KbSpecError, resolveKbSpec, type KbTarget, type PathProbe } from '../src/lib/data/kb-spec.ts';
import { sotuDocuments } from '../src/lib/data/sotu.ts';
import { hubSource } from '../src/lib/hub/hub-source.ts';
import { openArtifactIndex } from '../src/lib/rag/artifact-index.ts';
import { attachKbVectors, contentVectorKey, type VectorsAttached } from '../src/lib/rag/kb-vectors.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import type { VectorIndexChoice } from '../src/lib/retrieval/vector-index.ts';
import { sotuCorpusJson } from './sotu-corpus.ts';
import { zipFileSource } from './artifact-data.ts';
import { folderArtifactCache } from './artifact-file-cache.ts';
import { CliError } from './args.ts';
import { folderSource } from './folder-source.ts';
import { readText } from './fs-errors.ts';
import type { CliModels, ModelArgs } from './models.ts';
import { ProgressBar, type ProgressOutput } from '../src/lib/util/progress-bar.ts';
import { writeRaw } from './terminal.ts';
import { ensureIndexedDb } from './vector-files.ts';

export const KB_HELP = `  --kb KB            sotu | <artifact folder>[#index-id] | <kb.zip>[#index-id] | hub:owner/repo[@revision][#index-id]
                     (an artifact folder holds index_config.json, or meta.json, as build-index writes it; a .zip
                     holds that folder, as the Build tab exports it), or a BEIR folder with corpus.jsonl (indexed
                     now); default sotu (the embedded State of the Union speeches)
  --token-env VAR    for a private Hub repo: read the hf_ token from the environment variable VAR`;

const nodeProbe: PathProbe = { resolve: (p) => resolve(p), exists: existsSync, isDirectory: (p) => statSync(p).isDirectory(), has: (d, f) => existsSync(join(d, f)) };

/** What `--kb` names (resolveKbSpec over this file system), or the one-line CliError. */
export function parseKbArg(value: string, opts: { allowBeir?: boolean; flag?: string } = {}): KbTarget {
  try {
    return resolveKbSpec(value, { allowBeir: opts.allowBeir ?? false, flag: opts.flag ?? '--kb' }, nodeProbe);
  } catch (e) {
    return artifactFault(e);
  }
}

/** A knowledge base ready to search, whatever `--kb` named. */
export interface CliKb {
  /** Stable id (the cache keys of computed embeddings use it). */
  id: string;
  /** For messages and JSON output: "sotu", "/data/kb#scifact", "hub:owner/repo@sha#scifact". */
  label: string;
  kb: KnowledgeBase;
  /** The artifact's vectors when it has them. */
  dense: ArtifactDense | null;
  queries: BeirQuery[] | null;
  qrels: Qrels | null;
  /** Text whose hash keys embeddings computed now (the corpus file, or the artifact's meta.json). */
  hashText: string;
  notes: string[];
}

function indexNow(id: string, docs: SourceDocument[], hashText: string): CliKb {
  return { id, label: id, kb: KnowledgeBase.build(docs), dense: null, queries: null, qrels: null, hashText, notes: [] };
}

/** The embedded corpus or a BEIR folder, indexed now with the default options. */
export function indexedKb(arg: Extract<KbTarget, { kind: 'sotu' | 'beir' }>): CliKb {
  if (arg.kind === 'sotu') {
    const text = sotuCorpusJson();
    return indexNow('sotu', sotuDocuments(JSON.parse(text)), text);
  }
  const file = join(arg.dir, 'corpus.jsonl');
  const text = readText(file);
  try {
    return indexNow(arg.dir, parseCorpus(text, file), text);
  } catch (e) {
    if (e instanceof DataError) throw new CliError(e.message);
    throw e;
  }
}

// ------------------------------------------------------------------------------------------------ artifacts

export const KB_ARGS = {
  kb: { type: 'string' },
  'token-env': { type: 'string' },
} as const;

/** The Hub the CLI talks to: `HF_ENDPOINT` (as huggingface_hub reads it), default https://huggingface.co. */
export function hubUrl(): string {
  return (process.env.HF_ENDPOINT ?? '').trim().replace(/\/+$/, '') || HUB_ORIGIN;
}

/**
 * The hf_ token from the environment variable `--token-env` names (never from a flag value: command lines end up in
 * shell history and process lists). Undefined without the flag; a CliError when the variable is unset or empty.
 */
export function tokenFromEnv(name: string | undefined, why: string): string | undefined {
  if (name === undefined) return undefined;
  // The value is not echoed: someone may have pasted the token itself.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || /^hf_/i.test(name)) throw new CliError("--token-env: not an environment variable name (give the variable's name, e.g. HF_TOKEN, not the token)");
  const token = process.env[name]?.trim();
  if (!token) throw new CliError(`--token-env ${name}: the environment variable ${name} is not set (${why})`);
  return token;
}

/** Turns an artifact or `--kb` fault into the one-line CLI error (exit 2); other errors pass. */
export function artifactFault(e: unknown): never {
  if (e instanceof KbSpecError) throw new CliError(e.message);
  if (e instanceof ArtifactError) throw new CliError(forTerminal(e.message.split('\n')[0]!));
  throw e;
}

/** The core's messages speak of the app's Settings; on the command line the token comes from --token-env. */
export function forTerminal(message: string): string {
  return message.replace(/ in Settings\b/g, ' with --token-env VAR (the environment variable that holds it)');
}

export interface OpenKbOptions {
  log: (m: string) => void;
  /** A folder with corpus.jsonl is indexed now (ask). */
  allowBeir?: boolean;
  /** Which of the artifact's vectors to read (default 'auto': int8 when shipped, else float32; 'none' without dense modes). */
  dense?: OpenArtifactOptions['dense'];
  /** Also read the shipped HNSW graph. */
  hnsw?: boolean;
}

/** Opens what `--kb` names (`sotu` when absent). */
export async function openKb(values: { kb?: string | undefined; 'token-env'?: string | undefined }, opts: OpenKbOptions): Promise<CliKb> {
  const arg = parseKbArg(values.kb ?? 'sotu', { allowBeir: opts.allowBeir ?? false });
  if (arg.kind !== 'hub' && values['token-env'] !== undefined) throw new CliError('--token-env is for a hub: knowledge base');
  if (arg.kind === 'sotu' || arg.kind === 'beir') return indexedKb(arg);
  const token = arg.kind === 'hub' ? tokenFromEnv(values['token-env'], 'it holds the hf_ token for the private repo') : undefined;
  let source: FileSource;
  try {
    // For the Hub, resolving the revision is the first request: an unreachable host or a private repo fails here.
    source = arg.kind === 'zip' ? zipFileSource(arg.file) : arg.kind === 'folder' ? folderSource(arg.dir) : await hubSource({
      repo: arg.repo, hubUrl: hubUrl(), cache: folderArtifactCache(),
      ...(arg.revision !== null ? { revision: arg.revision } : {}), ...(token ? { token } : {}),
    });
  } catch (e) {
    return artifactFault(e);
  }
  const label = source.label;
  if (opts.hnsw && !(await ensureIndexedDb())) throw new CliError('--index hnsw: restoring a shipped HNSW graph needs IndexedDB, and fake-indexeddb is not installed (npm install fake-indexeddb)');
  const bar = new ProgressBar(stderrOutput());
  try {
    const { opened, id: full, hashText } = await openArtifactIndex(source, arg.index, label, {
      dense: opts.dense ?? 'auto',
      ...(opts.hnsw ? { hnsw: true } : {}),
      // Downloads get a progress bar; a local folder reads in a blink.
      ...(arg.kind === 'hub' ? { onProgress: (file: string, done: number, total: number) => bar.update(`download ${file}`, done, total, 'bytes') } : {}),
    });
    bar.end();
    for (const n of opened.notes) opts.log(n);
    opts.log(`opened ${full}: ${opened.kb.docs.length} documents, ${opened.kb.size} items${opened.dense ? `, vectors by ${opened.dense.embedder.id} (${opened.dense.embedder.dtype}, ${opened.dense.embedder.dim} dimensions)` : ''}`);
    return { id: full, label: full, kb: opened.kb, dense: opened.dense, queries: opened.queries, qrels: opened.qrels, hashText, notes: opened.notes };
  } catch (e) {
    bar.end();
    return artifactFault(e);
  }
}

/** stderr for a progress bar and log lines: raw writes (its \r must not be escaped), credentials redacted, and the terminal's width. */
export function stderrOutput(): ProgressOutput {
  return { isTTY: process.stderr.isTTY === true, columns: process.stderr.columns, write: (t: string) => writeRaw(process.stderr, redactSecrets(t)) };
}

const flagGiven = (argv: readonly string[], flag: string) => argv.some((a) => a === flag || a.startsWith(`${flag}=`));

/**
 * The model flags for an artifact with vectors: the query embedder is the artifact's unless --embedder names
 * another (a CliError: its queries would not live in the vectors' space), and its dtype the artifact's unless
 * --dtype is given.
 */
export function modelArgsFor<T extends ModelArgs>(values: T, kb: CliKb, argv: readonly string[]): T {
  const made = kb.dense?.embedder;
  if (!made) return values;
  if (values.embedder !== undefined && values.embedder !== made.id) {
    throw new CliError(`--embedder ${values.embedder} does not match the artifact: its vectors were made by ${made.id} (give --embedder ${made.id}, or leave --embedder out)`);
  }
  return { ...values, embedder: made.id, dtype: flagGiven(argv, '--dtype') ? values.dtype : made.dtype };
}

/**
 * Gives the knowledge base its dense side when an embedder loaded: the artifact's vectors when it has them
 * (`attachArtifactDense`), else embeddings computed now (or from the vector cache) under `kbKey`.
 */
export async function attachKbDense(kb: CliKb, models: CliModels, opts: { index?: VectorIndexChoice; kbKey?: string }, log: (m: string) => void): Promise<void> {
  if (!models.embedder) return;
  const t0 = performance.now();
  let attached: VectorsAttached;
  try {
    const kbKey = async () => opts.kbKey ?? contentVectorKey(kb.id, kb.hashText, kb.kb);
    attached = await attachKbVectors(kb.kb, kb.dense, models.embedder, { kbKey, store: models.store, index: opts.index ?? 'auto' });
  } catch (e) {
    if (!kb.dense) throw e;
    if (e instanceof ArtifactError) artifactFault(e);
    // Another embedder or dimension than the vectors': the core's sentence, as one line.
    throw new CliError(`${kb.label}: ${(e as Error).message}`);
  }
  const { setup } = attached;
  const ms = (performance.now() - t0).toFixed(0);
  if (kb.dense) return log(`dense: the artifact's vectors, ${setup.dim} dimensions, ${setup.index} index, ready in ${ms} ms`);
  log(`dense: ${setup.dim} dimensions, ${setup.index} index, embeddings ${setup.source === 'cache' ? 'from cache' : 'computed'} in ${ms} ms`);
  if (setup.cacheNote) log(setup.cacheNote);
}
