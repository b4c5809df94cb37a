#!/usr/bin/python3
"""
For `npm run bench:dtypes`: turns a corpus-trained embedder (rag-lab train-embedder: last_hidden_state =
Gather(E, input_ids), E [vocab, k]) into the same function with a weight MatMul in it, so that the dtype variants of
models-quantize.py quantize what they quantize in a transformer (weight MatMuls) on a model whose outputs mean
something:

  E = G · R,  R a seeded random orthogonal k × k matrix (QR of a Gaussian), G = E · Rᵀ
  last_hidden_state = MatMul(Gather(G, input_ids), R)        (= Gather(E, input_ids) up to float rounding)

Copies SRC_DIR's config and tokenizer files to OUT_DIR and writes OUT_DIR/onnx/model.onnx (opset 13, IR 8).

  lsi-factor.py SRC_DIR OUT_DIR [--seed S]

Needs Debian's python3-onnx and python3-numpy: run with /usr/bin/python3.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def main(src, out, seed):
    model = onnx.load(os.path.join(src, 'onnx', 'model.onnx'))
    g = model.graph
    gathers = [n for n in g.node if n.op_type == 'Gather']
    inits = {i.name: i for i in g.initializer}
    if len(gathers) != 1 or gathers[0].input[0] not in inits or [o.name for o in g.output] != ['last_hidden_state']:
        sys.exit(f'{src}: expected one Gather of an embedding matrix into last_hidden_state (a train-embedder model)')
    e = numpy_helper.to_array(inits[gathers[0].input[0]]).astype(np.float64)
    k = e.shape[1]
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((k, k)))
    rot = q * np.sign(np.diag(r))  # a Haar-random orthogonal matrix
    gmat = (e @ rot.T).astype(np.float32)
    nodes = [helper.make_node('Gather', ['G', 'input_ids'], ['rows'], axis=0),
             helper.make_node('MatMul', ['rows', 'R'], ['last_hidden_state'])]
    graph = helper.make_graph(nodes, 'corpus_embedder_factored', list(g.input), list(g.output),
                              [numpy_helper.from_array(gmat, 'G'), numpy_helper.from_array(rot.astype(np.float32), 'R')])
    factored = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    factored.ir_version = 8
    onnx.checker.check_model(factored)
    os.makedirs(os.path.join(out, 'onnx'), exist_ok=True)
    for f in os.listdir(src):
        if os.path.isfile(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(out, f))
    onnx.save(factored, os.path.join(out, 'onnx', 'model.onnx'))
    err = float(np.abs(gmat.astype(np.float64) @ rot - e).max())
    print(f'wrote {out}: G [{e.shape[0]}, {k}] · R [{k}, {k}] (max |G·R - E| = {err:.2e})')


if __name__ == '__main__':
    args = sys.argv[1:]
    seed = 0
    if '--seed' in args:
        i = args.index('--seed')
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit('usage: lsi-factor.py SRC_DIR OUT_DIR [--seed S]')
    main(args[0], args[1], seed)
