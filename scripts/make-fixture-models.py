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
whose greedy continuation is known in advance (see tiny_generator below).

With --minilm DIR it also writes (not for committing) a random-weight model with the exact MiniLM-L6 shape
(6 layers, hidden 384, 12 heads, intermediate 1536, vocab 30522, max 512) for realistic latency measurements.

Needs Debian's python3-onnx and python3-numpy: run with /usr/bin/python3.
"""
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
OUT = os.path.join(ROOT, 'tests', 'fixtures', 'models', 'rag-lab')
DIM = 16
OPSET = 17

SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
WORDS = """the of and to a in is it that for on with as was be by this are or from at an not have has
which but they their his her one all were we can more if about there when been would who will no what so
up out into than its only other new some time could these two may first then do any like my now over such
our man me even most made after also did many before must through back years where much your way well down
should because each just those people how too little state good very make world still own see men work long
get here between both life being under never day same another know while last might us great old year off
come since against go came right used take three war peace government nation president congress law tax
tariff slave slaves slavery emancipation union army navy trade money bank gold silver treaty mexico texas
health protein cell cells gene genes cancer disease patients study results effect risk blood brain dna
question answer river city capital france paris germany berlin water fire earth mars moon sun star rain
weather storm climate school child children family house home food energy oil price market job jobs
freedom rights vote voting court judge justice crime police security border immigration""".split()
LETTERS = list('abcdefghijklmnopqrstuvwxyz0123456789')
SUBWORDS = ['##' + c for c in 'abcdefghijklmnopqrstuvwxyz0123456789'] + ['##s', '##ed', '##ing', '##ly', '##er']


def vocab():
    seen, out = set(), []
    for t in SPECIAL + sorted(set(WORDS)) + LETTERS + SUBWORDS + list('.,;:!?\'"()-'):
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def tokenizer_json(tokens, max_len=128):
    ids = {t: i for i, t in enumerate(tokens)}
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [
            {'id': ids[t], 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True}
            for t in SPECIAL
        ],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True, 'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '[SEP]', 'type_id': 0}}],
            'pair': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '[SEP]', 'type_id': 0}},
                     {'Sequence': {'id': 'B', 'type_id': 1}}, {'SpecialToken': {'id': '[SEP]', 'type_id': 1}}],
            'special_tokens': {t: {'id': t, 'ids': [ids[t]], 'tokens': [t]} for t in ['[CLS]', '[SEP]']},
        },
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##', 'max_input_chars_per_word': 100, 'vocab': ids},
    }


def tokenizer_config(max_len):
    return {
        'tokenizer_class': 'BertTokenizer', 'do_lower_case': True, 'model_max_length': max_len,
        'cls_token': '[CLS]', 'sep_token': '[SEP]', 'pad_token': '[PAD]', 'unk_token': '[UNK]', 'mask_token': '[MASK]',
        'clean_up_tokenization_spaces': True,
    }


def word_embeddings(v, d):
    i = np.arange(v)[:, None]
    j = np.arange(d)[None, :]
    return (np.sin(0.37 * i + 1.3 * j) * 0.5).astype(np.float32)


def type_embeddings(d):
    t = np.arange(2)[:, None]
    j = np.arange(d)[None, :]
    return (np.cos(0.91 * t + 0.7 * j) * 0.25).astype(np.float32)


def head_weights(d, c):
    j = np.arange(d)[:, None]
    k = np.arange(c)[None, :]
    return np.cos(0.5 * j + 1.1 * k + 0.3).astype(np.float32), (0.1 * np.arange(c)).astype(np.float32)


def quantize(name, w):
    """Symmetric per-tensor int8: w ≈ q · scale."""
    scale = np.float32(np.abs(w).max() / 127.0)
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    return [numpy_helper.from_array(q, name + '_q'), numpy_helper.from_array(np.array(scale, dtype=np.float32), name + '_scale'),
            numpy_helper.from_array(np.array(0, dtype=np.int8), name + '_zp')], \
        helper.make_node('DequantizeLinear', [name + '_q', name + '_scale', name + '_zp'], [name])


def tiny_graph(v, n_labels, quantized):
    E = word_embeddings(v, DIM)
    T = type_embeddings(DIM)
    inits, nodes = [], []

    def weight(name, w):
        if quantized:
            i, n = quantize(name, w)
            inits.extend(i)
            nodes.append(n)
        else:
            inits.append(numpy_helper.from_array(w, name))

    weight('E', E)
    inits.append(numpy_helper.from_array(T, 'T'))
    nodes += [
        helper.make_node('Gather', ['E', 'input_ids'], ['we']),
        helper.make_node('Gather', ['T', 'token_type_ids'], ['te']),
        helper.make_node('Add', ['we', 'te'], ['sum']),
    ]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ['batch', 'sequence']) for n in ['input_ids', 'attention_mask', 'token_type_ids']]
    if n_labels == 0:
        nodes.append(helper.make_node('Tanh', ['sum'], ['last_hidden_state']))
        outputs = [helper.make_tensor_value_info('last_hidden_state', TensorProto.FLOAT, ['batch', 'sequence', DIM])]
    else:
        W, b = head_weights(DIM, n_labels)
        weight('W', W)
        inits.append(numpy_helper.from_array(b, 'b'))
        inits.append(numpy_helper.from_array(np.array([2], dtype=np.int64), 'axis2'))
        inits.append(numpy_helper.from_array(np.array([1], dtype=np.int64), 'axis1'))
        nodes += [
            helper.make_node('Tanh', ['sum'], ['h']),
            helper.make_node('Cast', ['attention_mask'], ['maskf'], to=TensorProto.FLOAT),
            helper.make_node('Unsqueeze', ['maskf', 'axis2'], ['mask3']),
            helper.make_node('Mul', ['h', 'mask3'], ['hm']),
            helper.make_node('ReduceSum', ['hm', 'axis1'], ['hs'], keepdims=0),
            helper.make_node('ReduceSum', ['mask3', 'axis1'], ['ms'], keepdims=0),
            helper.make_node('Div', ['hs', 'ms'], ['pooled']),
            helper.make_node('MatMul', ['pooled', 'W'], ['pw']),
            helper.make_node('Add', ['pw', 'b'], ['logits']),
        ]
        outputs = [helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['batch', n_labels])]
    graph = helper.make_graph(nodes, 'tiny', inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', OPSET)], producer_name='rag-lab-fixtures')
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def write_model(path, config, tokens, make_graph, max_len):
    os.makedirs(os.path.join(path, 'onnx'), exist_ok=True)
    with open(os.path.join(path, 'config.json'), 'w') as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(path, 'tokenizer.json'), 'w') as f:
        json.dump(tokenizer_json(tokens, max_len), f)
    with open(os.path.join(path, 'tokenizer_config.json'), 'w') as f:
        json.dump(tokenizer_config(max_len), f, indent=2)
    onnx.save(make_graph(False), os.path.join(path, 'onnx', 'model.onnx'))
    onnx.save(make_graph(True), os.path.join(path, 'onnx', 'model_quantized.onnx'))


def bert_config(v, max_len, **extra):
    return {'model_type': 'bert', 'architectures': ['BertModel'], 'vocab_size': v, 'hidden_size': DIM, 'num_hidden_layers': 1,
            'num_attention_heads': 1, 'intermediate_size': DIM, 'max_position_embeddings': max_len, 'type_vocab_size': 2,
            'pad_token_id': 0, **extra}


def tiny_models():
    tokens = vocab()
    v = len(tokens)
    max_len = 128
    write_model(os.path.join(OUT, 'tiny-embedder'), bert_config(v, max_len), tokens, lambda q: tiny_graph(v, 0, q), max_len)
    write_model(os.path.join(OUT, 'tiny-cross-encoder'),
                bert_config(v, max_len, architectures=['BertForSequenceClassification'], id2label={'0': 'LABEL_0'}, label2id={'LABEL_0': 0}),
                tokens, lambda q: tiny_graph(v, 1, q), max_len)
    nli_labels = {'0': 'contradiction', '1': 'entailment', '2': 'neutral'}
    write_model(os.path.join(OUT, 'tiny-nli'),
                bert_config(v, 32, architectures=['BertForSequenceClassification'], id2label=nli_labels, label2id={v_: int(k) for k, v_ in nli_labels.items()}),
                tokens, lambda q: tiny_graph(v, 3, q), 32)
    print(f'wrote tiny fixtures (vocab {v}) to {OUT}')


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


# ---------------------------------------------------------------------------------------------------------------
# tiny-generator: a decoder-only causal LM for the in-browser chat provider (src/lib/llm/browser.ts)
# ---------------------------------------------------------------------------------------------------------------

def bytes_to_unicode():
    """GPT-2's byte -> printable character table (the ByteLevel pre-tokenizer and decoder use it)."""
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(ord('\u00a1'), ord('\u00ac') + 1)) + list(range(ord('\u00ae'), ord('\u00ff') + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


# The answer the model gives after '<|assistant|>': one vocabulary entry per token ('\u0120' is a space in ByteLevel
# notation; '\u00c3' + '\u00a9' are the two UTF-8 bytes of 'e-acute', split over two tokens on purpose).
GENERATOR_ANSWER = ['The', '\u0120answer', '\u0120is', '\u0120forty', '-two,', '\u0120counted', '\u0120in', '\u0120a', '\u0120caf\u00c3', '\u00a9.']
GENERATOR_TEMPLATE = (
    "{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)


def generator_vocab():
    """
    ids 0..93: the printable ASCII bytes '!'..'~' in GPT-2 order; 94, 95, 96: space, newline, tab; 97..99: the role
    tokens <|system|>, <|user|>, <|assistant|>; then the answer's tokens; then <|end|> (end of turn, EOS) and
    <|endoftext|> (padding and unknown). Other bytes are not in the vocabulary (they become <|endoftext|>).
    """
    b2u = bytes_to_unicode()
    tokens = [b2u[b] for b in range(ord('!'), ord('~') + 1)] + [b2u[0x20], b2u[0x0A], b2u[0x09]]
    tokens += ['<|system|>', '<|user|>', '<|assistant|>'] + GENERATOR_ANSWER + ['<|end|>', '<|endoftext|>']
    assert len(set(tokens)) == len(tokens)
    return tokens


def generator_graph(v, quantized):
    """
    Inputs as Optimum exports a one-layer Llama with a KV cache (input_ids, attention_mask, position_ids,
    past_key_values.0.key/value [batch_size, 1, past_sequence_length, 1]); outputs logits [batch, seq, V] and
    present.0.key/value. Closed form:

      logits[b, s, j] = 10 if j == (input_ids[b, s] + 1) mod V else 0      (W[i, j] = 10·[j = i + 1 mod V])
      present.0.key   = concat(past.key,   K[input_ids])                   K[i] = sin(0.37·i)
      present.0.value = concat(past.value, position_ids)

    so greedy decoding counts upwards from the prompt's last token. The value cache is multiplied by the attention
    mask (result unused), which fails with a shape error unless the mask covers past + current tokens.
    """
    W = np.zeros((v, v), dtype=np.float32)
    W[np.arange(v), (np.arange(v) + 1) % v] = 10.0
    K = np.sin(0.37 * np.arange(v, dtype=np.float32))[:, None].astype(np.float32)
    inits, nodes = [], []
    if quantized:
        i, n = quantize('W', W)
        inits.extend(i)
        nodes.append(n)
    else:
        inits.append(numpy_helper.from_array(W, 'W'))
    inits += [
        numpy_helper.from_array(K, 'K'),
        numpy_helper.from_array(np.array([1], dtype=np.int64), 'ax1'),
        numpy_helper.from_array(np.array([1, 3], dtype=np.int64), 'ax13'),
        numpy_helper.from_array(np.array(0.0, dtype=np.float32), 'zero'),
    ]
    nodes += [
        helper.make_node('Gather', ['W', 'input_ids'], ['logits_raw']),
        helper.make_node('Gather', ['K', 'input_ids'], ['k_new3']),
        helper.make_node('Unsqueeze', ['k_new3', 'ax1'], ['k_new']),
        helper.make_node('Concat', ['past_key_values.0.key', 'k_new'], ['present.0.key'], axis=2),
        helper.make_node('Cast', ['position_ids'], ['pos_f'], to=TensorProto.FLOAT),
        helper.make_node('Unsqueeze', ['pos_f', 'ax13'], ['v_new']),
        helper.make_node('Concat', ['past_key_values.0.value', 'v_new'], ['present.0.value'], axis=2),
        helper.make_node('Cast', ['attention_mask'], ['mask_f'], to=TensorProto.FLOAT),
        helper.make_node('Unsqueeze', ['mask_f', 'ax13'], ['mask4']),
        helper.make_node('Mul', ['present.0.value', 'mask4'], ['masked']),
        helper.make_node('ReduceSum', ['masked'], ['check'], keepdims=0),
        helper.make_node('Mul', ['check', 'zero'], ['nothing']),
        helper.make_node('Add', ['logits_raw', 'nothing'], ['logits']),
    ]
    cache = lambda name, seq: helper.make_tensor_value_info(name, TensorProto.FLOAT, ['batch_size', 1, seq, 1])
    inputs = [
        helper.make_tensor_value_info('input_ids', TensorProto.INT64, ['batch_size', 'sequence_length']),
        helper.make_tensor_value_info('attention_mask', TensorProto.INT64, ['batch_size', 'total_sequence_length']),
        helper.make_tensor_value_info('position_ids', TensorProto.INT64, ['batch_size', 'sequence_length']),
        cache('past_key_values.0.key', 'past_sequence_length'),
        cache('past_key_values.0.value', 'past_sequence_length'),
    ]
    outputs = [
        helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['batch_size', 'sequence_length', v]),
        cache('present.0.key', 'total_sequence_length'),
        cache('present.0.value', 'total_sequence_length'),
    ]
    graph = helper.make_graph(nodes, 'tiny-generator', inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', OPSET)], producer_name='rag-lab-fixtures')
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def tiny_generator():
    tokens = generator_vocab()
    v = len(tokens)
    ids = {t: i for i, t in enumerate(tokens)}
    special = ['<|system|>', '<|user|>', '<|assistant|>', '<|end|>', '<|endoftext|>']
    end, eot = ids['<|end|>'], ids['<|endoftext|>']
    max_len = 256
    path = os.path.join(OUT, 'tiny-generator')
    os.makedirs(os.path.join(path, 'onnx'), exist_ok=True)
    config = {
        'model_type': 'llama', 'architectures': ['LlamaForCausalLM'], 'vocab_size': v, 'hidden_size': 1,
        'intermediate_size': 1, 'num_hidden_layers': 1, 'num_attention_heads': 1, 'num_key_value_heads': 1,
        'head_dim': 1, 'max_position_embeddings': max_len, 'bos_token_id': None, 'eos_token_id': end,
        'pad_token_id': eot, 'tie_word_embeddings': False, 'use_cache': True,
    }
    generation_config = {'eos_token_id': [end, eot], 'pad_token_id': eot, 'do_sample': False}
    tokenizer = {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [
            {'id': ids[t], 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True}
            for t in special
        ],
        'normalizer': None,
        'pre_tokenizer': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': True},
        'post_processor': None,
        'decoder': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': True},
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': '<|endoftext|>', 'continuing_subword_prefix': None,
                  'end_of_word_suffix': None, 'fuse_unk': False, 'byte_fallback': False, 'ignore_merges': False,
                  'vocab': ids, 'merges': []},
    }
    tokenizer_config = {
        'tokenizer_class': 'GPT2Tokenizer', 'model_max_length': max_len, 'bos_token': None, 'eos_token': '<|end|>',
        'pad_token': '<|endoftext|>', 'unk_token': '<|endoftext|>', 'clean_up_tokenization_spaces': False,
        'add_prefix_space': False, 'chat_template': GENERATOR_TEMPLATE,
    }
    for name, obj in [('config.json', config), ('generation_config.json', generation_config), ('tokenizer_config.json', tokenizer_config)]:
        with open(os.path.join(path, name), 'w') as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
    with open(os.path.join(path, 'tokenizer.json'), 'w') as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    onnx.save(generator_graph(v, False), os.path.join(path, 'onnx', 'model.onnx'))
    onnx.save(generator_graph(v, True), os.path.join(path, 'onnx', 'model_quantized.onnx'))
    print(f'wrote tiny generator (vocab {v}) to {path}')



if __name__ == '__main__':
    if '--minilm' in sys.argv:
        minilm(sys.argv[sys.argv.index('--minilm') + 1])
    elif '--generator' in sys.argv:
        tiny_generator()
    else:
        tiny_models()
