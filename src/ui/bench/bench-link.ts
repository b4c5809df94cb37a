/**
 * The Benchmark tab's RAGBench settings in a link (`b_…` parameters): the run's own settings read and written as
 * their declarations say (eval/ragbench-run/ragbench-run-schema.ts: mode, evaluator, rows, seed, judge repeats),
 * the subsets, and the validate judge's provider, model and endpoint. A value the link cannot use is named in `warnings`.
 */
import { RAGBENCH_SUBSETS } from '../../lib/data/ragbench.ts';
import { RAGBENCH_RUN_SETTINGS as RUN, type RagbenchRunFlags } from '../../lib/eval/ragbench-run/ragbench-run-schema.ts';
import type { BenchConfig } from '../../lib/eval/ragbench-run/ragbench-tab-config.ts';
import { DEFAULT_EVALUATOR } from '../../lib/eval/score/evaluators.ts';
import { dropOversized, quote, rowCountParam, uniqueList } from '../../lib/link-params.ts';
import { isRemoteProvider } from '../../lib/llm/key-binding.ts';
import { expected, valueFromText } from '../../lib/settings/schema.ts';
import { isEvaluatorChoice } from './bench-evaluators.ts';

type Judge = NonNullable<BenchConfig['judge']>;

/** What a link sets (absent: left as it is). */
export interface BenchLink {
  subsets?: string[];
  n?: number | null;
  seed?: number;
  evaluator?: BenchConfig['evaluator'];
  mode?: BenchConfig['mode'];
  judge: Partial<Pick<Judge, 'provider' | 'model' | 'baseUrl' | 'repeats'>>;
  warnings: string[];
}

export function readBenchLink(search: string): BenchLink {
  const { params: p, warnings: sized } = dropOversized(new URLSearchParams(search), (k) => k.startsWith('b_'));
  const subs = uniqueList((p.get('b_sub') ?? '').split(','), 'b_sub', RAGBENCH_SUBSETS);
  const warnings = [...sized, ...subs.warnings];
  const out: BenchLink = { judge: {}, warnings };
  if (subs.values.length) out.subsets = subs.values;
  const n = rowCountParam(p.get(RUN.n.url!), RUN.n.url!);
  if (n.n !== undefined) out.n = n.n;
  if (n.warning) warnings.push(n.warning);
  const read = <K extends 'seed' | 'mode' | 'repeats'>(key: K): RagbenchRunFlags[K] | undefined => {
    const raw = p.get(RUN[key].url!);
    if (raw === null || raw.trim() === '') return undefined;
    const x = valueFromText(RUN[key], raw) as RagbenchRunFlags[K] | undefined;
    if (x === undefined) warnings.push(`Ignored invalid ${RUN[key].url}=${quote(raw)} in the link (${expected(RUN[key])}).`);
    return x;
  };
  const seed = read('seed'), mode = read('mode'), repeats = read('repeats');
  if (seed !== undefined) out.seed = seed;
  if (mode !== undefined) out.mode = mode;
  if (repeats !== undefined) out.judge.repeats = repeats;
  const ev = p.get(RUN.evaluator.url!);
  if (isEvaluatorChoice(ev) && ev !== DEFAULT_EVALUATOR) out.evaluator = ev;
  else if (ev !== null && !isEvaluatorChoice(ev)) warnings.push(`Unknown evaluator ${quote(ev)} in the link; using ${DEFAULT_EVALUATOR}.`);
  const prov = p.get('b_prov');
  if (isRemoteProvider(prov)) out.judge.provider = prov;
  const model = p.get('b_model');
  if (model) out.judge.model = model.slice(0, 200);
  const base = p.get('b_base');
  if (base && /^https?:\/\/[^\s?#@]+$/.test(base)) out.judge.baseUrl = base;
  return out;
}

/** The tab's settings as a link (`judged`: validate mode's LLM judge is in use, so its settings go too). */
export function benchLink(s: { subsets: readonly string[]; n: number | null; seed: number; evaluator: BenchConfig['evaluator']; mode: BenchConfig['mode'] },
  judge: Judge | null, repeatable: boolean): URLSearchParams {
  const out = new URLSearchParams({ b_sub: s.subsets.join(','), [RUN.n.url!]: s.n === null ? 'all' : String(s.n), [RUN.seed.url!]: String(s.seed), [RUN.evaluator.url!]: s.evaluator });
  if (s.mode !== RUN.mode.default) out.set(RUN.mode.url!, s.mode);
  if (judge) {
    out.set('b_prov', judge.provider);
    out.set('b_model', judge.model);
    if (judge.baseUrl) out.set('b_base', judge.baseUrl);
    if (judge.repeats > 1 && repeatable) out.set(RUN.repeats.url!, String(judge.repeats));
  }
  return out;
}
