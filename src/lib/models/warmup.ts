/**
 * Warm start: one tiny batch through a freshly loaded model before the models session reports it ready, so the
 * first real query does not pay ONNX Runtime's first-run costs (kernel set-up, arena and WASM memory growth for a
 * passage-length input). The inputs have the shapes queries see: a short query, and two passages of ~110 tokens
 * (the embedded corpus's 800-character chunks are 100–180 tokens). Outputs are discarded.
 */
import type { NliClassifier, PairScorer, TextEmbedder } from './types.ts';
import type { ModelTask } from './types.ts';

export const WARMUP_QUERY = 'What did the president say about the economy and jobs?';
const SENTENCE = 'The state of the union is strong, and the people of this nation have built it together through work, ' +
  'sacrifice and the promise that every child may rise as far as talent and effort carry them. ';
/** Two passages of about 600 characters. */
export const WARMUP_PASSAGES: readonly string[] = [SENTENCE.repeat(3).trim(), `Congress must act. ${SENTENCE.repeat(3).trim()}`];

/** Runs the warm-up batch of `task` on `model`; returns its wall time (ms). */
export async function warmUp(task: ModelTask, model: TextEmbedder | PairScorer | NliClassifier): Promise<number> {
  const t0 = performance.now();
  if (task === 'embedder') {
    const m = model as TextEmbedder;
    await m.embed([WARMUP_QUERY], 'query');
    await m.embed(WARMUP_PASSAGES, 'passage');
  } else if (task === 'cross-encoder') {
    await (model as PairScorer).score(WARMUP_QUERY, WARMUP_PASSAGES);
  } else {
    await (model as NliClassifier).predict(WARMUP_PASSAGES[0]!, WARMUP_QUERY);
  }
  return performance.now() - t0;
}
