/**
 * A RAGBench run's own settings, declared once (as settings/search.ts declares the search settings): what runs
 * (mode, evaluator), on how many rows, with which seed, how the LLM judge is called and how many resamples the
 * intervals take. `eval-ragbench`'s flags, their help and checks (settings/cli-flags.ts) and the Benchmark tab's
 * link (its `b_…` parameters, ui/bench/bench-link.ts; `b_n` also takes `all`, and reads more rows than any subset
 * holds as all rows) read them from here; a flag's range is its line in FLAG_RANGES (eval/core/flag-ranges.ts,
 * the one range of a flag every command shares). The pipeline's settings are the RAG pipeline's (settings/rag.ts);
 * the judge's provider, model and endpoint are checked by `apiSetup` (eval/core/api-setup.ts).
 */
import { FLAG_RANGES } from '../core/flag-ranges.ts';
import { BOOTSTRAP_ITERATIONS } from '../ragbench/bootstrap.ts';
import { DEFAULT_EVALUATOR, EVALUATOR_IDS, EVALUATORS } from '../score/evaluators.ts';
import { defaultsOf, int, num, oneOf, type SettingsOf } from '../../settings/schema.ts';

/** A flag's range (min, max) from FLAG_RANGES. */
const range = (flag: string): { min: number; max: number } => ({ min: FLAG_RANGES[flag]!.min, max: FLAG_RANGES[flag]!.max });

const RAGBENCH_MODES = ['validate', 'pipeline'] as const;

export const RAGBENCH_RUN_SETTINGS = Object.freeze({
  mode: oneOf(RAGBENCH_MODES, {
    default: 'validate', url: 'b_mode', flag: 'mode', meta: 'M', label: 'mode',
    describe: "validate: score RAGBench's own answers and compare with the gold labels and baselines; pipeline: pool each subset's documents into a knowledge base, answer N sampled questions with RAG Lab's pipeline and an LLM (--provider, --model), score the answers, report gold-document recall and AUROC / RMSE vs the questions' gold labels",
  }),
  evaluator: oneOf(EVALUATOR_IDS, {
    default: DEFAULT_EVALUATOR, url: 'b_eval', flag: 'evaluator', meta: 'NAME', label: 'evaluator',
    describe: `what scores the answers: ${EVALUATOR_IDS.map((id) => `${id} (${EVALUATORS[id].help})`).join(', ')}`,
  }),
  n: int({
    default: null, nullMeans: 'all', ...range('n'), url: 'b_n', flag: 'n',
    describe: 'validate: score a seeded random sample of N rows per subset; pipeline: ask N seeded random questions per subset (all: every distinct question)',
  }),
  seed: int({ default: 0, ...range('seed'), url: 'b_seed', flag: 'seed', meta: 'S', describe: 'sample and bootstrap seed' }),
  bootstrap: int({
    default: BOOTSTRAP_ITERATIONS, ...range('bootstrap'), flag: 'bootstrap', meta: 'B',
    describe: '95% percentile-bootstrap intervals of our AUROC and RMSEs (pipeline: vs gold) from B resamples, seeded by --seed (0 = none); figures resting on fewer than 10 rows in a class (AUROC) or in all (RMSE) are flagged as not meaningful',
  }),
  concurrency: int({ default: 1, ...range('concurrency'), flag: 'concurrency', meta: 'C', describe: 'rows (questions) at once' }),
  repeats: int({
    default: 1, ...range('repeats'), url: 'b_rep', flag: 'repeats', meta: 'R',
    describe: "llm evaluator: ask the judge R times per row; scores are the means; reports mean ± std, rows whose adherence verdict flips between repeats, and the parse-failure rate",
  }),
  temperature: num({ default: null, nullMeans: "the judge's, 0", ...range('temperature'), flag: 'temperature', meta: 'T', describe: 'judge temperature (repeats show more spread above 0)' }),
});

export type RagbenchRunFlags = SettingsOf<typeof RAGBENCH_RUN_SETTINGS>;
export const RAGBENCH_RUN_DEFAULTS: Readonly<RagbenchRunFlags> = Object.freeze(defaultsOf(RAGBENCH_RUN_SETTINGS));
