/**
 * Natural-language inference: P(entailment | neutral | contradiction) of a hypothesis given a premise, read by the
 * model's own config.id2label. A premise too long to fit next to the hypothesis is split into overlapping token
 * windows; every window is classified and the one with the highest P(entailment) is returned.
 */
import { loadPairClassifier } from './classifier.ts';
import { ModelLoadError } from './errors.ts';
import type { LoadOptions } from './loading.ts';
import { planPremiseWindows, slicePair, type Encoding, type TokenWindow } from './pair-encoding.ts';
import type { ModelSpec, NliClassifier, NliProbabilities } from './types.ts';

export { planPremiseWindows, planWindows, type PremiseWindowPlan, type TokenWindow } from './pair-encoding.ts';

export interface NliOptions extends LoadOptions {
  /** Windows per forward pass. Default 8. */
  batchSize?: number;
  /** Overlap between consecutive premise windows, as a fraction of the window. Default 0.25. */
  overlapRatio?: number;
}

export interface NliWindow extends TokenWindow {
  probabilities: NliProbabilities;
}

export interface NliDetail {
  /** Probabilities of the window with the highest P(entailment) (the first of equals). */
  best: NliProbabilities;
  bestWindow: number;
  /** Every window, in premise order, with its token span in the premise. */
  windows: NliWindow[];
  premiseTokens: number;
  /** Hypothesis tokens used (fewer than it has only when it alone would take over half the input). */
  hypothesisTokens: number;
}

export interface WindowedNli extends NliClassifier {
  readonly maxLength: number;
  /** Class index of each label in the model's logits. */
  readonly labelIndex: Readonly<Record<keyof NliProbabilities, number>>;
  predictDetailed(premise: string, hypothesis: string): Promise<NliDetail>;
  dispose(): Promise<void>;
}

const NLI_LABELS = ['entailment', 'neutral', 'contradiction'] as const;

/** Indexes of entailment/neutral/contradiction in id2label (case-insensitive); null if any is missing. */
export function nliLabelIndex(labels: readonly string[]): Record<keyof NliProbabilities, number> | null {
  const lower = labels.map((l) => l.trim().toLowerCase());
  const idx = NLI_LABELS.map((name) => lower.indexOf(name));
  if (idx.some((i) => i < 0)) return null;
  return { entailment: idx[0]!, neutral: idx[1]!, contradiction: idx[2]! };
}

/** Numerically stable softmax. */
export function softmax(xs: ArrayLike<number>): number[] {
  let m = -Infinity;
  for (let i = 0; i < xs.length; i++) m = Math.max(m, xs[i]!);
  const e = Array.from({ length: xs.length }, (_, i) => Math.exp(xs[i]! - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

export async function loadNli(spec: ModelSpec, opts: NliOptions = {}): Promise<WindowedNli> {
  const clf = await loadPairClassifier(spec, opts);
  const labelIndex = nliLabelIndex(clf.labels);
  if (!labelIndex) {
    await clf.dispose().catch(() => undefined);
    const found = clf.labels.length ? clf.labels.join(', ') : 'none';
    throw new ModelLoadError(
      `Model "${spec.id}" is not an NLI model: its config.id2label must name entailment, neutral and contradiction ` +
        `(found: ${found}). Choose an NLI model such as Xenova/nli-deberta-v3-base.`,
      { modelId: spec.id, kind: 'incompatible', file: 'config.json' },
    );
  }
  const batchSize = opts.batchSize ?? 8;
  const overlapRatio = opts.overlapRatio ?? 0.25;

  const predictDetailed = async (premise: string, hypothesis: string): Promise<NliDetail> => {
    const aIds = clf.ids(premise);
    const bIds = clf.ids(hypothesis);
    const full = clf.encodeFull(premise, hypothesis);
    let windows: TokenWindow[];
    let encodings: Encoding[];
    let hypothesisTokens = bIds.length;
    if (full.input_ids.length <= clf.maxLength) {
      windows = [{ start: 0, end: aIds.length }];
      encodings = [full];
    } else {
      const layout = clf.layout(full, aIds, bIds);
      const specials = full.input_ids.length - aIds.length - bIds.length;
      const plan = planPremiseWindows(aIds.length, bIds.length, specials, clf.maxLength, overlapRatio);
      windows = plan.windows;
      hypothesisTokens = plan.hypothesisTokens;
      encodings = layout
        ? windows.map((w) => slicePair(full, layout, [w.start, w.end], [0, plan.hypothesisTokens]))
        : // Tokens not found as runs in the pair: window the text via decoding, then encode each window as a pair.
          windows.map((w) => clf.encodePair(clf.tokenizer.decode(aIds.slice(w.start, w.end), { skip_special_tokens: true }), hypothesis));
    }
    const { data, width } = await clf.logits(encodings, batchSize);
    const results: NliWindow[] = windows.map((w, i) => {
      const p = softmax(data.subarray(i * width, (i + 1) * width));
      return {
        ...w,
        probabilities: { entailment: p[labelIndex.entailment]!, neutral: p[labelIndex.neutral]!, contradiction: p[labelIndex.contradiction]! },
      };
    });
    let bestWindow = 0;
    for (let i = 1; i < results.length; i++) if (results[i]!.probabilities.entailment > results[bestWindow]!.probabilities.entailment) bestWindow = i;
    return { best: results[bestWindow]!.probabilities, bestWindow, windows: results, premiseTokens: aIds.length, hypothesisTokens };
  };

  return {
    spec,
    maxLength: clf.maxLength,
    labelIndex,
    predictDetailed,
    async predict(premise, hypothesis) {
      return (await predictDetailed(premise, hypothesis)).best;
    },
    dispose: () => clf.dispose(),
  };
}
