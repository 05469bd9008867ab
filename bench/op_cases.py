"""The grid of bench/op_bench.py: single-op (or three-op) ONNX models, one per (op, shape), each shape
taken from a real model (named in its label and comment). Weights are initializers; what a deployed
model computes at run time is a graph input, so neither engine can fold the op away.

cases() returns [(op, label, build)] where build() returns (ModelProto, [(input name, array)]).
Sizes are kept so that one run of an op takes roughly 0.1-30 ms on one core: the grid is about shapes
and geometries (strides, groups, dilations, odd sizes, ranks), not about total work.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.int64: TensorProto.INT64,
              np.int32: TensorProto.INT32, np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}


def _rng(label):
    return np.random.default_rng(sum(map(ord, label)))


def model(op, label, inputs, inits=(), attrs=None, outputs=1, out_type=F, opset=17, nodes=None):
    """One node `op` reading the runtime inputs then the initializers (None = an omitted input, "")."""
    ins = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype.type], list(a.shape)) for n, a in inputs]
    init = [numpy_helper.from_array(a, n) for n, a in inits if a is not None]
    outs = ["y%d" % k for k in range(outputs)]
    if nodes is None:
        names = [n for n, _ in inputs] + [n if a is not None else "" for n, a in inits]
        nodes = [helper.make_node(op, names, outs, **(attrs or {}))]
    g = helper.make_graph(nodes, label.replace("/", "_"), ins, [helper.make_tensor_value_info(o, out_type, None)
                                                                 for o in outs], init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="op_bench")
    m.ir_version = 8 if opset < 21 else 10
    return m, list(inputs)


def f32(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def conv(label, x, w_shape, op="Conv", **attrs):
    def build():
        r = _rng(label)
        xs = f32(r, *x)
        w = f32(r, *w_shape, scale=1.0 / np.sqrt(np.prod(w_shape[1:])))
        out_c = w_shape[1] * attrs.get("group", 1) if op == "ConvTranspose" else w_shape[0]
        return model(op, label, [("x", xs)], [("w", w), ("b", f32(r, out_c, scale=0.1))], attrs)
    return (op, label, build)


def simple(op, label, shapes, inits=(), attrs=None, opset=17, out_type=F, outputs=1, dtypes=None):
    """`op` on float (or dtypes[k]) random runtime inputs of `shapes`, with fixed initializers."""
    def build():
        r = _rng(label)
        ins = []
        for k, s in enumerate(shapes):
            dt = (dtypes or {}).get(k, np.float32)
            a = f32(r, *s) if dt == np.float32 else r.integers(0, 255, size=s).astype(dt)
            ins.append(("x%d" % k, a))
        return model(op, label, ins, [(n, v(r) if callable(v) else v) for n, v in inits], attrs, outputs,
                     out_type, opset)
    return (op, label, build)


def i64(*v):
    return np.array(v, dtype=np.int64)


def resize(label, x, scale, **attrs):
    return simple("Resize", label, [x], [("roi", None), ("scales", np.array([1, 1] + [scale] * (len(x) - 2),
                                                                           dtype=np.float32))], attrs, opset=18)


def attention_mm(label, b, h, s, d):
    """Scaled dot-product attention as MatMul, Mul, Softmax, MatMul (how PyTorch exports it)."""
    def build():
        r = _rng(label)
        q, k, v = (f32(r, b, h, s, d) for _ in range(3))
        nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
                 helper.make_node("MatMul", ["q", "kt"], ["s"]), helper.make_node("Mul", ["s", "scale"], ["ss"]),
                 helper.make_node("Softmax", ["ss"], ["p"], axis=-1), helper.make_node("MatMul", ["p", "v"], ["y0"])]
        return model(None, label, [("q", q), ("k", k), ("v", v)],
                     [("scale", np.array(1 / np.sqrt(d), dtype=np.float32))], nodes=nodes)
    return ("Attention(MatMul-Softmax-MatMul)", label, build)


def llama_attention(label, s, past, mask):
    """Attention-23 of a LLaMA-style decoder of hidden 1024 (16 query heads, 4 KV heads, head 64), 4-D
    inputs: prefill (`past` 0, a float (1, 1, S, S) causal mask or is_causal) or a decode step with
    past_key/past_value of `past` positions (the present key/value are outputs too)."""
    def build():
        r = _rng(label)
        ins = [("q", f32(r, 1, 16, s, 64)), ("k", f32(r, 1, 4, s, 64)), ("v", f32(r, 1, 4, s, 64))]
        names = ["q", "k", "v"]
        attrs = {}
        if mask:
            m = np.triu(np.full((s, past + s), -np.inf, np.float32), k=past + 1).reshape(1, 1, s, past + s)
            ins.append(("mask", m))
            names.append("mask")
        elif past:
            names.append("")
        else:
            attrs["is_causal"] = 1
        if past:
            ins += [("past_k", f32(r, 1, 4, past, 64)), ("past_v", f32(r, 1, 4, past, 64))]
            names += ["past_k", "past_v"]
        nodes = [helper.make_node("Attention", names, ["y0", "y1", "y2"], **attrs)]
        return model("Attention", label, ins, outputs=3, opset=23, nodes=nodes)
    return ("Attention", label, build)


def llama_rotary(label, h, s, pos0):
    """RotaryEmbedding-23 on (1, h, s, 64) with position ids from pos0 and (4096, 32) cos/sin caches."""
    def build():
        r = _rng(label)
        inv = 1.0 / (10000 ** (np.arange(0, 64, 2, dtype=np.float64) / 64))
        ang = np.outer(np.arange(4096, dtype=np.float64), inv)
        ins = [("x", f32(r, 1, h, s, 64)), ("pos", (np.arange(s, dtype=np.int64) + pos0).reshape(1, s))]
        inits = [("cos", np.cos(ang).astype(np.float32)), ("sin", np.sin(ang).astype(np.float32))]
        nodes = [helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y0"])]
        return model("RotaryEmbedding", label, ins, inits, opset=23, nodes=nodes)
    return ("RotaryEmbedding", label, build)


def rnn(op, label, seq, inp, hidden, direction="forward"):
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    dirs = 2 if direction == "bidirectional" else 1

    def build():
        r = _rng(label)
        s = 1 / np.sqrt(hidden)
        return model(op, label, [("x", f32(r, seq, 1, inp))],
                     [("w", f32(r, dirs, gates * hidden, inp, scale=s)), ("r", f32(r, dirs, gates * hidden, hidden,
                                                                                  scale=s)),
                      ("b", f32(r, dirs, 2 * gates * hidden, scale=0.1))],
                     {"hidden_size": hidden, "direction": direction})
    return (op, label, build)


def qlinear_conv(label, x, w_shape, **attrs):
    def build():
        r = _rng(label)
        xs = r.integers(0, 255, size=x).astype(np.uint8)
        w = r.integers(-127, 127, size=w_shape).astype(np.int8)
        sc = lambda v: np.array(v, dtype=np.float32)  # noqa: E731
        return model("QLinearConv", label, [("x", xs)],
                     [("xs", sc(0.02)), ("xz", np.array(128, np.uint8)), ("w", w), ("ws", sc(0.01)),
                      ("wz", np.array(0, np.int8)), ("ys", sc(0.5)), ("yz", np.array(128, np.uint8)),
                      ("b", r.integers(-1000, 1000, size=w_shape[0]).astype(np.int32))], attrs,
                     out_type=TensorProto.UINT8)
    return ("QLinearConv", label, build)


def qlinear_matmul(label, m_, k, n):
    def build():
        r = _rng(label)
        sc = lambda v: np.array(v, dtype=np.float32)  # noqa: E731
        return model("QLinearMatMul", label, [("a", r.integers(0, 255, size=(1, m_, k)).astype(np.uint8))],
                     [("as", sc(0.02)), ("az", np.array(128, np.uint8)),
                      ("b", r.integers(-127, 127, size=(k, n)).astype(np.int8)), ("bs", sc(0.01)),
                      ("bz", np.array(0, np.int8)), ("ys", sc(2.0)), ("yz", np.array(128, np.uint8))],
                     out_type=TensorProto.UINT8)
    return ("QLinearMatMul", label, build)


def matmul_integer(label, m_, k, n):
    def build():
        r = _rng(label)
        return model("MatMulInteger", label, [("a", r.integers(0, 255, size=(1, m_, k)).astype(np.uint8))],
                     [("b", r.integers(-127, 127, size=(k, n)).astype(np.int8)), ("az", np.array(128, np.uint8))],
                     out_type=TensorProto.INT32)
    return ("MatMulInteger", label, build)


def conv_integer(label, x, w_shape, **attrs):
    def build():
        r = _rng(label)
        return model("ConvInteger", label, [("x", r.integers(0, 255, size=x).astype(np.uint8))],
                     [("w", r.integers(0, 255, size=w_shape).astype(np.uint8)), ("xz", np.array(128, np.uint8)),
                      ("wz", np.array(128, np.uint8))], attrs, out_type=TensorProto.INT32)
    return ("ConvInteger", label, build)


def cases():
    c = []
    # --- Conv: 2-D (ResNet, MobileNet, EfficientNet, ResNeXt, DeepLab, YOLOv5), 1-D (Whisper,
    # HiFi-GAN, Conformer), 3-D (3-D U-Net / video).
    c += [conv("resnet_stem_7x7s2_3x224", (1, 3, 224, 224), (64, 3, 7, 7), strides=[2, 2], pads=[3] * 4),
          conv("resnet_3x3_64x56", (1, 64, 56, 56), (64, 64, 3, 3), pads=[1] * 4),
          conv("resnet_1x1s2_256x56_to512", (1, 256, 56, 56), (512, 256, 1, 1), strides=[2, 2]),
          conv("resnet_1x1_512x28_to128", (1, 512, 28, 28), (128, 512, 1, 1)),
          conv("mobilenetv2_1x1_16x112_to96", (1, 16, 112, 112), (96, 16, 1, 1)),
          conv("mobilenetv2_1x1_144x56_to24", (1, 144, 56, 56), (24, 144, 1, 1)),
          conv("mobilenetv2_1x1_64x14_to384", (1, 64, 14, 14), (384, 64, 1, 1)),
          conv("mobilenetv2_1x1_960x7_to160", (1, 960, 7, 7), (160, 960, 1, 1)),
          conv("mobilenetv2_dw3x3_144x56", (1, 144, 56, 56), (144, 1, 3, 3), group=144, pads=[1] * 4),
          conv("mobilenetv2_dw3x3s2_96x112", (1, 96, 112, 112), (96, 1, 3, 3), group=96, strides=[2, 2],
               pads=[1] * 4),
          conv("efficientnet_dw5x5_240x28", (1, 240, 28, 28), (240, 1, 5, 5), group=240, pads=[2] * 4),
          conv("resnext_g32_3x3_128x56", (1, 128, 56, 56), (128, 4, 3, 3), group=32, pads=[1] * 4),
          conv("deeplab_dil2_3x3_256x33_odd", (1, 256, 33, 33), (256, 256, 3, 3), dilations=[2, 2], pads=[2] * 4),
          conv("yolov5_stem_6x6s2_3x320", (1, 3, 320, 320), (32, 3, 6, 6), strides=[2, 2], pads=[2] * 4),
          conv("ssd_3x3_odd_128x19", (1, 128, 19, 19), (128, 128, 3, 3), pads=[1] * 4),
          conv("whisper_1d_k3_80x1000_to384", (1, 80, 1000), (384, 80, 3), pads=[1, 1]),
          conv("hifigan_1d_k3_dil3_64x2048", (1, 64, 2048), (64, 64, 3), dilations=[3], pads=[3, 3]),
          conv("conformer_1d_dw_k31_256x200", (1, 256, 200), (256, 1, 31), group=256, pads=[15, 15]),
          conv("unet3d_3x3x3_16x8x32x32", (1, 16, 8, 32, 32), (16, 16, 3, 3, 3), pads=[1] * 6)]
    # --- ConvTranspose: U-Net / PP-OCR DB decoders (2x2 s2), DCGAN/FPN (4x4 s2 p1), HiFi-GAN
    # upsampling (1-D k16 s8), 3-D U-Net, depthwise bilinear-style upsampling (FCN).
    ct = "ConvTranspose"
    c += [conv("unet_2x2s2_128x32_to64", (1, 128, 32, 32), (128, 64, 2, 2), op=ct, strides=[2, 2]),
          conv("ppocr_db_2x2s2_64x40_to16", (1, 64, 40, 40), (64, 16, 2, 2), op=ct, strides=[2, 2]),
          conv("dcgan_4x4s2p1_128x16_to64", (1, 128, 16, 16), (128, 64, 4, 4), op=ct, strides=[2, 2], pads=[1] * 4),
          conv("hifigan_1d_k16s8p4_128x256_to64", (1, 128, 256), (128, 64, 16), op=ct, strides=[8], pads=[4, 4]),
          conv("unet3d_2x2x2s2_32x8x16x16_to16", (1, 32, 8, 16, 16), (32, 16, 2, 2, 2), op=ct, strides=[2, 2, 2]),
          conv("fcn_dw_4x4s2p1_64x32", (1, 64, 32, 32), (64, 1, 4, 4), op=ct, group=64, strides=[2, 2],
               pads=[1] * 4)]
    # --- MatMul / Gemm: BERT-base projection (2-D), BERT attention scores (batched, both runtime),
    # Whisper-tiny FFN (3-D times 2-D weight, broadcast), CLIP text (odd 77), ResNet-50 / MobileNetV2
    # classifier heads (Gemm, transB).
    c += [simple("MatMul", "bert_proj_2d_128x768x768", [(128, 768)], [("w", lambda r: f32(r, 768, 768, scale=0.04))]),
          simple("MatMul", "bert_scores_batched_12x128x64x128", [(12, 128, 64), (12, 64, 128)]),
          simple("MatMul", "whisper_ffn_bcast_1x128x384x1536", [(1, 128, 384)],
                 [("w", lambda r: f32(r, 384, 1536, scale=0.05))]),
          simple("MatMul", "whisper_scores_4d_1x6x300x64x300", [(1, 6, 300, 64), (1, 6, 64, 300)]),
          simple("MatMul", "clip_odd_1x77x512x512", [(1, 77, 512)], [("w", lambda r: f32(r, 512, 512, scale=0.04))]),
          simple("MatMul", "gemv_1x1x768x3072", [(1, 1, 768)], [("w", lambda r: f32(r, 768, 3072, scale=0.04))]),
          simple("Gemm", "resnet50_fc_1x2048_to1000_transB", [(1, 2048)],
                 [("w", lambda r: f32(r, 1000, 2048, scale=0.02)), ("b", lambda r: f32(r, 1000))], {"transB": 1}),
          simple("Gemm", "lstm_proj_64x256_to512_transB", [(64, 256)],
                 [("w", lambda r: f32(r, 512, 256, scale=0.06)), ("b", lambda r: f32(r, 512))], {"transB": 1})]
    # --- Pooling: ResNet stem max pool, U-Net 2x2, YOLOv5 SPPF 5x5 s1, 1-D (audio), Inception avg
    # pool (pads, count_include_pad 0), DenseNet transition, global pools of MobileNetV2 / ResNet-50 /
    # EfficientNet's squeeze-excitation.
    c += [simple("MaxPool", "resnet_3x3s2p1_64x112", [(1, 64, 112, 112)], attrs={"kernel_shape": [3, 3],
                 "strides": [2, 2], "pads": [1] * 4}),
          simple("MaxPool", "squeezenet_3x3s2_ceil_64x111_odd", [(1, 64, 111, 111)], attrs={"kernel_shape": [3, 3],
                 "strides": [2, 2], "ceil_mode": 1}),
          simple("MaxPool", "unet_2x2s2_64x128", [(1, 64, 128, 128)], attrs={"kernel_shape": [2, 2],
                 "strides": [2, 2]}),
          simple("MaxPool", "yolov5_sppf_5x5s1p2_256x20", [(1, 256, 20, 20)], attrs={"kernel_shape": [5, 5],
                 "pads": [2] * 4}),
          simple("MaxPool", "audio_1d_k3s2_64x1000", [(1, 64, 1000)], attrs={"kernel_shape": [3], "strides": [2]}),
          simple("AveragePool", "inception_3x3s1p1_192x35_odd", [(1, 192, 35, 35)], attrs={"kernel_shape": [3, 3],
                 "pads": [1] * 4}),
          simple("AveragePool", "densenet_2x2s2_256x56", [(1, 256, 56, 56)], attrs={"kernel_shape": [2, 2],
                 "strides": [2, 2]}),
          simple("GlobalAveragePool", "mobilenetv2_1280x7", [(1, 1280, 7, 7)]),
          simple("GlobalAveragePool", "efficientnet_se_144x56", [(1, 144, 56, 56)])]
    # --- Resize: YOLOv5 neck nearest x2, FPN/U-Net bilinear x2 (half_pixel), DeepLab logits x4
    # (align_corners), image preprocessing cubic.
    c += [resize("yolov5_nearest_x2_256x20", (1, 256, 20, 20), 2.0, mode="nearest"),
          resize("unet_linear_x2_64x64", (1, 64, 64, 64), 2.0, mode="linear"),
          resize("deeplab_linear_x4_align_19x64", (1, 19, 64, 64), 4.0, mode="linear",
                 coordinate_transformation_mode="align_corners"),
          resize("preproc_cubic_x2_3x112", (1, 3, 112, 112), 2.0, mode="cubic")]
    # --- GridSample (opset 16): optical-flow warping / spatial transformer.
    for mode in ("bilinear", "nearest", "bicubic"):
        c.append(simple("GridSample", "flow_warp_%s_32x64" % mode, [(1, 32, 64, 64)],
                        [("grid", lambda r: (r.random((1, 64, 64, 2)) * 2.2 - 1.1).astype(np.float32))],
                        {"mode": mode}, opset=16))
    # --- Einsum: attention scores as written in einops code, a bilinear contraction.
    c += [simple("Einsum", "attn_bhid_bhjd_4x128x32", [(1, 4, 128, 32), (1, 4, 128, 32)],
                 attrs={"equation": "bhid,bhjd->bhij"}),
          simple("Einsum", "batched_bij_bjk_8x64x64", [(8, 64, 96), (8, 96, 64)], attrs={"equation": "bij,bjk->bik"})]
    # --- Recurrent: speech/VAD LSTM (silero-like), bidirectional text LSTM (CRNN OCR), GRU (vocoder
    # / RNNoise-like), plain RNN.
    c += [rnn("LSTM", "vad_seq100_in64_h128", 100, 64, 128),
          rnn("LSTM", "crnn_bidir_seq40_in96_h48", 40, 96, 48, "bidirectional"),
          rnn("GRU", "rnnoise_seq100_in64_h96", 100, 64, 96),
          rnn("RNN", "seq100_in64_h64", 100, 64, 64)]
    # --- Attention: BERT-tiny (2 heads x 64, seq 128), Whisper-tiny encoder cut to 300 frames
    # (6 heads x 64); the opset-23 Attention op on the BERT shape.
    c += [attention_mm("bert_tiny_2x128x64", 1, 2, 128, 64), attention_mm("whisper_6x300x64", 1, 6, 300, 64)]
    c.append(simple("Attention", "op23_bert_tiny_2x128x64", [(1, 2, 128, 64)] * 3, opset=23))
    # --- LLaMA-style decoder of hidden 1024 (16 query heads, 4 KV heads, head 64; bench/models'
    # llama_1024): Attention-23 prefill of 32 tokens (causal mask or is_causal) and decode steps over
    # a cache of 32 and 256; RotaryEmbedding-23 on the query (prefill) and key (decode) heads;
    # RMSNormalization over the hidden size in prefill and decode.
    c += [llama_attention("llama1024_prefill_gqa16x4_s32_mask", 32, 0, True),
          llama_attention("llama1024_prefill_gqa16x4_s32_causal", 32, 0, False),
          llama_attention("llama1024_decode_gqa16x4_past32", 1, 32, False),
          llama_attention("llama1024_decode_gqa16x4_past256", 1, 256, False),
          llama_rotary("llama1024_q_1x16x32x64", 16, 32, 0),
          llama_rotary("llama1024_k_decode_1x4x1x64", 4, 1, 256),
          simple("RMSNormalization", "llama1024_prefill_1x32x1024", [(1, 32, 1024)], [("g", lambda r: f32(r, 1024))],
                 {"axis": -1}, opset=23),
          simple("RMSNormalization", "llama1024_decode_1x1x1024", [(1, 1, 1024)], [("g", lambda r: f32(r, 1024))],
                 {"axis": -1}, opset=23),
          # a long prompt (512 tokens): memory-bound, splitting its rows between 2 threads did not pay
          simple("RMSNormalization", "llama1024_prefill_1x512x1024", [(1, 512, 1024)], [("g", lambda r: f32(r, 1024))],
                 {"axis": -1}, opset=23)]
    # --- Normalizations: BERT-base / Whisper-tiny LayerNorm, Stable-Diffusion UNet GroupNorm (32
    # groups, opset 21 per-channel scale), style-transfer InstanceNorm, LLaMA-style RMSNorm (opset 23).
    c += [simple("LayerNormalization", "bert_base_1x128x768", [(1, 128, 768)],
                 [("g", lambda r: f32(r, 768)), ("b", lambda r: f32(r, 768))], {"axis": -1}),
          simple("LayerNormalization", "whisper_tiny_1x1500x384", [(1, 1500, 384)],
                 [("g", lambda r: f32(r, 384)), ("b", lambda r: f32(r, 384))], {"axis": -1}),
          simple("GroupNormalization", "sd_unet_g32_320x32", [(1, 320, 32, 32)],
                 [("g", lambda r: f32(r, 320)), ("b", lambda r: f32(r, 320))], {"num_groups": 32}, opset=21),
          simple("InstanceNormalization", "style_64x128", [(1, 64, 128, 128)],
                 [("g", lambda r: f32(r, 64)), ("b", lambda r: f32(r, 64))]),
          simple("RMSNormalization", "llama_1x128x2048", [(1, 128, 2048)], [("g", lambda r: f32(r, 2048))],
                 {"axis": -1}, opset=23)]
    # --- Softmax / LogSoftmax: BERT attention probabilities, PP-OCR recognizer CTC vocabulary (6625),
    # Whisper's vocabulary at one position (51865, odd), softmax over a non-last axis (DETR-like).
    c += [simple("Softmax", "bert_probs_12x128x128", [(1, 12, 128, 128)], attrs={"axis": -1}),
          simple("Softmax", "whisper_vocab_1x51865_odd", [(1, 1, 51865)], attrs={"axis": -1}),
          simple("Softmax", "axis1_1x100x64x64", [(1, 100, 64, 64)], attrs={"axis": 1}),
          simple("LogSoftmax", "ppocr_ctc_1x40x6625", [(1, 40, 6625)], attrs={"axis": -1})]
    # --- Reductions (opset 18, axes as input): SE block spatial mean, hand-written LayerNorm mean,
    # sum over channels (non-last axis).
    c += [simple("ReduceMean", "se_hw_64x56", [(1, 64, 56, 56)], [("axes", i64(2, 3))], opset=18),
          simple("ReduceMean", "layernorm_last_128x768", [(1, 128, 768)], [("axes", i64(-1))], opset=18),
          simple("ReduceSum", "channels_axis1_512x1024", [(1, 512, 1024)], [("axes", i64(1))], opset=18)]
    # --- Transpose: BERT head split, NCHW->NHWC (tf2onnx), ShuffleNet channel shuffle (5-D).
    c += [simple("Transpose", "bert_heads_1x128x12x64", [(1, 128, 12, 64)], attrs={"perm": [0, 2, 1, 3]}),
          simple("Transpose", "nchw_to_nhwc_64x56", [(1, 64, 56, 56)], attrs={"perm": [0, 2, 3, 1]}),
          simple("Transpose", "shufflenet_1x2x58x28x28", [(1, 2, 58, 28, 28)], attrs={"perm": [0, 2, 1, 3, 4]})]
    # --- Gather / ScatterND: BERT word-embedding lookup, a slice of heads along axis 1, Whisper
    # decoder KV-cache row update.
    c += [("Gather", "bert_embedding_30522x128_idx128", lambda: model(
              "Gather", "Gather/emb", [("ids", _rng("emb").integers(0, 30522, size=(1, 128)).astype(np.int64))],
              [("table", f32(_rng("emb"), 30522, 128))],
              nodes=[helper.make_node("Gather", ["table", "ids"], ["y0"])])),
          simple("Gather", "last_axis_64x1000_idx500", [(1, 64, 1000)],
                 [("idx", lambda r: r.integers(0, 1000, size=500).astype(np.int64))], {"axis": 2}),
          ("ScatterND", "kv_cache_rows_4096x128_upd1024", lambda: model(
              "ScatterND", "ScatterND/kv", [("data", f32(_rng("kv"), 4096, 128)), ("upd", f32(_rng("u"), 1024, 128))],
              [("idx", (np.arange(1024, dtype=np.int64) * 4).reshape(1024, 1))],
              nodes=[helper.make_node("ScatterND", ["data", "idx", "upd"], ["y0"])]))]
    # --- Concat / Split / Slice / Pad: YOLOv5 neck concat, DenseNet 4-way concat, BERT fused-QKV
    # split, YOLOv5 "Focus" strided slice, reflect pad (style transfer, HiFi-GAN 1-D), zero pad.
    c += [simple("Concat", "yolov5_neck_2x256x40", [(1, 256, 40, 40)] * 2, attrs={"axis": 1}),
          simple("Concat", "densenet_4way_64x56", [(1, 64, 56, 56)] * 4, attrs={"axis": 1}),
          simple("Concat", "last_axis_1x128x384x2", [(1, 128, 384)] * 2, attrs={"axis": -1}),
          simple("Split", "bert_qkv_1x128x2304_to3", [(1, 128, 2304)], attrs={"axis": -1, "num_outputs": 3},
                 outputs=3, opset=18),
          simple("Slice", "yolov5_focus_step2_3x640", [(1, 3, 640, 640)],
                 [("s", i64(0, 0)), ("e", i64(640, 640)), ("a", i64(2, 3)), ("st", i64(2, 2))]),
          simple("Slice", "qkv_middle_1x128x2304", [(1, 128, 2304)], [("s", i64(768)), ("e", i64(1536)),
                                                                      ("a", i64(-1))]),
          simple("Pad", "style_reflect3_64x128", [(1, 64, 128, 128)], [("p", i64(0, 0, 3, 3, 0, 0, 3, 3))],
                 {"mode": "reflect"}),
          simple("Pad", "hifigan_1d_reflect3_80x1000", [(1, 80, 1000)], [("p", i64(0, 0, 3, 0, 0, 3))],
                 {"mode": "reflect"}),
          simple("Pad", "zero_pad1_256x56", [(1, 256, 56, 56)], [("p", i64(0, 0, 1, 1, 0, 0, 1, 1))])]
    # --- Cast: float16 export boundary, image bytes to float (preprocessing), int64 ids to int32.
    c += [simple("Cast", "float_to_half_3x224", [(1, 3, 224, 224)], attrs={"to": TensorProto.FLOAT16},
                 out_type=TensorProto.FLOAT16),
          simple("Cast", "uint8_to_float_3x640", [(1, 3, 640, 640)], attrs={"to": F}, dtypes={0: np.uint8}),
          simple("Cast", "int64_to_int32_1x65536", [(1, 65536)], attrs={"to": TensorProto.INT32},
                 dtypes={0: np.int64}, out_type=TensorProto.INT32)]
    # --- Quantized: int8 ResNet 3x3 and MobileNet depthwise (QLinearConv, uint8 x int8 w), BERT
    # dynamic quantization (MatMulInteger), QLinearMatMul, ConvInteger (u8 x u8, dynamic CNN).
    c += [qlinear_conv("resnet_3x3_64x56", (1, 64, 56, 56), (64, 64, 3, 3), pads=[1] * 4),
          qlinear_conv("mobilenet_dw3x3_144x56", (1, 144, 56, 56), (144, 1, 3, 3), group=144, pads=[1] * 4),
          qlinear_conv("resnet_1x1_256x28_to64", (1, 256, 28, 28), (64, 256, 1, 1)),
          qlinear_matmul("bert_128x768x768", 128, 768, 768),
          matmul_integer("bert_dyn_128x768x768", 128, 768, 768),
          conv_integer("resnet_3x3_64x56", (1, 64, 56, 56), (64, 64, 3, 3), pads=[1] * 4)]
    # --- DequantizeLinear: activations per tensor (uint8), int8 weights per axis (BERT projection).
    c += [simple("DequantizeLinear", "act_u8_per_tensor_256x56", [(1, 256, 56, 56)],
                 [("s", np.array(0.02, np.float32)), ("z", np.array(128, np.uint8))], dtypes={0: np.uint8}),
          ("DequantizeLinear", "weight_i8_per_axis_768x3072", lambda: model(
              "DequantizeLinear", "DQ/w", [("x", _rng("dq").integers(-127, 127, size=(768, 3072)).astype(np.int8))],
              [("s", (_rng("dqs").random(3072) * 0.01 + 0.001).astype(np.float32)), ("z", np.zeros(3072, np.int8))],
              {"axis": 1}))]
    return c
