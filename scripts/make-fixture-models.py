#!/usr/bin/python3
"""
Generates deterministic tiny BERT-shaped ONNX models in Hugging Face Hub layout for offline tests:

  tests/fixtures/models/rag-lab/tiny-embedder        last_hidden_state [B, S, 16]
  tests/fixtures/models/rag-lab/tiny-cross-encoder   logits [B, 1]
  tests/fixtures/models/rag-lab/tiny-nli             logits [B, 3] with id2label

Each has config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx (fp32) and onnx/model_quantized.onnx
(int8 weights + DequantizeLinear, as ONNX Runtime's quantizer emits). Weights follow closed formulas, so tests can
recompute every output by hand (see tests/helpers/fixture-math.ts):

  E[i, j] = sin(0.37·i + 1.3·j) · 0.5          word embedding, i = token id, j = dimension
  T[t, j] = cos(0.91·t + 0.7·j) · 0.25         token-type embedding
  h       = tanh(E[input_ids] + T[token_type_ids])
  pooled  = Σ_s mask_s · h_s / Σ_s mask_s       (classifiers)
  logits  = pooled · W + b,  W[j, c] = cos(0.5·j + 1.1·c + 0.3), b[c] = 0.1·c

With --generator it writes only tests/fixtures/models/rag-lab/tiny-generator, a decoder-only (llama-typed) causal LM
whose greedy continuation is known in advance (see scripts/fixture_models/generator.py).

With --minilm DIR it also writes (not for committing) a random-weight model with the exact MiniLM-L6 shape
(6 layers, hidden 384, 12 heads, intermediate 1536, vocab 30522, max 512) for realistic latency measurements.

Needs Debian's python3-onnx and python3-numpy: run with /usr/bin/python3.
The models are built in scripts/fixture_models/ (bert.py, generator.py, minilm.py).
"""
import sys

from fixture_models.bert import tiny_models
from fixture_models.generator import tiny_generator
from fixture_models.minilm import minilm


if __name__ == '__main__':
    if '--minilm' in sys.argv:
        minilm(sys.argv[sys.argv.index('--minilm') + 1])
    elif '--generator' in sys.argv:
        tiny_generator()
    else:
        tiny_models()
