#!/usr/bin/python3
"""
Writes MODEL_DIR/onnx/model_quantized.onnx (transformers.js dtype 'q8') from MODEL_DIR/onnx/model.onnx, for
`npm run bench:models`. ONNX Runtime's quantizer (onnxruntime.quantization) is not installed here, so this rewrites
the graph the way its `quantize_dynamic(weight_type=QInt8)` does with default options (per-tensor, no reduce_range,
MatMulConstBOnly), which is how the Hub's `model_quantized.onnx` files are made:

  MatMul(A, W), W a 2-D initializer  ->  DynamicQuantizeLinear(A) -> (A_q uint8, A_scale, A_zp)
                                         MatMulInteger(A_q, W_q int8, A_zp, 0) -> Cast(float) -> Mul(A_scale·W_scale)
  Gather(E, ids), E a 2-D initializer ->  Gather(E_q int8, ids) -> DequantizeLinear(·, E_scale, 0)

W_q = round(W / s) clipped to [-127, 127], s = max|W| / 127 (symmetric). Activation × activation MatMuls (attention
scores) and Gemm (the classifier head) stay fp32, as with quantize_dynamic's defaults. ONNX Runtime fuses the
pattern into its int8 kernels (DynamicQuantizeMatMul / MatMulIntegerToFloat) at session start.

  models-quantize.py MODEL_DIR

Needs Debian's python3-onnx and python3-numpy: run with /usr/bin/python3.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def symmetric_int8(w):
    scale = np.float32(max(float(np.abs(w).max()), 1e-12) / 127.0)
    return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale


def quantize(model):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    done = {}      # weight name -> (q name, scale name, zp name)
    dynamic = {}   # activation name -> (q, scale, zp) outputs of its DynamicQuantizeLinear
    nodes, removed = [], set()

    def weight(name):
        if name not in done:
            q, scale = symmetric_int8(numpy_helper.to_array(inits[name]))
            g.initializer.extend([numpy_helper.from_array(q, name + '_quantized'),
                                  numpy_helper.from_array(np.array(scale, dtype=np.float32), name + '_scale'),
                                  numpy_helper.from_array(np.array(0, dtype=np.int8), name + '_zero_point')])
            done[name] = (name + '_quantized', name + '_scale', name + '_zero_point')
            removed.add(name)
        return done[name]

    for node in g.node:
        if node.op_type == 'MatMul' and node.input[1] in inits and len(inits[node.input[1]].dims) == 2:
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
                helper.make_node('Gather', [eq, ids], [out + '_quantized'], axis=0),
                helper.make_node('DequantizeLinear', [out + '_quantized', es, ez], [out]),
            ]
        else:
            nodes.append(node)
    keep = [i for i in g.initializer if i.name not in removed]
    del g.initializer[:]
    g.initializer.extend(keep)
    del g.node[:]
    g.node.extend(nodes)
    onnx.checker.check_model(model)
    return model, len(done)


def main(model_dir):
    src = os.path.join(model_dir, 'onnx', 'model.onnx')
    model, n = quantize(onnx.load(src))
    out = os.path.join(model_dir, 'onnx', 'model_quantized.onnx')
    onnx.save(model, out)
    print(f'wrote {out} ({n} int8 weight tensors, {os.path.getsize(out) / 1e6:.1f} MB)')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: models-quantize.py MODEL_DIR')
    main(sys.argv[1])
