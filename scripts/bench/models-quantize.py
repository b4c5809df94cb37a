#!/usr/bin/python3
"""
Writes the dtype variants transformers.js loads (`onnx/model<suffix>.onnx`) from MODEL_DIR/onnx/model.onnx, for
`npm run bench:models` and `npm run bench:dtypes`. ONNX Runtime's quantizers (onnxruntime.quantization) are not
installed here, so each variant is rewritten with onnx.helper the way those tools write it with default options:

  q8    model_quantized.onnx  quantize_dynamic(weight_type=QInt8), per tensor, MatMulConstBOnly (the Hub's q8 files):
                              MatMul(A, W), W a 2-D initializer -> DynamicQuantizeLinear(A) -> (A_q uint8, A_s, A_zp)
                              MatMulInteger(A_q, W_q, A_zp, W_zp) -> Cast(float) -> Mul(A_s · W_s);
                              Gather(E, ids), E a 2-D initializer with >= 1024 rows -> Gather(E_q) -> DequantizeLinear.
                              W_q = round(W / s) clipped to [-127, 127], s = max|W| / 127, zero point 0 (symmetric).
  uint8 model_uint8.onnx      the same with weight_type=QUInt8 (asymmetric): s = (max(W, 0) - min(W, 0)) / 255,
                              zp = round(-min(W, 0) / s), W_q = clip(round(W / s) + zp, 0, 255).
  q4    model_q4.onnx         MatMul4BitsQuantizer defaults: each weight MatMul -> com.microsoft MatMulNBits(bits 4,
                              block_size 32, asymmetric, accuracy_level unset = fp32 compute), per block of 32 along K:
                              s = (max(b, 0) - min(b, 0)) / 15, zp = round(-min(b, 0) / s) in [0, 15],
                              q = clip(round(b / s) + zp, 0, 15), two 4-bit values a byte (low nibble first);
                              Gather and Gemm stay fp32.
  fp16  model_fp16.onnx       float16 weights and compute, float32 inputs/outputs kept (onnxconverter-common's
                              convert_float_to_float16(keep_io_types=True)): float initializers -> float16,
                              Cast(to float) -> Cast(to float16), a Cast to float16 after each float input and to float
                              before each float output.

Activation × activation MatMuls (attention scores) and Gemm (a classifier head) stay fp32 in q8 / uint8 / q4, as with
the tools' defaults; ONNX Runtime fuses the q8 / uint8 patterns into its int8 kernels at session start.

  models-quantize.py MODEL_DIR [--variants q8,uint8,q4,fp16]   (default: all four)

Needs Debian's python3-onnx and python3-numpy: run with /usr/bin/python3.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FILES = {'q8': 'model_quantized.onnx', 'uint8': 'model_uint8.onnx', 'q4': 'model_q4.onnx', 'fp16': 'model_fp16.onnx'}
Q4_BLOCK = 32


def symmetric_int8(w):
    scale = np.float32(max(float(np.abs(w).max()), 1e-12) / 127.0)
    return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale, np.int8(0)


def asymmetric_uint8(w):
    lo, hi = min(float(w.min()), 0.0), max(float(w.max()), 0.0)
    scale = np.float32(max(hi - lo, 1e-12) / 255.0)
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    return np.clip(np.round(w / scale) + zp, 0, 255).astype(np.uint8), scale, np.uint8(zp)


def weight_matmul(inits, node):
    return node.op_type == 'MatMul' and node.input[1] in inits and len(inits[node.input[1]].dims) == 2


def quantize_8bit(model, weight_type):
    """quantize_dynamic's graph with int8 ('q8') or uint8 ('uint8') weights; activations are uint8 in both."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    to_q = symmetric_int8 if weight_type == 'q8' else asymmetric_uint8
    done = {}      # weight name -> (q name, scale name, zp name)
    dynamic = {}   # activation name -> (q, scale, zp) outputs of its DynamicQuantizeLinear
    nodes, removed = [], set()

    def weight(name):
        if name not in done:
            q, scale, zp = to_q(numpy_helper.to_array(inits[name]))
            g.initializer.extend([numpy_helper.from_array(q, name + '_quantized'),
                                  numpy_helper.from_array(np.array(scale, dtype=np.float32), name + '_scale'),
                                  numpy_helper.from_array(np.array(zp), name + '_zero_point')])
            done[name] = (name + '_quantized', name + '_scale', name + '_zero_point')
            removed.add(name)
        return done[name]

    for node in g.node:
        if weight_matmul(inits, node):
            a, w = node.input
            wq, ws, wz = weight(w)
            if a not in dynamic:
                dynamic[a] = (a + '_quantized', a + '_scale', a + '_zero_point')
                nodes.append(helper.make_node('DynamicQuantizeLinear', [a], list(dynamic[a]), name=a + '_QuantizeLinear'))
            aq, as_, az = dynamic[a]
            out = node.output[0]
            nodes += [
                helper.make_node('MatMulInteger', [aq, wq, az, wz], [out + '_output_quantized'], name=out + '_MatMulInteger'),
                helper.make_node('Cast', [out + '_output_quantized'], [out + '_output_quantized_cast'], to=TensorProto.FLOAT),
                helper.make_node('Mul', [as_, ws], [out + '_scales_mul']),
                helper.make_node('Mul', [out + '_output_quantized_cast', out + '_scales_mul'], [out]),
            ]
        elif node.op_type == 'Gather' and node.input[0] in inits and len(inits[node.input[0]].dims) == 2 \
                and inits[node.input[0]].dims[0] >= 1024:
            e, ids = node.input
            eq, es, ez = weight(e)
            out = node.output[0]
            nodes += [
                helper.make_node('Gather', [eq, ids], [out + '_gathered_quantized'], axis=0),
                helper.make_node('DequantizeLinear', [out + '_gathered_quantized', es, ez], [out]),
            ]
        else:
            nodes.append(node)
    return replace(model, nodes, removed), len(done)


def pack_nibbles(q):
    """[..., 2m] values in [0, 15] -> [..., m] bytes, element 2i in the low nibble (MatMulNBits' layout)."""
    if q.shape[-1] % 2:
        q = np.concatenate([q, np.zeros(q.shape[:-1] + (1,), dtype=q.dtype)], axis=-1)
    return (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)


def blockwise_q4(w):
    """W [K, N] -> (B [N, K/32, 16] uint8, scales [N, K/32] float32, zero points [N, ceil(K/64)] uint8)."""
    k, n = w.shape
    blocks = w.T.reshape(n, k // Q4_BLOCK, Q4_BLOCK)
    lo = np.minimum(blocks.min(axis=2), 0.0)
    hi = np.maximum(blocks.max(axis=2), 0.0)
    scale = np.maximum(hi - lo, 1e-12) / 15.0
    zp = np.clip(np.round(-lo / scale), 0, 15).astype(np.uint8)
    q = np.clip(np.round(blocks / scale[..., None]) + zp[..., None], 0, 15).astype(np.uint8)
    return pack_nibbles(q), scale.astype(np.float32), pack_nibbles(zp)


def quantize_q4(model):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes, removed = [], set()
    for node in g.node:
        if weight_matmul(inits, node) and inits[node.input[1]].dims[0] % Q4_BLOCK == 0:
            a, w = node.input
            k, n = inits[w].dims
            b, scales, zps = blockwise_q4(numpy_helper.to_array(inits[w]))
            g.initializer.extend([numpy_helper.from_array(b, w + '_Q4'), numpy_helper.from_array(scales, w + '_scales'),
                                  numpy_helper.from_array(zps, w + '_zp')])
            removed.add(w)
            nodes.append(helper.make_node('MatMulNBits', [a, w + '_Q4', w + '_scales', w + '_zp'], list(node.output),
                                          name=node.name or node.output[0] + '_MatMulNBits', domain='com.microsoft',
                                          K=k, N=n, bits=4, block_size=Q4_BLOCK))
        else:
            nodes.append(node)
    model.opset_import.append(helper.make_opsetid('com.microsoft', 1))
    return replace(model, nodes, removed), len(removed)


def to_fp16(model):
    g = model.graph
    n = 0
    for i, init in enumerate(list(g.initializer)):
        if init.data_type == TensorProto.FLOAT:
            g.initializer[i].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), init.name))
            n += 1
    for node in g.node:
        for attr in node.attribute:
            if node.op_type == 'Cast' and attr.name == 'to' and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
    del g.value_info[:]
    for inp in g.input:
        if inp.type.tensor_type.elem_type == TensorProto.FLOAT:
            half = inp.name + '_fp16'
            for node in g.node:
                node.input[:] = [half if x == inp.name else x for x in node.input]
            g.node.insert(0, helper.make_node('Cast', [inp.name], [half], to=TensorProto.FLOAT16, name=inp.name + '_to_fp16'))
    for out in g.output:
        if out.type.tensor_type.elem_type == TensorProto.FLOAT:
            half = out.name + '_fp16'
            for node in g.node:
                node.output[:] = [half if o == out.name else o for o in node.output]
                node.input[:] = [half if x == out.name else x for x in node.input]
            g.node.append(helper.make_node('Cast', [half], [out.name], to=TensorProto.FLOAT, name=out.name + '_to_float'))
    onnx.checker.check_model(model)
    return model, n


def replace(model, nodes, removed):
    g = model.graph
    keep = [i for i in g.initializer if i.name not in removed]
    del g.initializer[:]
    g.initializer.extend(keep)
    del g.node[:]
    g.node.extend(nodes)
    onnx.checker.check_model(model)
    return model


def variant(src, kind):
    model = onnx.load(src)
    if kind in ('q8', 'uint8'):
        return quantize_8bit(model, kind)
    if kind == 'q4':
        return quantize_q4(model)
    return to_fp16(model)


def main(model_dir, kinds):
    src = os.path.join(model_dir, 'onnx', 'model.onnx')
    for kind in kinds:
        model, n = variant(src, kind)
        out = os.path.join(model_dir, 'onnx', FILES[kind])
        onnx.save(model, out)
        print(f'wrote {out} ({kind}: {n} tensors rewritten, {os.path.getsize(out) / 1e6:.1f} MB)')


if __name__ == '__main__':
    args = sys.argv[1:]
    kinds = list(FILES)
    if '--variants' in args:
        i = args.index('--variants')
        kinds = args[i + 1].split(',')
        del args[i:i + 2]
        bad = [k for k in kinds if k not in FILES]
        if bad:
            sys.exit(f'unknown variant(s) {bad}: expected some of {list(FILES)}')
    if len(args) != 1:
        sys.exit('usage: models-quantize.py MODEL_DIR [--variants q8,uint8,q4,fp16]')
    main(args[0], kinds)
