"""
--generator: tiny-generator, a decoder-only causal LM for the in-browser chat provider (src/lib/llm/browser.ts) whose
greedy continuation is known in advance.
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from fixture_models.bert import OPSET, OUT, quantize


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
