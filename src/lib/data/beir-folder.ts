/**
 * A BEIR folder picked in the browser (the Benchmark tab's "Local folder"): the files as the picker lists them
 * (`webkitRelativePath`, e.g. `scifact/corpus.jsonl`, `scifact/qrels/test.tsv`), read with the parsers of beir.ts.
 * The folder is where the shallowest `corpus.jsonl` lies; its `queries.jsonl` and `qrels/<split>.tsv` sit beside it.
 * Errors are `DataError`s naming the file (a missing one names what to pick).
 */
import { DataError, parseCorpus, parseQrels, parseQueries, type BeirQuery, type Qrels } from './beir.ts';
import type { SourceDocument } from '../retrieval/document.ts';

export interface BeirFileEntry {
  /** The path as the picker gives it (folder name first, `/` separated). */
  path: string;
  read(): Promise<string>;
}

export interface BeirFolder {
  /** The folder's name (the dataset in reports); `beir` when the files were picked without one. */
  name: string;
  docs: SourceDocument[];
  queries: BeirQuery[];
  /** Judgements by split (`qrels/<split>.tsv`). */
  qrels: Map<string, Qrels>;
  /** The corpus file's text (what a content hash of the data is taken over). */
  corpusText: string;
}

const norm = (p: string) => p.replace(/\\/g, '/').replace(/^\.?\//, '');
const WHAT = 'pick a BEIR folder (corpus.jsonl, queries.jsonl and qrels/<split>.tsv)';

export async function readBeirFolder(files: readonly BeirFileEntry[]): Promise<BeirFolder> {
  const byPath = new Map(files.map((f) => [norm(f.path), f]));
  const corpora = [...byPath.keys()].filter((p) => p === 'corpus.jsonl' || p.endsWith('/corpus.jsonl'))
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  if (corpora.length === 0) throw new DataError('corpus.jsonl', null, `not among the ${files.length} picked files: ${WHAT}`);
  const corpusPath = corpora[0]!;
  const root = corpusPath.slice(0, corpusPath.length - 'corpus.jsonl'.length);
  const queriesFile = byPath.get(`${root}queries.jsonl`);
  if (!queriesFile) throw new DataError(`${root}queries.jsonl`, null, `missing next to ${corpusPath}: ${WHAT}`);
  const qrelPaths = [...byPath.keys()].filter((p) => p.startsWith(`${root}qrels/`) && /^[^/]+\.tsv$/.test(p.slice(root.length + 6))).sort();
  if (qrelPaths.length === 0) throw new DataError(`${root}qrels/test.tsv`, null, `missing (no qrels/<split>.tsv next to ${corpusPath}): ${WHAT}`);
  const corpusText = await byPath.get(corpusPath)!.read();
  const docs = parseCorpus(corpusText, corpusPath);
  const queries = parseQueries(await queriesFile.read(), `${root}queries.jsonl`);
  const qrels = new Map<string, Qrels>();
  for (const p of qrelPaths) qrels.set(p.slice(root.length + 6, -4), parseQrels(await byPath.get(p)!.read(), p));
  const name = root.replace(/\/$/, '').split('/').pop() || 'beir';
  return { name, docs, queries, qrels, corpusText };
}

export interface BeirFolderCounts {
  documents: number;
  queries: number;
  /** Queries of `queries.jsonl` judged in the split. */
  judged: number;
  splits: string[];
  /** What does not add up (judged queries or documents the other files lack), in words. */
  issues: string[];
}

/** The folder's counts for one split (the split's qrels missing: judged 0 and an issue naming the splits there are). */
export function beirFolderCounts(f: BeirFolder, split: string): BeirFolderCounts {
  const splits = [...f.qrels.keys()];
  const issues: string[] = [];
  const q = f.qrels.get(split);
  let judged = 0;
  if (!q) issues.push(`qrels/${split}.tsv is not in the folder (it has ${splits.map((s) => `qrels/${s}.tsv`).join(', ')})`);
  else {
    const ids = new Set(f.queries.map((x) => x.id));
    const docs = new Set(f.docs.map((d) => d.id));
    judged = f.queries.filter((x) => (q.get(x.id)?.size ?? 0) > 0).length;
    const lost = [...q.keys()].filter((id) => !ids.has(id)).length;
    if (lost > 0) issues.push(`${lost} quer${lost === 1 ? 'y' : 'ies'} judged in qrels/${split}.tsv ${lost === 1 ? 'is' : 'are'} not in queries.jsonl`);
    let missing = 0;
    for (const m of q.values()) for (const d of m.keys()) if (!docs.has(d)) missing++;
    if (missing > 0) issues.push(`${missing} judged document${missing === 1 ? ' is' : 's are'} not in corpus.jsonl`);
  }
  return { documents: f.docs.length, queries: f.queries.length, judged, splits, issues };
}
