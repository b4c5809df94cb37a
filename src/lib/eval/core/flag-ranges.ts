/**
 * The range of every numeric flag of the `rag-lab` commands, declared once by flag name (docs/cli.md "Flag ranges"):
 * `cli/args.ts` `parse` refuses a value above a flag's maximum (or an infinite one) before a command runs, with exit
 * code 2, so no flag can ask for unbounded work (`train-embedder --power-iterations 1e9`). A name means one thing in
 * every command; the range is the widest any command takes, and a command may check a narrower one itself (`ask
 * --top-k` 1–50). The search settings' flags come from their declarations (src/lib/settings/search.ts); the others
 * are here. It sits on the top floor of src/lib so that each limit comes from its owner. A new numeric flag gets its
 * line here, or in its setting's declaration (tests/integration/cli-flag-ranges.test.ts fails on a flag in a help
 * text that is not classified).
 */
import { ARXIV_MAX_RESULTS } from '../../data/arxiv-query.ts';
import { WEB_LIMITS } from '../../data/web-urls.ts';
import { MAX_DIM } from '../../artifact/format.ts';
import { COMPARE_MAX_DRAWS } from '../../reports/compare.ts';
import { flagRanges, type FlagRange } from '../../settings/cli-flags.ts';
import { RAG_SETTINGS } from '../../settings/rag.ts';
import { RUN_SETTINGS } from '../../settings/retrieval-run.ts';
import { SEARCH_SETTINGS } from '../../settings/search.ts';

export type { FlagRange } from '../../settings/cli-flags.ts';

const int = (min: number, max: number, what: string): FlagRange => ({ min, max, integer: true, what });
const num = (min: number, max: number, what: string): FlagRange => ({ min, max, integer: false, what });

export const FLAG_RANGES: Readonly<Record<string, FlagRange>> = Object.freeze({
  // The RAG pipeline's (ask's and eval-ragbench's --variants, --window, --rerank…): their declarations
  // (src/lib/settings/rag.ts); the search settings' over them, wider (ask takes --top-k 1–50, search 1–100).
  ...flagRanges(RAG_SETTINGS),
  // The search settings' flags (--top-k, --candidate-k, seed A's separate k's, --reject-threshold): their
  // declarations (src/lib/settings/search.ts).
  ...flagRanges(SEARCH_SETTINGS),
  // A retrieval run's (eval-beir --depth, --k1, --b, --chunk-size, --overlap, --max-queries…): their declarations
  // (src/lib/settings/retrieval-run.ts); build-index takes the same --k1, --b and chunking. The lines after it widen
  // one that other commands share.
  ...flagRanges(RUN_SETTINGS),
  resamples: int(100, COMPARE_MAX_DRAWS, 'bootstrap resamples and permutations of the analysis'),
  seed: int(-(2 ** 31), 2 ** 32 - 1, 'random seed (32 bits)'),
  iterations: int(0, COMPARE_MAX_DRAWS, 'bootstrap resamples'),
  permutations: int(0, COMPARE_MAX_DRAWS, 'randomization-test permutations'),
  n: int(1, 1_000_000, 'rows per subset (eval-ragbench), questions of a test set (testset: at most 100,000)'),
  bootstrap: int(0, COMPARE_MAX_DRAWS, 'bootstrap resamples'),
  concurrency: int(1, 64, 'requests at the same time'),
  repeats: int(1, 10, 'judge calls per row'),
  temperature: num(0, 2, 'sampling temperature'),
  rpm: num(0, 100_000, 'requests per minute (> 0)'),
  tpm: num(0, 1e9, 'tokens per minute (> 0)'),
  'price-in': num(0, 10_000, 'USD per million input tokens'),
  'price-out': num(0, 10_000, 'USD per million output tokens'),
  max: int(1, Math.max(ARXIV_MAX_RESULTS, WEB_LIMITS.maxPages), `papers (--arxiv, 1–${ARXIV_MAX_RESULTS}) or search results (--search, 1–${WEB_LIMITS.maxPages})`),
  dim: int(1, MAX_DIM, 'embedding size'),
  'min-df': int(1, 1_000_000, 'documents a term must appear in'),
  'max-vocab': int(1, 1_000_000, 'terms kept'),
  'power-iterations': int(0, 20, 'power iterations of the randomized SVD'),
  'idf-power': num(0, 8, 'the exponent B of idf^B'),
  budget: int(1, 10_000, 'tune trials'),
  minutes: num(0, 10_000, 'minutes a tune may take (0 excluded)'),
  pseudo: int(1, 100_000, 'pseudo-queries'),
  'held-out': num(0, 1, 'the fraction of the judged queries held out from tuning (0 and 1 excluded)'),
});

/** "a whole number from 0 to 20" / "a number from 0 to 1". */
export function rangeText(r: FlagRange): string {
  return `${r.integer ? 'a whole number' : 'a number'} from ${r.min} to ${r.max}`;
}

/** Why `value` of `--name` is over its range's maximum (or infinite), or null (below the minimum and not-a-number are the command's to say). */
export function flagRangeProblem(name: string, value: string): string | null {
  const r = FLAG_RANGES[name];
  if (!r) return null;
  const x = Number(value.trim());
  return x > r.max || x === -Infinity ? `--${name} must be ${rangeText(r)}, got "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"` : null;
}
