/**
 * The build request of `rag-lab build-index` from its flags, checked before any work in the order the command
 * gives its errors (`--data`/`--arxiv`, `--chunk`, `--dtype`, `--int8`/`--hnsw`, `--id`, `--push`/`--token-env`);
 * a bad flag is a {@link BuildError} naming it. The token itself is read by the CLI (from the environment).
 */
import { ARXIV_MAX_RESULTS, type ArxivRequest } from '../data/arxiv.ts';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../retrieval/chunk.ts';
import { BuildError } from './build-kb.ts';

export interface BuildFlags {
  data?: string | undefined; out?: string | undefined; id?: string | undefined; chunk?: string | undefined; 'no-chunk': boolean;
  dtype?: string | undefined; embedder?: string | undefined; int8: boolean; hnsw: boolean; push?: string | undefined; 'token-env'?: string | undefined;
  arxiv?: string | undefined; max?: string | undefined; 'arxiv-sort'?: string | undefined; 'arxiv-endpoint'?: string | undefined;
}

const CHUNK = /^(\d+)\/(\d+)$/;
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
const SORTS = ['relevance', 'lastUpdatedDate', 'submittedDate'] as const;

/** `--chunk SIZE/OVERLAP` → chunk options (the default separators), checked. */
export function parseChunkArg(value: string): ChunkOptions {
  const m = CHUNK.exec(value.trim());
  if (!m) throw new BuildError(`--chunk must be SIZE/OVERLAP (e.g. ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}), got "${value}"`);
  const size = Number(m[1]), overlap = Number(m[2]);
  if (size < 1 || size > 100_000) throw new BuildError(`--chunk: the size must be between 1 and 100000 characters, got ${size}`);
  if (overlap >= size) throw new BuildError(`--chunk: the overlap (${overlap}) must be smaller than the size (${size})`);
  return { ...DEFAULT_CHUNKING, chunkSize: size, overlap };
}

/** `--arxiv`, `--max`, `--arxiv-sort`, checked (the endpoint is checked by arxivDocuments). */
function arxivRequest(values: BuildFlags): ArxivRequest {
  const query = values.arxiv!.trim();
  if (!query) throw new BuildError('--arxiv needs a query: words, or arXiv fields such as "ti:retrieval AND cat:cs.IR"');
  const max = values.max === undefined ? 200 : Number(values.max);
  if (!Number.isInteger(max) || max < 1 || max > ARXIV_MAX_RESULTS) throw new BuildError(`--max must be a whole number from 1 to ${ARXIV_MAX_RESULTS} (arXiv gives at most ${ARXIV_MAX_RESULTS} results per request), got "${values.max}"`);
  const sort = values['arxiv-sort'];
  if (sort !== undefined && !(SORTS as readonly string[]).includes(sort)) throw new BuildError(`--arxiv-sort must be ${SORTS.join(', ')}, got "${sort}"`);
  return { query, max, ...(sort ? { sortBy: sort as ArxivRequest['sortBy'] } : {}) };
}

/** The flags checked; `usage` follows the message of a missing `--data` or `--out`. The chunking is null when the data's own applies. */
export function checkBuildFlags(values: BuildFlags, usage: string): { arxiv: ArxivRequest | null; chunking: ChunkOptions | false | null } {
  if (values.data !== undefined && values.arxiv !== undefined) throw new BuildError('give --data or --arxiv, not both');
  const arxiv = values.arxiv !== undefined ? arxivRequest(values) : null;
  for (const flag of ['max', 'arxiv-sort', 'arxiv-endpoint'] as const) if (!arxiv && values[flag] !== undefined) throw new BuildError(`--${flag} goes with --arxiv`);
  if (!values.data && !arxiv) throw new BuildError(`--data (or --arxiv) is required\n\n${usage}`);
  if (!values.out) throw new BuildError(`--out is required (the folder that holds index_config.json and one folder per index)\n\n${usage}`);
  if (values.chunk !== undefined && values['no-chunk']) throw new BuildError('give --chunk SIZE/OVERLAP or --no-chunk, not both');
  const chunking = values.chunk !== undefined ? parseChunkArg(values.chunk) : values['no-chunk'] ? false : null;
  if (values.dtype !== 'fp32' && values.dtype !== 'q8') throw new BuildError(`--dtype must be q8 or fp32, got "${values.dtype}"`);
  if ((values.int8 || values.hnsw) && !values.embedder) throw new BuildError(`${values.int8 ? '--int8' : '--hnsw'} needs --embedder (it packs the vectors)`);
  if (values.id !== undefined && !ID.test(values.id)) throw new BuildError(`--id must be letters, digits, ".", "_" or "-" (at most 100, not starting with a dot), got "${values.id}"`);
  // Push checks come before any work: a missing token must not cost the build.
  if (values.push !== undefined) {
    if (!REPO.test(values.push)) throw new BuildError(`--push must be a Hub dataset repo id owner/name, got "${values.push}"`);
    if (values['token-env'] === undefined) throw new BuildError('--push needs --token-env VAR: the environment variable that holds your hf_ write token');
  } else if (values['token-env'] !== undefined) {
    throw new BuildError('--token-env goes with --push');
  }
  return { arxiv, chunking };
}
