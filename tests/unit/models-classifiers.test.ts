/**
 * Cross-encoder and NLI against the tiny fixture models served by a local Hub-like server, checked against the
 * closed-form weights: logits = mean-pooled tanh(E[id] + T[type]) · W + b.
 */
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrossEncoder, sigmoid } from '../../src/lib/models/cross-encoder.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { ModelLoadError } from '../../src/lib/models/errors.ts';
import { loadNli } from '../../src/lib/models/nli.ts';
import { logits, maxAbsDiff, softmax } from '../helpers/fixture-math.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const CE = 'rag-lab/tiny-cross-encoder';
const NLI = 'rag-lab/tiny-nli';
const CLS = 2;
const SEP = 3;

let hub: HubServer;
let cacheDir: string;
let tok: PreTrainedTokenizer;

const ids = (text: string) => tok.encode(text, { add_special_tokens: false });
/** [CLS] a [SEP] b [SEP] with token types 0…0 1…1, built by hand from the texts' ids. */
function pairRow(a: readonly number[], b: readonly number[]) {
  const input = [CLS, ...a, SEP, ...b, SEP];
  return { ids: input, types: input.map((_, i) => (i < a.length + 2 ? 0 : 1)) };
}

beforeAll(async () => {
  hub = await serveHub(FIXTURES);
  cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-models-'));
  configureModels({ remoteHost: hub.url, cacheDir });
  tok = await AutoTokenizer.from_pretrained(CE);
});

afterAll(async () => {
  await hub.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('loadCrossEncoder', () => {
  const query = 'what is the capital of france';
  const passages = ['Paris is the capital of France.', 'The river and the sea', 'gold', ''];

  it('returns the raw logits (pooled · W + b) of each (query, passage) pair, fp32 to 1e-4', async () => {
    const ce = await loadCrossEncoder({ id: CE, dtype: 'fp32', device: 'cpu' }, { batchSize: 3 });
    expect(ce.maxLength).toBe(128);
    const scores = await ce.score(query, passages);
    const hand = passages.map((p) => logits(pairRow(ids(query), ids(p)), 1)[0]!);
    expect(scores).toHaveLength(passages.length);
    expect(maxAbsDiff(scores, hand)).toBeLessThan(1e-4);
    // Not softmaxed: distinct values, some not in [0, 1] once sigmoid is undone.
    expect(new Set(scores.map((s) => s.toFixed(4))).size).toBe(passages.length);
    expect(await ce.score(query, [])).toEqual([]);
  });

  it('q8 equals the int8-weight computation to 1e-4 and the fp32 one within 0.02', async () => {
    const ce = await loadCrossEncoder({ id: CE, dtype: 'q8', device: 'cpu' });
    const scores = await ce.score(query, passages);
    const rows = passages.map((p) => pairRow(ids(query), ids(p)));
    // ORT's fused int8 MatMul also rounds the activations to int8 (see fixture-math); a CPU without that kernel
    // computes the plain dequantized product. Either is an exact hand computation.
    const fused = rows.map((r) => logits(r, 1, true, true)[0]!);
    const plain = rows.map((r) => logits(r, 1, true, false)[0]!);
    expect(Math.min(maxAbsDiff(scores, fused), maxAbsDiff(scores, plain))).toBeLessThan(1e-4);
    const fp32 = rows.map((r) => logits(r, 1)[0]!);
    expect(maxAbsDiff(scores, fp32)).toBeLessThan(0.02);
    expect(maxAbsDiff(scores, fp32)).toBeGreaterThan(1e-6);
    expect(hub.requests).toContain(`/hub/${CE}/resolve/main/onnx/model_quantized.onnx`);
  });

  it("trims a long pair 'longest_first' and keeps the final [SEP]", async () => {
    const ce = await loadCrossEncoder({ id: CE, dtype: 'fp32', device: 'cpu' });
    const long = Array.from({ length: 80 }, (_, i) => ['the river', 'gold and silver', 'storm weather'][i % 3]).join(' ');
    const q = ids(query);
    const p = ids(long);
    expect(q.length + p.length + 3).toBeGreaterThan(128);
    // The query is short, so only the passage is cut: 128 − 3 − |q| tokens of it remain.
    const kept = p.slice(0, 128 - 3 - q.length);
    const [score] = await ce.score(query, [long]);
    expect(Math.abs(score! - logits(pairRow(q, kept), 1)[0]!)).toBeLessThan(1e-4);
    // transformers.js's own truncation (cut at 128, losing the last [SEP]) would give another value.
    const naive = [CLS, ...q, SEP, ...p].slice(0, 128);
    const naiveLogit = logits({ ids: naive, types: naive.map((_, i) => (i < q.length + 2 ? 0 : 1)) }, 1)[0]!;
    expect(Math.abs(score! - naiveLogit)).toBeGreaterThan(1e-4);
  });

  it('sigmoid is a stable logistic', () => {
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(2)).toBeCloseTo(1 / (1 + Math.exp(-2)), 12);
    expect(sigmoid(-2)).toBeCloseTo(1 / (1 + Math.exp(2)), 12);
    expect(sigmoid(1000)).toBe(1);
    expect(sigmoid(-1000)).toBe(0);
    expect(Number.isNaN(sigmoid(-1e308))).toBe(false);
  });
});

describe('loadNli', () => {
  // id2label of the fixture: 0 contradiction, 1 entailment, 2 neutral.
  const probs = (l: number[]) => {
    const p = softmax(l);
    return { contradiction: p[0]!, entailment: p[1]!, neutral: p[2]! };
  };

  it('returns softmax probabilities mapped by config.id2label', async () => {
    const nli = await loadNli({ id: NLI, dtype: 'fp32', device: 'cpu' });
    expect(nli.maxLength).toBe(32);
    expect(nli.labelIndex).toEqual({ contradiction: 0, entailment: 1, neutral: 2 });
    for (const [premise, hypothesis] of [
      ['Paris is the capital of France.', 'france has a capital'],
      ['the storm brought rain', 'the weather was good'],
    ] as const) {
      const got = await nli.predict(premise, hypothesis);
      expect(got.entailment + got.neutral + got.contradiction).toBeCloseTo(1, 6);
      const want = probs(logits(pairRow(ids(premise), ids(hypothesis)), 3));
      expect(maxAbsDiff([got.entailment, got.neutral, got.contradiction], [want.entailment, want.neutral, want.contradiction])).toBeLessThan(1e-4);
    }
  });

  it('q8 NLI follows the int8 computation and still sums to 1', async () => {
    const nli = await loadNli({ id: NLI, dtype: 'q8', device: 'cpu' });
    const [premise, hypothesis] = ['the river flows to the sea', 'water moves'];
    const got = await nli.predict(premise, hypothesis);
    expect(got.entailment + got.neutral + got.contradiction).toBeCloseTo(1, 6);
    const row = pairRow(ids(premise), ids(hypothesis));
    const v = [got.entailment, got.neutral, got.contradiction];
    const as = (l: number[]) => { const p = probs(l); return [p.entailment, p.neutral, p.contradiction]; };
    expect(Math.min(maxAbsDiff(v, as(logits(row, 3, true, true))), maxAbsDiff(v, as(logits(row, 3, true))))).toBeLessThan(1e-4);
    expect(maxAbsDiff(v, as(logits(row, 3)))).toBeLessThan(0.02);
  });

  it('splits a long premise into overlapping windows and keeps the most entailing one', async () => {
    const nli = await loadNli({ id: NLI, dtype: 'fp32', device: 'cpu' });
    const words = ['the', 'river', 'gold', 'silver', 'storm', 'rain', 'war', 'peace', 'bank', 'money', 'tax', 'law', 'court', 'judge'];
    const premise = Array.from({ length: 70 }, (_, i) => words[(i * 5 + Math.floor(i / 9)) % words.length]).join(' ');
    const hypothesis = 'peace and money';
    const P = ids(premise);
    const H = ids(hypothesis);
    expect([P.length, H.length]).toEqual([70, 3]);
    const detail = await nli.predictDetailed(premise, hypothesis);
    // room for the premise: 32 − 3 specials − 3 = 26 tokens; overlap ⌊26/4⌋ = 6 → stride 20; last window pulled back.
    expect(detail.windows.map((w) => [w.start, w.end])).toEqual([[0, 26], [20, 46], [40, 66], [44, 70]]);
    expect(detail.hypothesisTokens).toBe(3);
    const hand = detail.windows.map((w) => probs(logits(pairRow(P.slice(w.start, w.end), H), 3)));
    detail.windows.forEach((w, i) => {
      expect(w.probabilities.entailment).toBeCloseTo(hand[i]!.entailment, 4);
      expect(w.probabilities.neutral).toBeCloseTo(hand[i]!.neutral, 4);
      expect(w.probabilities.contradiction).toBeCloseTo(hand[i]!.contradiction, 4);
    });
    const best = hand.reduce((b, p, i) => (p.entailment > hand[b]!.entailment ? i : b), 0);
    expect(best).toBeGreaterThan(0); // the premise is built so that the first window is not the answer
    expect(detail.bestWindow).toBe(best);
    const got = await nli.predict(premise, hypothesis);
    expect(got).toEqual(detail.windows[best]!.probabilities);
    expect(got.entailment + got.neutral + got.contradiction).toBeCloseTo(1, 6);
  });

  it('cuts a hypothesis that would take more than half of the input', async () => {
    const nli = await loadNli({ id: NLI, dtype: 'fp32', device: 'cpu' });
    const premise = Array.from({ length: 30 }, () => 'river').join(' ');
    const hypothesis = Array.from({ length: 20 }, () => 'gold').join(' ');
    const detail = await nli.predictDetailed(premise, hypothesis);
    expect(detail.hypothesisTokens).toBe(14); // ⌊(32 − 3) / 2⌋
    const P = ids(premise);
    const H = ids(hypothesis).slice(0, 14);
    for (const w of detail.windows) {
      expect(w.end - w.start).toBe(15);
      const want = probs(logits(pairRow(P.slice(w.start, w.end), H), 3));
      expect(w.probabilities.entailment).toBeCloseTo(want.entailment, 4);
    }
  });

  it('rejects a model whose id2label lacks the NLI labels', async () => {
    const err = await loadNli({ id: CE, dtype: 'fp32', device: 'cpu' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect(err).toMatchObject({ modelId: CE, kind: 'incompatible', file: 'config.json' });
    expect((err as Error).message).toMatch(/entailment, neutral and contradiction.*found: LABEL_0/);
  });
});
