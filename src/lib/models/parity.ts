/** The parity self-test: a loaded model's outputs against its fp32 WASM reference on fixed inputs. */
import type { ParityReport } from './model-contract.ts';
import type { ModelSpec, ModelTask, NliClassifier, PairScorer, TextEmbedder } from './types.ts';

export const PARITY_TEXTS = [
  'The State of the Union address is delivered to Congress every year.',
  'Emancipation of slaves was proclaimed during the Civil War.',
  'Tariffs on imported goods were debated for decades.',
  'a',
];

type Model = TextEmbedder | PairScorer | NliClassifier;

/** Largest |output − reference| of `cur` against `ref`, and for embedders the smallest row cosine. */
export async function parityReport(task: ModelTask, spec: ModelSpec, cur: Model, ref: Model): Promise<ParityReport> {
  let maxAbsDiff = 0;
  let minCosine: number | null = null;
  const diff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    for (let i = 0; i < a.length; i++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(a[i]! - b[i]!));
  };
  if (task === 'embedder') {
    const [a, b] = [await (cur as TextEmbedder).embed(PARITY_TEXTS, 'passage'), await (ref as TextEmbedder).embed(PARITY_TEXTS, 'passage')];
    diff(a, b);
    const dim = a.length / PARITY_TEXTS.length;
    minCosine = 1;
    for (let r = 0; r < PARITY_TEXTS.length; r++) {
      let dot = 0, na = 0, nb = 0;
      for (let j = r * dim; j < (r + 1) * dim; j++) { dot += a[j]! * b[j]!; na += a[j]! ** 2; nb += b[j]! ** 2; }
      // cos(a, b) = a·b / (|a| |b|)
      minCosine = Math.min(minCosine, dot / Math.sqrt(na * nb || 1));
    }
  } else if (task === 'cross-encoder') {
    const q = 'what did the president say about tariffs';
    diff(await (cur as PairScorer).score(q, PARITY_TEXTS), await (ref as PairScorer).score(q, PARITY_TEXTS));
  } else {
    for (const h of PARITY_TEXTS.slice(1, 3)) {
      const [a, b] = [await (cur as NliClassifier).predict(PARITY_TEXTS[0]!, h), await (ref as NliClassifier).predict(PARITY_TEXTS[0]!, h)];
      diff([a.entailment, a.neutral, a.contradiction], [b.entailment, b.neutral, b.contradiction]);
    }
  }
  return { task, spec, reference: { dtype: 'fp32', device: 'wasm' }, maxAbsDiff, minCosine, inputs: PARITY_TEXTS.length };
}
