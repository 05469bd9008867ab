#!/usr/bin/python3
"""Builds the benchmark models that the shared data does not have, in the backend-test layout
(NAME/model.onnx, NAME/test_data_set_0/input_K.pb), with seeded random weights and inputs:

  lstm2           a 2-layer LSTM over 100 steps and a classifier (the shape of a keyword spotter)
  gru_bidir       a bidirectional GRU over 100 steps
  encdec_kv       a Whisper-like encoder and one decoder step with self-attention over a KV cache
                  (past keys and values in, present ones out) and cross-attention to the encoder
  qdyn_cnn        a CNN quantized dynamically: DynamicQuantizeLinear + ConvInteger per conv and
                  DynamicQuantizeLinear + MatMulInteger for the head (ONNX Runtime's quantize_dynamic shape)
  qlinear_cnn     a CNN quantized statically in operator form: QLinearConv chain, QLinearMatMul head
  qdq_cnn         the same network in QDQ form: QuantizeLinear/DequantizeLinear around float Conv/MatMul
  qdyn_seg_NNN    a dynamically quantized encoder-decoder segmentation network on an NNNxNNN image
                  (--seg-size, default 256; the issue's reference size is 1024)
  densenet121     DenseNet-121 (dense blocks of Concat, pre-activation BatchNormalization, 224x224)
  convnext_atto   ConvNeXt-atto (7x7 depthwise convs, LayerNorm and GELU MLPs in NHWC, 224x224)
  unet_128        a U-Net segmenter, 2x2 stride-2 ConvTranspose decoder, 128x128
  hifigan_gen     a HiFi-GAN (V2-shaped) vocoder generator: ConvTranspose1d x8 x8 x2 x2, dilated 1-D convs
  yolo_small      a YOLOv8-n-shaped detector: C2f blocks, SiLU, SPPF, nearest Resize + Concat neck, 256x256
  conformer_block a Conformer block: macaron FFNs, self-attention, GLU + depthwise 1-D conv k=15, seq 100
  diffusion_unet_block  a diffusion UNet piece: GroupNorm (as exported), SiLU, time embedding, spatial
                  self-attention, nearest upsampling, 32x32x64
  qwen2_style, mha_interleaved, llama_1024  decoders with a KV cache as PyTorch exports them
                  (decoders.py: GQA with q/k/v bias, interleaved rotary MHA, LLaMA hidden 1024 x 8 layers),
                  with test_data_set_0 (prefill) and _1 (decode) and expected outputs from a numpy reference
  and MEASURE_ONLY (see the list below): other sizes and channels of these, to be measured, never tuned on.

Expected outputs are not written here, except for the decoders (their numpy reference):
bench/ort_bench.py records ONNX Runtime's outputs beside the inputs (output_K.pb) so
`onnxforge run DIR` can check onnxforge against them.

    /usr/bin/python3 bench/models/make_models.py OUT_DIR [--seg-size N] [--only a,b]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import decoders

OPSET = [helper.make_opsetid("", 17)]


class Graph:
    """Collects nodes and initializers; names are generated so building code reads like the model."""

    def __init__(self, seed):
        self.nodes, self.inits, self.rng, self.count = [], [], np.random.default_rng(seed), 0

    def name(self, hint):
        self.count += 1
        return "%s_%d" % (hint, self.count)

    def const(self, array, hint="w"):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def weight(self, shape, scale=None, hint="w"):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32), hint)

    def op(self, op_type, inputs, outputs=1, out=None, **attrs):
        """Adds a node; `out` names its outputs (a string or a list), else they are generated."""
        outs = [out] if isinstance(out, str) else out or [self.name(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name(op_type), **attrs))
        return outs[0] if outputs == 1 else outs

    def model(self, inputs, outputs, name):
        g = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=OPSET, producer_name="onnxforge-bench")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


# ---------------------------------------------------------------- recurrent


def lstm2():
    g = Graph(1)
    T, I, H, C = 100, 80, 128, 12
    x = "features"
    for layer, width in enumerate((I, H)):
        w, r = g.weight([1, 4 * H, width]), g.weight([1, 4 * H, H])
        b = g.const(np.zeros([1, 8 * H], np.float32), "b")
        y = g.op("LSTM", [x, w, r, b], hidden_size=H)  # Y: [T, 1, 1, H]
        x = g.op("Squeeze", [y, g.const(np.array([1], np.int64), "axes")])  # [T, 1, H]
    last = g.op("Gather", [x, g.const(np.array(T - 1, np.int64), "idx")], axis=0)  # [1, H]
    g.op("Add", [g.op("MatMul", [last, g.weight([H, C])]), g.weight([C], 0.1)], out="logits")
    return g.model([value("features", TensorProto.FLOAT, [T, 1, I])], [value("logits", TensorProto.FLOAT, [1, C])],
                   "lstm2"), {"features": g.rng.standard_normal([T, 1, I]).astype(np.float32)}


def gru_bidir():
    g = Graph(2)
    T, I, H = 100, 64, 96
    w, r = g.weight([2, 3 * H, I]), g.weight([2, 3 * H, H])
    b = g.weight([2, 6 * H], 0.1)
    g.op("GRU", ["x", w, r, b], out=["y", "y_h"], hidden_size=H, direction="bidirectional", linear_before_reset=1)
    outs = [value("y", TensorProto.FLOAT, [T, 2, 1, H]), value("y_h", TensorProto.FLOAT, [2, 1, H])]
    return g.model([value("x", TensorProto.FLOAT, [T, 1, I])], outs, "gru_bidir"), {
        "x": g.rng.standard_normal([T, 1, I]).astype(np.float32)}


# ---------------------------------------------------------------- transformer

D, HEADS, FF = 192, 4, 768
DH = D // HEADS


def layer_norm(g, x):
    return g.op("LayerNormalization", [x, g.const(np.ones(D, np.float32), "ln_s"), g.const(np.zeros(D, np.float32),
                                                                                          "ln_b")], axis=-1)


def linear(g, x, n_in, n_out):
    return g.op("Add", [g.op("MatMul", [x, g.weight([n_in, n_out])]), g.weight([n_out], 0.02)])


def heads(g, x):
    """[1, S, D] -> [1, HEADS, S, DH]"""
    r = g.op("Reshape", [x, g.const(np.array([1, -1, HEADS, DH], np.int64), "shape")])
    return g.op("Transpose", [r], perm=[0, 2, 1, 3])


def merge_heads(g, x):
    t = g.op("Transpose", [x], perm=[0, 2, 1, 3])
    return g.op("Reshape", [t, g.const(np.array([1, -1, D], np.int64), "shape")])


def attend(g, q, k, v):
    """q [1,H,Sq,DH], k and v [1,H,Sk,DH] -> [1,H,Sq,DH]"""
    kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
    s = g.op("Mul", [g.op("MatMul", [q, kt]), g.const(np.array(1 / np.sqrt(DH), np.float32), "scale")])
    return g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])


def gelu(g, x):
    e = g.op("Erf", [g.op("Div", [x, g.const(np.array(np.sqrt(2), np.float32), "c")])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [e, g.const(np.array(1, np.float32), "c")])]),
                        g.const(np.array(0.5, np.float32), "c")])


def feed_forward(g, x):
    return linear(g, gelu(g, linear(g, layer_norm(g, x), D, FF)), FF, D)


def encdec_kv():
    g = Graph(3)
    S, P, V, LAYERS = 150, 32, 1000, 2
    # Encoder over precomputed frames [1, S, D].
    x = g.op("Add", ["frames", g.weight([S, D], 0.02)])
    for _ in range(LAYERS):
        h = layer_norm(g, x)
        a = attend(g, heads(g, linear(g, h, D, D)), heads(g, linear(g, h, D, D)), heads(g, linear(g, h, D, D)))
        x = g.op("Add", [x, linear(g, merge_heads(g, a), D, D)])
        x = g.op("Add", [x, feed_forward(g, x)])
    enc = layer_norm(g, x)
    # One decoder step: token embedding [1, 1, D], KV cache per layer.
    y = g.op("Gather", [g.weight([V, D], 0.02), "token"])  # [1, 1, D]
    inputs = [value("frames", TensorProto.FLOAT, [1, S, D]), value("token", TensorProto.INT64, [1, 1])]
    outputs, feeds = [], {}
    for layer in range(LAYERS):
        h = layer_norm(g, y)
        past_k, past_v = "past_key_%d" % layer, "past_value_%d" % layer
        k = g.op("Concat", [past_k, heads(g, linear(g, h, D, D))], out="present_key_%d" % layer, axis=2)
        v = g.op("Concat", [past_v, heads(g, linear(g, h, D, D))], out="present_value_%d" % layer, axis=2)
        y = g.op("Add", [y, linear(g, merge_heads(g, attend(g, heads(g, linear(g, h, D, D)), k, v)), D, D)])
        # Cross-attention to the encoder output.
        h = layer_norm(g, y)
        ck, cv = heads(g, linear(g, enc, D, D)), heads(g, linear(g, enc, D, D))
        y = g.op("Add", [y, linear(g, merge_heads(g, attend(g, heads(g, linear(g, h, D, D)), ck, cv)), D, D)])
        y = g.op("Add", [y, feed_forward(g, y)])
        for n in (past_k, past_v):
            inputs.append(value(n, TensorProto.FLOAT, [1, HEADS, P, DH]))
            feeds[n] = g.rng.standard_normal([1, HEADS, P, DH]).astype(np.float32)
        outputs += [value("present_key_%d" % layer, TensorProto.FLOAT, [1, HEADS, P + 1, DH]),
                    value("present_value_%d" % layer, TensorProto.FLOAT, [1, HEADS, P + 1, DH])]
    g.op("MatMul", [layer_norm(g, y), g.weight([D, V])], out="logits")
    outputs.insert(0, value("logits", TensorProto.FLOAT, [1, 1, V]))
    feeds["frames"] = g.rng.standard_normal([1, S, D]).astype(np.float32)
    feeds["token"] = np.array([[7]], np.int64)
    return g.model(inputs, outputs, "encdec_kv"), feeds


# ---------------------------------------------------------------- quantized CNNs

# (out channels, stride, group) per conv; group 0 = depthwise. The same network in every form.
CNN = [(16, 2, 1), (16, 1, 0), (32, 1, 1), (32, 2, 0), (64, 1, 1), (64, 1, 0), (64, 1, 1), (128, 2, 1)]
CLASSES = 10


def quant_weight(g, shape):
    """Symmetric int8 weights with a per-tensor scale; returns (int8 array, scale)."""
    w = g.rng.standard_normal(shape).astype(np.float32) / np.sqrt(np.prod(shape[1:]))
    scale = float(np.abs(w).max() / 127)
    return np.clip(np.round(w / scale), -127, 127).astype(np.int8), scale


def conv_shape(c_in, c_out, group):
    g_count = c_in if group == 0 else 1
    return [c_out, c_in // g_count, 3, 3], g_count


def qdyn_conv(g, x, c_in, c_out, stride, group):
    shape, groups = conv_shape(c_in, c_out, group)
    wq, ws = quant_weight(g, shape)
    xq, xs, xz = g.op("DynamicQuantizeLinear", [x], outputs=3)
    # uint8 weights with zero point 128: the form every ConvInteger implementation accepts.
    w_u8 = g.const((wq.astype(np.int16) + 128).astype(np.uint8), "wq")
    acc = g.op("ConvInteger", [xq, w_u8, xz, g.const(np.array(128, np.uint8), "wz")], pads=[1, 1, 1, 1],
               strides=[stride, stride], group=groups)
    scale = g.op("Mul", [xs, g.const(np.array(ws, np.float32), "ws")])
    y = g.op("Mul", [g.op("Cast", [acc], to=TensorProto.FLOAT), scale])
    y = g.op("Add", [y, g.const((g.rng.standard_normal([1, c_out, 1, 1]) * 0.1).astype(np.float32), "b")])
    return g.op("Relu", [y])


def qdyn_head(g, x, c_in):
    pooled = g.op("Flatten", [g.op("GlobalAveragePool", [x])])
    wq, ws = quant_weight(g, [CLASSES, c_in])
    xq, xs, xz = g.op("DynamicQuantizeLinear", [pooled], outputs=3)
    acc = g.op("MatMulInteger", [xq, g.const((wq.T.astype(np.int16) + 128).astype(np.uint8), "wq"), xz,
                                 g.const(np.array(128, np.uint8), "wz")])
    scale = g.op("Mul", [xs, g.const(np.array(ws, np.float32), "ws")])
    return g.op("Mul", [g.op("Cast", [acc], to=TensorProto.FLOAT), scale])


def qdyn_cnn(size=96):
    g = Graph(4)
    x, c = "image", 3
    for c_out, stride, group in CNN:
        x, c = qdyn_conv(g, x, c, c_out if group else c, stride, group), (c_out if group else c)
    g.op("Identity", [qdyn_head(g, x, c)], out="logits")
    return g.model([value("image", TensorProto.FLOAT, [1, 3, size, size])],
                   [value("logits", TensorProto.FLOAT, [1, CLASSES])], "qdyn_cnn"), {
        "image": g.rng.standard_normal([1, 3, size, size]).astype(np.float32)}


def qlinear_cnn(size=96):
    g = Graph(5)
    act_scale, act_zp = 0.05, 128
    s = lambda v: g.const(np.array(v, np.float32), "s")  # noqa: E731
    z = lambda v: g.const(np.array(v, np.uint8), "z")  # noqa: E731
    x = g.op("QuantizeLinear", ["image", s(act_scale), z(act_zp)])
    c = 3
    for c_out, stride, group in CNN:
        c_out = c_out if group else c
        shape, groups = conv_shape(c, c_out, group)
        wq, ws = quant_weight(g, shape)
        bias = np.round(g.rng.standard_normal(c_out) * 0.1 / (act_scale * ws)).astype(np.int32)
        x = g.op("QLinearConv", [x, s(act_scale), z(act_zp), g.const(wq, "wq"), s(ws),
                                 g.const(np.array(0, np.int8), "wz"), s(act_scale), z(act_zp), g.const(bias, "b")],
                 pads=[1, 1, 1, 1], strides=[stride, stride], group=groups)
        c = c_out
    pooled = g.op("Flatten", [g.op("GlobalAveragePool", [g.op("DequantizeLinear", [x, s(act_scale), z(act_zp)])])])
    pq = g.op("QuantizeLinear", [pooled, s(act_scale), z(act_zp)])
    wq, ws = quant_weight(g, [CLASSES, c])
    out = g.op("QLinearMatMul", [pq, s(act_scale), z(act_zp), g.const(wq.T.copy(), "wq"), s(ws),
                                 g.const(np.array(0, np.int8), "wz"), s(0.1), z(act_zp)])
    g.op("DequantizeLinear", [out, s(0.1), z(act_zp)], out="logits")
    return g.model([value("image", TensorProto.FLOAT, [1, 3, size, size])],
                   [value("logits", TensorProto.FLOAT, [1, CLASSES])], "qlinear_cnn"), {
        "image": g.rng.standard_normal([1, 3, size, size]).astype(np.float32)}


def qdq_cnn(size=96):
    g = Graph(6)
    act_scale = 0.05
    s = lambda v: g.const(np.array(v, np.float32), "s")  # noqa: E731
    qdq = lambda t: g.op("DequantizeLinear", [g.op("QuantizeLinear", [t, s(act_scale), g.const(  # noqa: E731
        np.array(0, np.int8), "z")]), s(act_scale), g.const(np.array(0, np.int8), "z")])
    x, c = qdq("image"), 3
    for c_out, stride, group in CNN:
        c_out = c_out if group else c
        shape, groups = conv_shape(c, c_out, group)
        wq, ws = quant_weight(g, shape)
        w = g.op("DequantizeLinear", [g.const(wq, "wq"), s(ws), g.const(np.array(0, np.int8), "wz")])
        y = g.op("Conv", [x, w, g.weight([c_out], 0.1)], pads=[1, 1, 1, 1], strides=[stride, stride], group=groups)
        x, c = qdq(g.op("Relu", [y])), c_out
    pooled = qdq(g.op("Flatten", [g.op("GlobalAveragePool", [x])]))
    wq, ws = quant_weight(g, [CLASSES, c])
    w = g.op("DequantizeLinear", [g.const(wq.T.copy(), "wq"), s(ws), g.const(np.array(0, np.int8), "wz")])
    g.op("MatMul", [pooled, w], out="logits")
    return g.model([value("image", TensorProto.FLOAT, [1, 3, size, size])],
                   [value("logits", TensorProto.FLOAT, [1, CLASSES])], "qdq_cnn"), {
        "image": g.rng.standard_normal([1, 3, size, size]).astype(np.float32)}


def qdyn_seg(size):
    """Encoder (four stride-2 stages) and decoder (Resize x2 + conv per stage) to a per-pixel class map."""
    g = Graph(7)
    x, c = "image", 3
    widths = [16, 32, 64, 96]
    for w in widths:
        x, c = qdyn_conv(g, qdyn_conv(g, x, c, w, 2, 1), w, w, 1, 1), w
    for w in reversed(widths[:-1]):
        up = g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")], mode="nearest")
        x, c = qdyn_conv(g, up, c, w, 1, 1), w
    up = g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")], mode="nearest")
    g.op("Conv", [up, g.weight([4, c, 1, 1])], out="mask")
    return g.model([value("image", TensorProto.FLOAT, [1, 3, size, size])],
                   [value("mask", TensorProto.FLOAT, [1, 4, size, size])], "qdyn_seg"), {
        "image": g.rng.standard_normal([1, 3, size, size]).astype(np.float32)}


# ---------------------------------------------------------------- float CNNs the shared data lacks


def batch_norm(g, x, c):
    return g.op("BatchNormalization", [x, g.weight([c], 0.2, "bn_s"), g.weight([c], 0.1, "bn_b"),
                                       g.weight([c], 0.1, "bn_m"),
                                       g.const(g.rng.uniform(0.5, 1.5, c).astype(np.float32), "bn_v")], epsilon=1e-5)


def conv(g, x, c_in, c_out, k, stride=1, pad=0, group=1, bias=False):
    ins = [x, g.weight([c_out, c_in // group, k, k])] + ([g.weight([c_out], 0.02, "b")] if bias else [])
    return g.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4, group=group)


def densenet121():
    """DenseNet-121 as torchvision exports it: each layer of a dense block reads the Concat of every
    feature map before it (BN-ReLU-Conv1x1-BN-ReLU-Conv3x3, growth 32), transitions halve the
    channels and the plane; BatchNormalization left in (pre-activation: nothing to fold it into)."""
    g = Graph(11)
    x = g.op("Relu", [batch_norm(g, conv(g, "image", 3, 64, 7, 2, 3), 64)])
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 64
    for b, layers in enumerate((6, 12, 24, 16)):
        feats = [x]
        for _ in range(layers):
            inp = g.op("Concat", feats, axis=1) if len(feats) > 1 else feats[0]
            y = conv(g, g.op("Relu", [batch_norm(g, inp, c)]), c, 128, 1)
            y = conv(g, g.op("Relu", [batch_norm(g, y, 128)]), 128, 32, 3, 1, 1)
            feats.append(y)
            c += 32
        x = g.op("Concat", feats, axis=1)
        if b < 3:
            x = conv(g, g.op("Relu", [batch_norm(g, x, c)]), c, c // 2, 1)
            x = g.op("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2])
            c //= 2
    x = g.op("Flatten", [g.op("GlobalAveragePool", [g.op("Relu", [batch_norm(g, x, c)])])])
    x = g.op("Gemm", [x, g.weight([1000, c]), g.weight([1000], 0.02)], transB=1)
    return g.model([value("image", TensorProto.FLOAT, [1, 3, 224, 224])], [value(x, TensorProto.FLOAT, [1, 1000])],
                   "densenet121"), {"image": g.rng.standard_normal([1, 3, 224, 224]).astype(np.float32)}


def layer_norm_channels(g, x, c):
    """LayerNorm over the channels of NCHW, as timm's LayerNorm2d exports: to NHWC and back."""
    t = g.op("Transpose", [x], perm=[0, 2, 3, 1])
    t = g.op("LayerNormalization", [t, g.weight([c], 0.2, "ln_s"), g.weight([c], 0.1, "ln_b")], axis=-1,
             epsilon=1e-6)
    return g.op("Transpose", [t], perm=[0, 3, 1, 2])


def convnext_atto():
    """ConvNeXt-atto (timm): 4x4 stride-4 stem, stages of 2, 2, 6, 2 blocks of 40, 80, 160, 320
    channels; a block is a 7x7 depthwise conv, then in NHWC LayerNorm, Linear to 4x, GELU (Erf),
    Linear back, layer scale, and the residual Add in NCHW; 2x2 stride-2 convs between stages."""
    g = Graph(12)
    dims = (40, 80, 160, 320)
    x = layer_norm_channels(g, conv(g, "image", 3, dims[0], 4, 4, bias=True), dims[0])
    for s, depth in enumerate((2, 2, 6, 2)):
        d = dims[s]
        if s > 0:
            x = conv(g, layer_norm_channels(g, x, dims[s - 1]), dims[s - 1], d, 2, 2, bias=True)
        for _ in range(depth):
            y = g.op("Transpose", [conv(g, x, d, d, 7, 1, 3, group=d, bias=True)], perm=[0, 2, 3, 1])
            y = g.op("LayerNormalization", [y, g.weight([d], 0.2, "ln_s"), g.weight([d], 0.1, "ln_b")], axis=-1,
                     epsilon=1e-6)
            y = g.op("Add", [g.op("MatMul", [y, g.weight([d, 4 * d])]), g.weight([4 * d], 0.02)])
            e = g.op("Erf", [g.op("Div", [y, g.const(np.array(np.sqrt(2), np.float32), "c")])])
            y = g.op("Mul", [g.op("Mul", [y, g.op("Add", [e, g.const(np.array(1, np.float32), "c")])]),
                             g.const(np.array(0.5, np.float32), "c")])
            y = g.op("Add", [g.op("MatMul", [y, g.weight([4 * d, d])]), g.weight([d], 0.02)])
            y = g.op("Mul", [y, g.weight([d], 0.1, "gamma")])
            x = g.op("Add", [x, g.op("Transpose", [y], perm=[0, 3, 1, 2])])
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x])])
    x = g.op("LayerNormalization", [x, g.weight([dims[3]], 0.2, "ln_s"), g.weight([dims[3]], 0.1, "ln_b")],
             axis=-1, epsilon=1e-6)
    x = g.op("Gemm", [x, g.weight([1000, dims[3]]), g.weight([1000], 0.02)], transB=1)
    return g.model([value("image", TensorProto.FLOAT, [1, 3, 224, 224])], [value(x, TensorProto.FLOAT, [1, 1000])],
                   "convnext_atto"), {"image": g.rng.standard_normal([1, 3, 224, 224]).astype(np.float32)}


def unet(size=128, base=16):
    """A U-Net segmenter (Ronneberger et al.): four encoder stages of two 3x3 conv + BN + ReLU and a
    2x2 max pool, a bottleneck, and four decoder stages that upsample with a 2x2 stride-2
    ConvTranspose, concatenate the encoder's skip and apply two 3x3 convs; a 1x1 conv to 2 classes."""
    g = Graph(13)

    def double_conv(x, c_in, c_out):
        x = g.op("Relu", [batch_norm(g, conv(g, x, c_in, c_out, 3, 1, 1), c_out)])
        return g.op("Relu", [batch_norm(g, conv(g, x, c_out, c_out, 3, 1, 1), c_out)])

    x, c, skips = "image", 3, []
    for s in range(4):
        x = double_conv(x, c, base << s)
        c = base << s
        skips.append((x, c))
        x = g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = double_conv(x, c, c * 2)
    c *= 2
    for skip, c_skip in reversed(skips):
        x = g.op("ConvTranspose", [x, g.weight([c, c // 2, 2, 2]), g.weight([c // 2], 0.02)], kernel_shape=[2, 2],
                 strides=[2, 2])
        x = double_conv(g.op("Concat", [skip, x], axis=1), c_skip + c // 2, c_skip)
        c = c_skip
    x = conv(g, x, c, 2, 1, bias=True)
    return g.model([value("image", TensorProto.FLOAT, [1, 3, size, size])], [value(x, TensorProto.FLOAT, [1, 2, size, size])],
                   "unet"), {"image": g.rng.standard_normal([1, 3, size, size]).astype(np.float32)}


# ---------------------------------------------------------------- architectures nobody tuned for (issue 25)


def silu(g, x):
    """SiLU as PyTorch exports it: x * Sigmoid(x)."""
    return g.op("Mul", [x, g.op("Sigmoid", [x])])


def conv1d(g, x, c_in, c_out, k, stride=1, pad=0, dilation=1, group=1, bias=True, scale=None):
    ins = [x, g.weight([c_out, c_in // group, k], scale)] + ([g.weight([c_out], 0.02, "b")] if bias else [])
    return g.op("Conv", ins, kernel_shape=[k], strides=[stride], pads=[pad, pad], dilations=[dilation], group=group)


def hifigan_gen(ch=128, frames=32):
    """A HiFi-GAN generator (Kong, Kim, Bae, "HiFi-GAN: Generative Adversarial Networks for Efficient
    and High Fidelity Speech Synthesis", NeurIPS 2020), configuration V2's shape: a 7-tap conv from
    80 mel channels to `ch`, four upsampling stages (x8, x8, x2, x2: LeakyRelu 0.1, ConvTranspose1d
    with kernel 2*rate, padding rate/2, halving the channels), each followed by the multi-receptive-
    field fusion: the mean of three residual blocks of kernel 3, 7, 11, each block three pairs of
    LeakyRelu + dilated conv (dilation 1, 3, 5) and LeakyRelu + conv (dilation 1) with a residual
    Add; then LeakyRelu (0.01), a 7-tap conv to one channel and Tanh. Weight norm is folded, as at
    inference. [1, 80, frames] mel frames -> [1, 1, frames * 256] samples."""
    g = Graph(21)
    x = conv1d(g, "mel", 80, ch, 7, pad=3)
    c = ch
    for rate in (8, 8, 2, 2):
        k = 2 * rate
        x = g.op("LeakyRelu", [x], alpha=0.1)
        x = g.op("ConvTranspose", [x, g.weight([c, c // 2, k]), g.weight([c // 2], 0.02, "b")], kernel_shape=[k],
                 strides=[rate], pads=[(k - rate) // 2] * 2)
        c //= 2
        blocks = []
        for kr in (3, 7, 11):
            y = x
            for d in (1, 3, 5):
                t = conv1d(g, g.op("LeakyRelu", [y], alpha=0.1), c, c, kr, pad=d * (kr - 1) // 2, dilation=d,
                           scale=0.5 / np.sqrt(c * kr))
                t = conv1d(g, g.op("LeakyRelu", [t], alpha=0.1), c, c, kr, pad=(kr - 1) // 2,
                           scale=0.5 / np.sqrt(c * kr))
                y = g.op("Add", [t, y])
            blocks.append(y)
        x = g.op("Div", [g.op("Sum", blocks), g.const(np.array(3, np.float32), "c")])
    x = conv1d(g, g.op("LeakyRelu", [x], alpha=0.01), c, 1, 7, pad=3)
    g.op("Tanh", [x], out="audio")
    return g.model([value("mel", TensorProto.FLOAT, [1, 80, frames])],
                   [value("audio", TensorProto.FLOAT, [1, 1, frames * 256])], "hifigan_gen"), {
        "mel": g.rng.standard_normal([1, 80, frames]).astype(np.float32)}


def yolo_small(size=256):
    """A YOLOv8-n-shaped detector (Ultralytics YOLOv8, 2023: the C2f block, Redmon et al.'s YOLO grid
    heads, YOLOv5's SPPF) as Ultralytics exports it: every Conv has its BatchNorm folded into a bias
    and SiLU as Sigmoid * Mul. Backbone of stride-2 3x3 convs and C2f blocks (1x1 conv, Split in two,
    n bottlenecks of two 3x3 convs with a residual Add, each output kept, Concat of all, 1x1 conv;
    widths 16 to 256), SPPF (1x1 conv, three chained 5x5 stride-1 MaxPools, Concat, 1x1 conv), a
    PAN neck (nearest Resize x2 + Concat going up, stride-2 conv + Concat going down) and three
    decoupled heads (box: two 3x3 convs and a 1x1 to 64 = 4 x 16 distribution bins; class: two 3x3
    convs and a 1x1 to 80 classes), each level's outputs concatenated: [1, 144, size/8, size/8],
    [1, 144, size/16, size/16], [1, 144, size/32, size/32]. The box decoding (DFL) is left out."""
    g = Graph(22)

    def cbs(x, c_in, c_out, k, stride=1):
        # Weights at 1.4x the 1/sqrt(fan_in) scale: SiLU roughly halves the variance it is given, and
        # at the plain scale the activations fade to 1e-2 by the heads, which makes the match trivial.
        w = g.weight([c_out, c_in, k, k], 1.4 / np.sqrt(c_in * k * k))
        y = g.op("Conv", [x, w, g.weight([c_out], 0.1, "b")], kernel_shape=[k, k], strides=[stride, stride],
                 pads=[k // 2] * 4)
        return silu(g, y)

    def c2f(x, c_in, c_out, n, shortcut):
        c = c_out // 2
        parts = g.op("Split", [cbs(x, c_in, 2 * c, 1), g.const(np.array([c, c], np.int64), "split")], outputs=2,
                     axis=1)
        ys = list(parts)
        for _ in range(n):
            y = cbs(cbs(ys[-1], c, c, 3), c, c, 3)
            ys.append(g.op("Add", [ys[-1], y]) if shortcut else y)
        return cbs(g.op("Concat", ys, axis=1), (2 + n) * c, c_out, 1)

    def up(x):
        return g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")], mode="nearest",
                    coordinate_transformation_mode="asymmetric", nearest_mode="floor")

    x = cbs(cbs("image", 3, 16, 3, 2), 16, 32, 3, 2)
    x = c2f(x, 32, 32, 1, True)
    p3 = c2f(cbs(x, 32, 64, 3, 2), 64, 64, 2, True)
    p4 = c2f(cbs(p3, 64, 128, 3, 2), 128, 128, 2, True)
    x = c2f(cbs(p4, 128, 256, 3, 2), 256, 256, 1, True)
    y = cbs(x, 256, 128, 1)  # SPPF
    pools = [y]
    for _ in range(3):
        pools.append(g.op("MaxPool", [pools[-1]], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]))
    p5 = cbs(g.op("Concat", pools, axis=1), 512, 256, 1)
    n4 = c2f(g.op("Concat", [up(p5), p4], axis=1), 384, 128, 1, False)
    n3 = c2f(g.op("Concat", [up(n4), p3], axis=1), 192, 64, 1, False)
    n4 = c2f(g.op("Concat", [cbs(n3, 64, 64, 3, 2), n4], axis=1), 192, 128, 1, False)
    n5 = c2f(g.op("Concat", [cbs(n4, 128, 128, 3, 2), p5], axis=1), 384, 256, 1, False)
    outs = []
    for level, (f, c) in enumerate(((n3, 64), (n4, 128), (n5, 256))):
        box = conv(g, cbs(cbs(f, c, 64, 3), 64, 64, 3), 64, 64, 1, bias=True)
        cls = conv(g, cbs(cbs(f, c, 80, 3), 80, 80, 3), 80, 80, 1, bias=True)
        name = "head_p%d" % (level + 3)
        g.op("Concat", [box, cls], out=name, axis=1)
        s = size >> (level + 3)
        outs.append(value(name, TensorProto.FLOAT, [1, 144, s, s]))
    return g.model([value("image", TensorProto.FLOAT, [1, 3, size, size])], outs, "yolo_small"), {
        "image": g.rng.uniform(0, 1, [1, 3, size, size]).astype(np.float32)}


def conformer_block(seq=100, d=144, n_heads=4, kernel=15):
    """One Conformer block (Gulati et al., "Conformer: Convolution-augmented Transformer for Speech
    Recognition", Interspeech 2020), Conformer-S widths: x + 1/2 FFN, + multi-head self-attention,
    + convolution module, + 1/2 FFN, LayerNorm. FFN: LayerNorm, Linear to 4d, Swish, Linear back.
    Attention: LayerNorm, Q/K/V Linear, per-head MatMul, scale, Softmax, MatMul, output Linear (plain
    dot-product attention; the paper's relative positional encoding is left out). Convolution module:
    LayerNorm, to [1, d, T], pointwise conv to 2d, GLU (Split, Sigmoid, Mul), depthwise conv k=15,
    BatchNorm, Swish, pointwise conv, back to [1, T, d]. [1, seq, d] -> [1, seq, d]."""
    g = Graph(23)
    dh = d // n_heads

    def ln(x):
        return g.op("LayerNormalization", [x, g.weight([d], 0.2, "ln_s"), g.weight([d], 0.1, "ln_b")], axis=-1,
                    epsilon=1e-5)

    def lin(x, n_in, n_out):
        return g.op("Add", [g.op("MatMul", [x, g.weight([n_in, n_out])]), g.weight([n_out], 0.02, "b")])

    def half_ffn(x):
        y = lin(silu(g, lin(ln(x), d, 4 * d)), 4 * d, d)
        return g.op("Add", [x, g.op("Mul", [y, g.const(np.array(0.5, np.float32), "c")])])

    def split_heads(x):
        r = g.op("Reshape", [x, g.const(np.array([1, -1, n_heads, dh], np.int64), "shape")])
        return g.op("Transpose", [r], perm=[0, 2, 1, 3])

    x = half_ffn("features")
    h = ln(x)
    q, k, v = (split_heads(lin(h, d, d)) for _ in range(3))
    s = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                     g.const(np.array(1 / np.sqrt(dh), np.float32), "scale")])
    a = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    a = g.op("Reshape", [g.op("Transpose", [a], perm=[0, 2, 1, 3]), g.const(np.array([1, -1, d], np.int64), "shape")])
    x = g.op("Add", [x, lin(a, d, d)])
    t = g.op("Transpose", [ln(x)], perm=[0, 2, 1])  # [1, d, T]
    a, b = g.op("Split", [conv1d(g, t, d, 2 * d, 1), g.const(np.array([d, d], np.int64), "split")], outputs=2, axis=1)
    t = g.op("Mul", [a, g.op("Sigmoid", [b])])
    t = silu(g, batch_norm(g, conv1d(g, t, d, d, kernel, pad=kernel // 2, group=d), d))
    t = conv1d(g, t, d, d, 1)
    x = g.op("Add", [x, g.op("Transpose", [t], perm=[0, 2, 1])])
    g.op("Identity", [ln(half_ffn(x))], out="encoded")
    return g.model([value("features", TensorProto.FLOAT, [1, seq, d])], [value("encoded", TensorProto.FLOAT,
                                                                                [1, seq, d])], "conformer_block"), {
        "features": g.rng.standard_normal([1, seq, d]).astype(np.float32)}


def group_norm(g, x, c, hw, groups=32):
    """GroupNorm as torch.onnx.export (TorchScript, opset < 18) emits it, the form deployed diffusion
    UNets carry: Reshape to [1, groups, -1], InstanceNormalization with unit scale and zero bias,
    Reshape back, per-channel Mul and Add."""
    r = g.op("Reshape", [x, g.const(np.array([1, groups, -1], np.int64), "shape")])
    r = g.op("InstanceNormalization", [r, g.const(np.ones(groups, np.float32), "one"),
                                       g.const(np.zeros(groups, np.float32), "zero")], epsilon=1e-5)
    r = g.op("Reshape", [r, g.const(np.array([1, c, hw[0], hw[1]], np.int64), "shape")])
    return g.op("Add", [g.op("Mul", [r, g.weight([c, 1, 1], 0.2, "gn_s")]), g.weight([c, 1, 1], 0.1, "gn_b")])


def diffusion_unet_block(size=32, c=64, t_dim=256):
    """A piece of a diffusion UNet's decoder (Ho, Jain, Abbeel, "Denoising Diffusion Probabilistic
    Models", 2020; Rombach et al., "High-Resolution Image Synthesis with Latent Diffusion Models",
    2022): ResBlock, spatial self-attention, ResBlock, upsampler. ResBlock: GroupNorm(32), SiLU, 3x3
    conv, plus the time embedding (SiLU, Linear to c, broadcast Add), GroupNorm, SiLU, 3x3 conv,
    residual Add. Attention block (LDM's AttnBlock): GroupNorm, 1x1 convs to Q, K, V, scores over all
    size*size positions (MatMul, scale, Softmax), MatMul with V, 1x1 conv, residual Add. Upsampler:
    nearest Resize x2 and a 3x3 conv. GroupNorm is the InstanceNormalization decomposition PyTorch's
    exporter writes (group_norm above), so the model stays at opset 17 like the rest.
    x [1, c, size, size], time embedding [1, t_dim] -> [1, c, 2 size, 2 size]."""
    g = Graph(24)
    hw, n = (size, size), size * size
    temb = silu(g, "temb")

    def res_block(x):
        h = conv(g, silu(g, group_norm(g, x, c, hw)), c, c, 3, 1, 1, bias=True)
        t = g.op("Gemm", [temb, g.weight([c, t_dim]), g.weight([c], 0.02, "b")], transB=1)
        h = g.op("Add", [h, g.op("Reshape", [t, g.const(np.array([1, c, 1, 1], np.int64), "shape")])])
        h = conv(g, silu(g, group_norm(g, h, c, hw)), c, c, 3, 1, 1, bias=True)
        return g.op("Add", [x, h])

    def attn_block(x):
        h = group_norm(g, x, c, hw)
        flat = lambda t: g.op("Reshape", [t, g.const(np.array([1, c, n], np.int64), "shape")])  # noqa: E731
        q = g.op("Transpose", [flat(conv(g, h, c, c, 1, bias=True))], perm=[0, 2, 1])  # [1, n, c]
        k, v = flat(conv(g, h, c, c, 1, bias=True)), flat(conv(g, h, c, c, 1, bias=True))  # [1, c, n]
        w = g.op("Softmax", [g.op("Mul", [g.op("MatMul", [q, k]), g.const(np.array(c ** -0.5, np.float32), "scale")])],
                 axis=-1)  # [1, n(query), n(key)]
        a = g.op("MatMul", [v, g.op("Transpose", [w], perm=[0, 2, 1])])  # [1, c, n]
        a = g.op("Reshape", [a, g.const(np.array([1, c, size, size], np.int64), "shape")])
        return g.op("Add", [x, conv(g, a, c, c, 1, bias=True)])

    x = res_block(attn_block(res_block("x")))
    x = g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")], mode="nearest",
             coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    conv_out = conv(g, x, c, c, 3, 1, 1, bias=True)
    g.op("Identity", [conv_out], out="y")
    return g.model([value("x", TensorProto.FLOAT, [1, c, size, size]), value("temb", TensorProto.FLOAT, [1, t_dim])],
                   [value("y", TensorProto.FLOAT, [1, c, 2 * size, 2 * size])], "diffusion_unet_block"), {
        "x": g.rng.standard_normal([1, c, size, size]).astype(np.float32),
        "temb": g.rng.standard_normal([1, t_dim]).astype(np.float32)}


# The models issue 25 asks to tune on, and issue 23's decoder for the Attention/RMSNormalization/
# RotaryEmbedding kernels (llama_1024: prefill of 32 tokens, batch 1).
TUNED = ["unet_128", "hifigan_gen", "yolo_small", "conformer_block", "diffusion_unet_block", "llama_1024"]
# Variations of them (other sizes, other channel counts) that exist to be measured only: nobody tunes
# a kernel while looking at these, so they show whether a speed-up carries beyond the shapes it was
# made on. Keep them out of any tuning loop.
MEASURE_ONLY = ["unet_96_c24", "hifigan_gen_c64", "yolo_small_320", "conformer_block_s250",
                "diffusion_unet_block_16_c128", "qwen2_style", "mha_interleaved"]


def write(out_dir, name, model, feeds):
    """feeds: the inputs of test_data_set_0 (a dict), or a list of (inputs dict, expected outputs list)
    per test set (the decoders, whose expected outputs come from their numpy reference)."""
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    sets = feeds if isinstance(feeds, list) else [(feeds, [])]
    for s, (inputs, outputs) in enumerate(sets):
        ts = os.path.join(d, "test_data_set_%d" % s)
        os.makedirs(ts, exist_ok=True)
        named = [(inp.name, inputs[inp.name]) for inp in model.graph.input]
        named += [(out.name, outputs[k]) for k, out in enumerate(model.graph.output) if k < len(outputs)]
        for k, (n, a) in enumerate(named):
            kind, idx = ("input", k) if k < len(model.graph.input) else ("output", k - len(model.graph.input))
            with open(os.path.join(ts, "%s_%d.pb" % (kind, idx)), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def main(argv):
    args, seg, only = [], 256, None
    i = 0
    while i < len(argv):
        if argv[i] == "--seg-size":
            seg, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--only":
            only, i = argv[i + 1].split(","), i + 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 1:
        sys.exit(__doc__)
    builders = {"lstm2": lstm2, "gru_bidir": gru_bidir, "encdec_kv": encdec_kv, "qdyn_cnn": qdyn_cnn,
                "qlinear_cnn": qlinear_cnn, "qdq_cnn": qdq_cnn, "qdyn_seg_%d" % seg: lambda: qdyn_seg(seg),
                "densenet121": densenet121, "convnext_atto": convnext_atto, "unet_128": unet,
                "hifigan_gen": hifigan_gen, "yolo_small": yolo_small, "conformer_block": conformer_block,
                "diffusion_unet_block": diffusion_unet_block,
                # Decoders with a KV cache (issue 23): llama_1024 for the speed work (TUNED); the two
                # small ones in other exporter styles are correctness models, measured only.
                "qwen2_style": lambda: decoders.decoder("qwen2_style", Graph),
                "mha_interleaved": lambda: decoders.decoder("mha_interleaved", Graph),
                "llama_1024": lambda: decoders.decoder("llama_1024", Graph),
                # MEASURE_ONLY: other sizes and channels of the models above, measured, never tuned on.
                "unet_96_c24": lambda: unet(96, 24), "hifigan_gen_c64": lambda: hifigan_gen(64),
                "yolo_small_320": lambda: yolo_small(320), "conformer_block_s250": lambda: conformer_block(250),
                "diffusion_unet_block_16_c128": lambda: diffusion_unet_block(16, 128)}
    for name, build in builders.items():
        if only is None or name in only:
            model, feeds = build()
            write(args[0], name, model, feeds)
            print(name)


if __name__ == "__main__":
    main(sys.argv[1:])
