#!/usr/bin/python3
"""
Turns the random-weight MiniLM-L6-shaped encoder written by `scripts/make-fixture-models.py --minilm DIR` into a
BertForSequenceClassification with one logit, the shape of cross-encoder/ms-marco-MiniLM-L-6-v2, so that
`npm run bench:models` can time the real loadCrossEncoder path. For benchmarks only: the weights are random and the
scores meaningless; never commit the output.

  models-make-classifier.py SRC_DIR OUT_DIR

Head (as BERT's): pooled = tanh(h[:, 0, :] · Wp + bp)   ([CLS] token, Wp 384 × 384)
                  logits = pooled · Wc + bc             (Wc 384 × 1)            output `logits` [batch, 1]
Both are Gemm nodes with seeded N(0, 0.02²) weights; `last_hidden_state` stops being a graph output.
Writes OUT_DIR/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}.

Needs Debian's python3-onnx and python3-numpy: run with /usr/bin/python3.
"""
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(src, out, seed=11):
    model = onnx.load(os.path.join(src, 'onnx', 'model.onnx'))
    g = model.graph
    if [o.name for o in g.output] != ['last_hidden_state']:
        sys.exit(f'{src}: expected one output last_hidden_state, got {[o.name for o in g.output]}')
    d = g.output[0].type.tensor_type.shape.dim[2].dim_value
    rng = np.random.default_rng(seed)
    arr = lambda name, a: g.initializer.append(numpy_helper.from_array(a, name))
    arr('cls_index', np.array(0, dtype=np.int64))
    arr('pooler_w', (rng.standard_normal((d, d)) * 0.02).astype(np.float32))
    arr('pooler_b', np.zeros(d, dtype=np.float32))
    arr('classifier_w', (rng.standard_normal((d, 1)) * 0.02).astype(np.float32))
    arr('classifier_b', np.zeros(1, dtype=np.float32))
    g.node.extend([
        helper.make_node('Gather', ['last_hidden_state', 'cls_index'], ['cls_hidden'], axis=1),
        helper.make_node('Gemm', ['cls_hidden', 'pooler_w', 'pooler_b'], ['pooled_pre']),
        helper.make_node('Tanh', ['pooled_pre'], ['pooled']),
        helper.make_node('Gemm', ['pooled', 'classifier_w', 'classifier_b'], ['logits']),
    ])
    del g.output[:]
    g.output.append(helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['batch', 1]))
    onnx.checker.check_model(model)
    os.makedirs(os.path.join(out, 'onnx'), exist_ok=True)
    onnx.save(model, os.path.join(out, 'onnx', 'model.onnx'))
    with open(os.path.join(src, 'config.json')) as f:
        cfg = json.load(f)
    cfg.update(architectures=['BertForSequenceClassification'], id2label={'0': 'LABEL_0'}, label2id={'LABEL_0': 0})
    with open(os.path.join(out, 'config.json'), 'w') as f:
        json.dump(cfg, f, indent=2)
    for name in ['tokenizer.json', 'tokenizer_config.json']:
        shutil.copyfile(os.path.join(src, name), os.path.join(out, name))
    print(f'wrote MiniLM-L6-shaped single-logit classifier to {out}')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: models-make-classifier.py SRC_DIR OUT_DIR')
    main(sys.argv[1], sys.argv[2])
