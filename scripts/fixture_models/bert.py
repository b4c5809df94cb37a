"""
The tiny BERT-shaped fixtures (tiny-embedder, tiny-cross-encoder, tiny-nli): their vocabulary and WordPiece tokenizer,
the closed-form weights (formulas in scripts/make-fixture-models.py's header), the int8 variant, and the writer.
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
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
