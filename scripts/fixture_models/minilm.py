"""--minilm DIR: a random-weight encoder with all-MiniLM-L6-v2's exact shape, for latency measurements (not committed)."""
import json
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from fixture_models.bert import LETTERS, OPSET, SPECIAL, SUBWORDS, WORDS, tokenizer_config, tokenizer_json


def minilm(out_dir, seed=7):
    """Random-weight BERT encoder with all-MiniLM-L6-v2's exact shape (outputs are meaningless)."""
    rng = np.random.default_rng(seed)
    V, D, H, L, I, P = 30522, 384, 12, 6, 1536, 512
    dh = D // H
    inits, nodes = [], []

    def w(name, shape, scale=0.02):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def c(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def n(op, ins, outs, **kw):
        nodes.append(helper.make_node(op, ins, outs, **kw))
        return outs[0]

    ones = lambda name: c(name, np.ones(D, dtype=np.float32))
    zeros = lambda name: c(name, np.zeros(D, dtype=np.float32))
    c('ax1', np.array([1], dtype=np.int64)); c('ax2', np.array([2], dtype=np.int64))
    c('shape_heads', np.array([0, 0, H, dh], dtype=np.int64)); c('shape_back', np.array([0, 0, D], dtype=np.int64))
    c('neg', np.array(-1e4, dtype=np.float32)); c('one', np.array(1.0, dtype=np.float32))
    c('scale', np.array(1.0 / math.sqrt(dh), dtype=np.float32))
    c('half', np.array(0.5, dtype=np.float32)); c('rsqrt2', np.array(1 / math.sqrt(2), dtype=np.float32))
    c('zero_i', np.array([0], dtype=np.int64))
    n('Gather', [w('word', (V, D)), 'input_ids'], ['we'])
    n('Gather', [w('type', (2, D)), 'token_type_ids'], ['te'])
    n('Shape', ['input_ids'], ['ishape'])
    n('Gather', ['ishape', 'ax1'], ['seqlen'], axis=0)
    n('Range', [c('r0', np.array(0, dtype=np.int64)), n('Squeeze', ['seqlen', 'zero_i'], ['seqlen_s']), c('r1', np.array(1, dtype=np.int64))], ['pos_ids'])
    n('Gather', [w('pos', (P, D)), 'pos_ids'], ['pe'])
    x = n('Add', [n('Add', ['we', 'te'], ['wt']), 'pe'], ['emb'])
    x = n('LayerNormalization', [x, ones('ln0_g'), zeros('ln0_b')], ['x0'], axis=-1, epsilon=1e-12)
    # attention bias [B, 1, 1, S] = (1 - mask) * -1e4
    n('Cast', ['attention_mask'], ['maskf'], to=TensorProto.FLOAT)
    n('Mul', [n('Sub', ['one', 'maskf'], ['inv']), 'neg'], ['bias2'])
    n('Unsqueeze', ['bias2', c('ax12', np.array([1, 2], dtype=np.int64))], ['bias'])
    for l in range(L):
        p = f'l{l}_'
        def proj(name, src, din, dout):
            return n('Add', [n('MatMul', [src, w(p + name + '_w', (din, dout))], [p + name + '_mm']), zeros(p + name + '_b') if dout == D else c(p + name + '_b', np.zeros(dout, dtype=np.float32))], [p + name])
        heads = {}
        for k in ['q', 'k', 'v']:
            t = n('Reshape', [proj(k, x, D, D), 'shape_heads'], [p + k + '_r'])
            heads[k] = n('Transpose', [t], [p + k + '_t'], perm=[0, 2, 1, 3])
        kt = n('Transpose', [heads['k']], [p + 'kT'], perm=[0, 1, 3, 2])
        s = n('Mul', [n('MatMul', [heads['q'], kt], [p + 'qk']), 'scale'], [p + 'qks'])
        a = n('Softmax', [n('Add', [s, 'bias'], [p + 'qkb'])], [p + 'att'], axis=-1)
        ctx = n('Transpose', [n('MatMul', [a, heads['v']], [p + 'ctx'])], [p + 'ctx_t'], perm=[0, 2, 1, 3])
        ctx = n('Reshape', [ctx, 'shape_back'], [p + 'ctx_r'])
        x = n('LayerNormalization', [n('Add', [proj('o', ctx, D, D), x], [p + 'res1']), ones(p + 'ln1_g'), zeros(p + 'ln1_b')], [p + 'x1'], axis=-1, epsilon=1e-12)
        hmid = proj('i', x, D, I)
        gelu = n('Mul', [n('Mul', [hmid, n('Add', ['one', n('Erf', [n('Mul', [hmid, 'rsqrt2'], [p + 'hs'])], [p + 'erf'])], [p + 'erf1'])], [p + 'g1']), 'half'], [p + 'gelu'])
        x = n('LayerNormalization', [n('Add', [proj('f', gelu, I, D), x], [p + 'res2']), ones(p + 'ln2_g'), zeros(p + 'ln2_b')], [p + 'x2'], axis=-1, epsilon=1e-12)
    n('Identity', [x], ['last_hidden_state'])
    inputs = [helper.make_tensor_value_info(k, TensorProto.INT64, ['batch', 'sequence']) for k in ['input_ids', 'attention_mask', 'token_type_ids']]
    outputs = [helper.make_tensor_value_info('last_hidden_state', TensorProto.FLOAT, ['batch', 'sequence', D])]
    model = helper.make_model(helper.make_graph(nodes, 'minilm-shape', inputs, outputs, inits), opset_imports=[helper.make_opsetid('', OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    tokens = SPECIAL + LETTERS + SUBWORDS + sorted(set(WORDS))
    tokens += [f'w{i}' for i in range(V - len(tokens))]
    cfg = {'model_type': 'bert', 'architectures': ['BertModel'], 'vocab_size': V, 'hidden_size': D, 'num_hidden_layers': L,
           'num_attention_heads': H, 'intermediate_size': I, 'max_position_embeddings': P, 'type_vocab_size': 2, 'pad_token_id': 0}
    os.makedirs(os.path.join(out_dir, 'onnx'), exist_ok=True)
    json.dump(cfg, open(os.path.join(out_dir, 'config.json'), 'w'), indent=2)
    json.dump(tokenizer_json(tokens, P), open(os.path.join(out_dir, 'tokenizer.json'), 'w'))
    json.dump(tokenizer_config(P), open(os.path.join(out_dir, 'tokenizer_config.json'), 'w'), indent=2)
    onnx.save(model, os.path.join(out_dir, 'onnx', 'model.onnx'))
    print(f'wrote MiniLM-L6-shaped random model to {out_dir}')
