/**
 * Warm start: one tiny batch through a freshly loaded model before the models session reports it ready, so the
 * first real query does not pay ONNX Runtime's first-run costs (kernel set-up, arena growth). Tiny on purpose: a
 * query for the embedder, one query–passage pair for the cross-encoder and NLI. A two-passage warm-up (~600
 * characters each) was measured first: it added ~0.4 s before ready and saved ~10 ms on the first query
 * (docs/internals/models.md). Outputs are discarded.
 */
import type { ModelTask, NliClassifier, PairScorer, TextEmbedder } from './types.ts';

export const WARMUP_QUERY = 'What did the president say about the economy and jobs?';
/** One short passage (~200 characters). */
export const WARMUP_PASSAGE = 'The state of the union is strong, and the people of this nation have built it together through work, ' +
  'sacrifice and the promise that every child may rise as far as talent and effort carry them.';

/** Runs the warm-up batch of `task` on `model`; returns its wall time (ms). */
export async function warmUp(task: ModelTask, model: TextEmbedder | PairScorer | NliClassifier): Promise<number> {
  const t0 = performance.now();
  if (task === 'embedder') await (model as TextEmbedder).embed([WARMUP_QUERY], 'query');
  else if (task === 'cross-encoder') await (model as PairScorer).score(WARMUP_QUERY, [WARMUP_PASSAGE]);
  else await (model as NliClassifier).predict(WARMUP_PASSAGE, WARMUP_QUERY);
  return performance.now() - t0;
}
