"""Decoder-only transformers with a KV cache, written the way PyTorch's exporter (torch.onnx.export,
opset 17) writes Hugging Face models: every reshape target built at run time from Shape -> Gather ->
Unsqueeze -> Concat, small constants as Constant nodes, the masks built from Range/Less/Where and
ConstantOfShape, norms and activations decomposed into primitive ops. Each model also has a numpy
forward of the same network (`reference`), written from the weights and the configuration alone,
never from the graph: it gives the expected outputs, so the graph is checked, not trusted.

Three exporter styles (issue 23: the fusions must generalise beyond llama_tiny_dirty):
  qwen2_style      grouped-query attention (8 query heads, 2 KV heads) with bias on q/k/v (MatMul +
                   Add), RMSNorm as Cast/Pow/ReduceMean/Add/Sqrt/Div/Mul, rotate_half rotary with the
                   cos/sin caches sliced to the total length and gathered by position_ids, repeat_kv
                   as Unsqueeze/Expand/Reshape, SwiGLU, additive causal + padding mask, tied lm_head
                   (Transpose of the embedding).
  mha_interleaved  multi-head attention (KV heads = query heads), GPT-J/Meta interleaved rotary
                   (rotate_every_two: Slice step 2, stack(-x2, x1) as Unsqueeze+Concat+Reshape,
                   repeat-interleaved cos/sin tables) applied in the [batch, seq, heads, dim] layout
                   before the transpose, RMSNorm as Mul(x, x)/ReduceMean/Add/Sqrt/Reciprocal/Mul,
                   the query scaled before the score MatMul, a boolean causal mask sliced from a
                   lower-triangular buffer (Where) plus an additive padding mask, GELU (Erf) MLP
                   with biases.
  llama_1024       LLaMA-style (no biases, GQA 16/4 heads, hidden 1024, 8 layers, intermediate 2816)
                   for the speed benchmark; prefill only.

Test sets: 0 = prefill (batch 2, seq 8, empty past: past dims of size 0, the second row left-padded),
1 = one decode step over set 0's present key/values. llama_1024: set 0 only (batch 1, seq 32).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

FMIN = np.float32(np.finfo(np.float32).min)
INT_MAX = np.iinfo(np.int64).max

CONFIGS = {
    "qwen2_style": dict(seed=31, hidden=128, layers=2, heads=8, kv_heads=2, inter=352, vocab=1000, max_pos=128,
                        qkv_bias=True, rotary="half", norm="rms_pow_div", mlp="swiglu", tied=True, mask="additive",
                        eps=1e-6, theta=10000.0, sets="prefill,decode", batch=2, seq=8),
    "mha_interleaved": dict(seed=32, hidden=192, layers=3, heads=6, kv_heads=6, inter=512, vocab=800, max_pos=128,
                            qkv_bias=False, rotary="interleaved", norm="rms_mul_recip", mlp="gelu", tied=False,
                            mask="where", eps=1e-5, theta=10000.0, sets="prefill,decode", batch=2, seq=8),
    "llama_1024": dict(seed=33, hidden=1024, layers=8, heads=16, kv_heads=4, inter=2816, vocab=4096, max_pos=256,
                       qkv_bias=False, rotary="half", norm="rms_pow_div", mlp="swiglu", tied=False, mask="additive",
                       eps=1e-6, theta=10000.0, sets="prefill", batch=1, seq=32),
}


# ---------------------------------------------------------------- weights (shared by graph and reference)


def make_weights(cfg):
    """Seeded random weights, scaled so that activations stay near unit size through every layer:
    projections 1/sqrt(fan_in), the two projections back into the residual stream at half that."""
    rng = np.random.default_rng(cfg["seed"])
    d, f, dh = cfg["hidden"], cfg["inter"], cfg["hidden"] // cfg["heads"]
    kv = cfg["kv_heads"] * dh

    def w(n_in, n_out, gain=1.0):  # drawn in float32 directly: half the time of float64 for llama_1024
        a = rng.standard_normal([n_in, n_out], dtype=np.float32)
        a *= np.float32(gain / np.sqrt(n_in))
        return a

    def vec(n, mean, std):
        return (mean + rng.standard_normal(n) * std).astype(np.float32)

    W = {"embed": (rng.standard_normal([cfg["vocab"], d]) * (0.3 if cfg["tied"] else 1.0)).astype(np.float32)}
    for i in range(cfg["layers"]):
        p = "layers.%d." % i
        W[p + "q"], W[p + "k"], W[p + "v"], W[p + "o"] = w(d, d), w(d, kv), w(d, kv), w(d, d, 0.5)
        if cfg["qkv_bias"]:
            W[p + "q_bias"], W[p + "k_bias"], W[p + "v_bias"] = vec(d, 0, 0.1), vec(kv, 0, 0.1), vec(kv, 0, 0.1)
        if cfg["mlp"] == "swiglu":
            W[p + "gate"], W[p + "up"], W[p + "down"] = w(d, f), w(d, f), w(f, d, 0.5)
        else:
            W[p + "fc1"], W[p + "fc1_bias"] = w(d, f), vec(f, 0, 0.05)
            W[p + "fc2"], W[p + "fc2_bias"] = w(f, d, 0.5), vec(d, 0, 0.05)
        W[p + "ln1"], W[p + "ln2"] = vec(d, 1, 0.1), vec(d, 1, 0.1)
    W["norm"] = vec(d, 1, 0.1)
    if not cfg["tied"]:
        W["lm_head"] = w(d, cfg["vocab"])
    # Rotary tables over every position: rotate_half pairs column i with i + dh/2 (the frequencies
    # concatenated twice), the interleaved form pairs 2i with 2i+1 (each frequency repeated twice).
    inv = 1.0 / (cfg["theta"] ** (np.arange(0, dh, 2, dtype=np.float64) / dh))
    ang = np.outer(np.arange(cfg["max_pos"], dtype=np.float64), inv)
    ang = np.concatenate([ang, ang], -1) if cfg["rotary"] == "half" else np.repeat(ang, 2, -1)
    W["cos"], W["sin"] = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    if cfg["mask"] == "where":
        W["causal_bias"] = np.tril(np.ones([cfg["max_pos"], cfg["max_pos"]], bool))
    return W


# ---------------------------------------------------------------- numpy reference


def _norm(cfg, x, scale):
    ms = np.mean(x * x, -1, keepdims=True)
    return x / np.sqrt(ms + cfg["eps"]) * scale


def _rotate(cfg, x):
    if cfg["rotary"] == "half":
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], -1)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


def _masked_scores(cfg, W, scores, attention_mask, past):
    """The mask arithmetic in float32, as the graph does it: -3.4e38 + -3.4e38 overflows to -inf and a
    score added to -3.4e38 is absorbed; the softmax of a fully masked row is then uniform over the
    keys that kept the finite minimum. Doing this part in float64 would give other rows than the graph."""
    b, _, s, t = scores.shape
    sc = scores.astype(np.float32)
    pad = np.where(attention_mask[:, None, None, :] == 0, FMIN, np.float32(0)).astype(np.float32)
    with np.errstate(over="ignore"):
        if cfg["mask"] == "additive":
            causal = np.where(np.arange(s)[:, None] >= np.arange(s)[None, :], np.float32(0), FMIN)
            causal = np.concatenate([np.zeros([s, past], np.float32), causal], -1)
            sc = np.maximum(sc + (causal[None, None] + pad), FMIN)
        else:
            keep = W["causal_bias"][t - s:t, :t]
            sc = np.where(keep[None, None], sc, FMIN) + pad
    return sc.astype(np.float64)


def reference(cfg, W, input_ids, attention_mask, position_ids, past):
    """past: list of (key, value) per layer, [batch, kv_heads, past, dh]. Returns logits and presents."""
    f64 = lambda a: a.astype(np.float64)  # noqa: E731
    d, H, KV = cfg["hidden"], cfg["heads"], cfg["kv_heads"]
    dh = d // H
    b, s = input_ids.shape
    p_len = past[0][0].shape[2]
    x = f64(W["embed"][input_ids])
    cos, sin = f64(W["cos"][position_ids]), f64(W["sin"][position_ids])  # [b, s, dh]
    presents = []
    for i in range(cfg["layers"]):
        p = "layers.%d." % i
        h = _norm(cfg, x, f64(W[p + "ln1"]))
        q, k, v = (h @ f64(W[p + n]) + (f64(W[p + n + "_bias"]) if cfg["qkv_bias"] else 0) for n in "qkv")
        q, k, v = q.reshape(b, s, H, dh), k.reshape(b, s, KV, dh), v.reshape(b, s, KV, dh)
        if cfg["rotary"] == "interleaved":  # applied before the transpose, [b, s, heads, dh]
            q = q * cos[:, :, None] + _rotate(cfg, q) * sin[:, :, None]
            k = k * cos[:, :, None] + _rotate(cfg, k) * sin[:, :, None]
        q, k, v = q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3)
        if cfg["rotary"] == "half":
            q = q * cos[:, None] + _rotate(cfg, q) * sin[:, None]
            k = k * cos[:, None] + _rotate(cfg, k) * sin[:, None]
        k = np.concatenate([f64(past[i][0]), k], 2)
        v = np.concatenate([f64(past[i][1]), v], 2)
        presents += [k, v]
        k, v = np.repeat(k, H // KV, 1), np.repeat(v, H // KV, 1)
        sc = _masked_scores(cfg, W, q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh), attention_mask, p_len)
        e = np.exp(sc - sc.max(-1, keepdims=True))
        a = (e / e.sum(-1, keepdims=True)) @ v
        x = x + a.transpose(0, 2, 1, 3).reshape(b, s, d) @ f64(W[p + "o"])
        h = _norm(cfg, x, f64(W[p + "ln2"]))
        if cfg["mlp"] == "swiglu":
            gt = h @ f64(W[p + "gate"])
            y = (gt / (1 + np.exp(-gt)) * (h @ f64(W[p + "up"]))) @ f64(W[p + "down"])
        else:
            from math import erf
            u = h @ f64(W[p + "fc1"]) + f64(W[p + "fc1_bias"])
            u = 0.5 * u * (1 + np.vectorize(erf)(u / np.sqrt(2)))
            y = u @ f64(W[p + "fc2"]) + f64(W[p + "fc2_bias"])
        x = x + y
    x = _norm(cfg, x, f64(W["norm"]))
    logits = x @ (f64(W["embed"]).T if cfg["tied"] else f64(W["lm_head"]))
    return [logits.astype(np.float32)] + [t.astype(np.float32) for t in presents]


# ---------------------------------------------------------------- ONNX graph, exporter style


class Exporter:
    """Emits nodes onto a make_models.Graph the way the TorchScript exporter does."""

    def __init__(self, g):
        self.g = g

    def c(self, value, dtype=np.int64):
        """A Constant node (the exporter writes small constants as nodes, not initializers)."""
        t = numpy_helper.from_array(np.asarray(value, dtype))
        return self.g.op("Constant", [], value=t)

    def dim(self, x, i):
        """x.size(i): Shape -> Gather(scalar index), an int64 scalar."""
        return self.g.op("Gather", [self.g.op("Shape", [x]), self.c(i)], axis=0)

    def shape(self, *parts):
        """A shape tensor from scalars (names) and Python ints, as torch writes view(b, s, h, d)."""
        g = self
        vecs = [g.g.op("Unsqueeze", [p if isinstance(p, str) else g.c(p), g.c([0])]) for p in parts]
        return self.g.op("Concat", vecs, axis=0)

    def param(self, name, array):
        self.g.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name


def _rms_norm(e, cfg, x, weight):
    g = e.g
    if cfg["norm"] == "rms_pow_div":  # LlamaRMSNorm / Qwen2RMSNorm: upcast, pow(2), rsqrt as 1/sqrt
        x = g.op("Cast", [x], to=TensorProto.FLOAT)
        var = g.op("ReduceMean", [g.op("Pow", [x, e.c(2.0, np.float32)])], axes=[-1], keepdims=1)
        inv = g.op("Div", [e.c(1.0, np.float32), g.op("Sqrt", [g.op("Add", [var, e.c(cfg["eps"], np.float32)])])])
        return g.op("Mul", [weight, g.op("Mul", [x, inv])])
    var = g.op("ReduceMean", [g.op("Mul", [x, x])], axes=[-1], keepdims=1)  # x * x, reciprocal of sqrt
    inv = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [var, e.c(cfg["eps"], np.float32)])])])
    return g.op("Mul", [g.op("Mul", [x, inv]), weight])


def _linear(e, x, w, bias=None):
    y = e.g.op("MatMul", [x, w])
    return e.g.op("Add", [y, bias]) if bias else y


def _additive_mask(e, attention_mask, seq, past_len):
    """Hugging Face's _make_causal_mask + _expand_mask as exported (LLaMA, Qwen2): a [seq, seq] matrix
    of float min with zeros on and below the diagonal (Range/Less/Where), zeros for the past columns
    in front, expanded to [batch, 1, seq, total], plus the inverted padding mask (1 - m, min where set)."""
    g = e.g
    full = g.op("ConstantOfShape", [e.shape(seq, seq)], value=numpy_helper.from_array(np.array([FMIN], np.float32)))
    rng = g.op("Range", [e.c(0), seq, e.c(1)])
    below = g.op("Less", [rng, g.op("Reshape", [g.op("Add", [rng, e.c(1)]), e.shape(seq, 1)])])
    causal = g.op("Where", [below, e.c(0.0, np.float32), full])
    zeros = g.op("ConstantOfShape", [e.shape(seq, past_len)], value=numpy_helper.from_array(np.zeros(1, np.float32)))
    causal = g.op("Concat", [zeros, causal], axis=-1)
    batch, total = e.dim(attention_mask, 0), e.dim(attention_mask, 1)
    causal = g.op("Unsqueeze", [g.op("Unsqueeze", [causal, e.c([0])]), e.c([1])])
    causal = g.op("Expand", [causal, e.shape(batch, 1, seq, total)])
    m = g.op("Unsqueeze", [g.op("Unsqueeze", [attention_mask, e.c([1])]), e.c([2])])
    m = g.op("Cast", [g.op("Expand", [m, e.shape(batch, 1, seq, total)])], to=TensorProto.FLOAT)
    inv = g.op("Sub", [e.c(1.0, np.float32), m])
    inv = g.op("Where", [g.op("Cast", [inv], to=TensorProto.BOOL), e.c(FMIN, np.float32), inv])
    return g.op("Add", [inv, causal])


def _padding_mask(e, attention_mask):
    """GPT-J's padding mask: m[:, None, None, :], (1 - m) * float min (a Mul, not a Where)."""
    g = e.g
    m = g.op("Unsqueeze", [attention_mask, e.c([1, 2])])
    m = g.op("Cast", [m], to=TensorProto.FLOAT)
    return g.op("Mul", [g.op("Sub", [e.c(1.0, np.float32), m]), e.c(FMIN, np.float32)])


def _rotary_half(e, x, cos, sin):
    """q * cos + rotate_half(q) * sin; rotate_half = cat(-x[..., d/2:], x[..., :d/2]) via Slice/Neg/Concat."""
    g = e.g
    half = g.op("Cast", [g.op("Div", [e.dim(x, 3), e.c(2)])], to=TensorProto.INT64)
    x1 = g.op("Slice", [x, e.shape(0), e.shape(half), e.c([3]), e.c([1])])
    x2 = g.op("Slice", [x, e.shape(half), e.c([INT_MAX]), e.c([3]), e.c([1])])
    rot = g.op("Concat", [g.op("Neg", [x2]), x1], axis=-1)
    return g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [rot, sin])])


def _rotary_interleaved(e, x, cos, sin):
    """GPT-J's rotate_every_two on [b, s, h, d]: x1 = x[..., ::2], x2 = x[..., 1::2],
    stack((-x2, x1), -1).flatten(-2) as Unsqueeze + Concat + Reshape."""
    g = e.g
    x1 = g.op("Slice", [x, e.c([0]), e.c([INT_MAX]), e.c([3]), e.c([2])])
    x2 = g.op("Slice", [x, e.c([1]), e.c([INT_MAX]), e.c([3]), e.c([2])])
    st = g.op("Concat", [g.op("Unsqueeze", [g.op("Neg", [x2]), e.c([-1])]), g.op("Unsqueeze", [x1, e.c([-1])])],
              axis=-1)
    rot = g.op("Reshape", [st, e.shape(e.dim(st, 0), e.dim(st, 1), e.dim(st, 2), -1)])
    return g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [rot, sin])])


def _repeat_kv(e, x, n_rep):
    """x[:, :, None].expand(b, kvh, n_rep, t, d).reshape(b, kvh * n_rep, t, d)."""
    g = e.g
    b, kvh, t, d = (e.dim(x, i) for i in range(4))
    y = g.op("Expand", [g.op("Unsqueeze", [x, e.c([2])]), e.shape(b, kvh, n_rep, t, d)])
    return g.op("Reshape", [y, e.shape(b, g.op("Mul", [kvh, e.c(n_rep)]), t, d)])


def _gelu(e, x):
    g = e.g
    erf = g.op("Erf", [g.op("Div", [x, e.c(1.4142135381698608, np.float32)])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [erf, e.c(1.0, np.float32)])]), e.c(0.5, np.float32)])


def build_graph(g, cfg, W):
    """The decoder as an opset-17 graph on make_models.Graph g; returns (inputs, outputs) value infos."""
    e = Exporter(g)
    d, H, KV = cfg["hidden"], cfg["heads"], cfg["kv_heads"]
    dh = d // H
    emb = e.param("embed_tokens.weight", W["embed"])
    cos_c, sin_c = e.param("rotary.cos_cached", W["cos"]), e.param("rotary.sin_cached", W["sin"])
    x = g.op("Gather", [emb, "input_ids"])
    seq = e.dim("input_ids", 1)
    past_len = e.dim("past_key_values.0.key", 2)
    if cfg["mask"] == "additive":
        mask = _additive_mask(e, "attention_mask", seq, past_len)
    else:
        pad = _padding_mask(e, "attention_mask")
        total = g.op("Add", [seq, past_len])
        bias = e.param("causal_bias", W["causal_bias"])
        rows = g.op("Slice", [bias, e.shape(g.op("Sub", [total, seq])), e.shape(total), e.c([0]), e.c([1])])
        causal = g.op("Slice", [rows, e.c([0]), e.shape(total), e.c([1]), e.c([1])])
        causal = g.op("Unsqueeze", [causal, e.c([0, 1])])  # [1, 1, seq, total] bool
    if cfg["rotary"] == "interleaved":  # cos[position_ids] -> [b, s, 1, d]
        cos = g.op("Unsqueeze", [g.op("Gather", [cos_c, "position_ids"], axis=0), e.c([2])])
        sin = g.op("Unsqueeze", [g.op("Gather", [sin_c, "position_ids"], axis=0), e.c([2])])
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total_seq"]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "seq"])]
    outputs, presents = [], []
    for i in range(cfg["layers"]):
        p, P = "layers.%d." % i, "model.layers.%d." % i
        h = _rms_norm(e, cfg, x, e.param(P + "input_layernorm.weight", W[p + "ln1"]))
        b_, s_ = e.dim(h, 0), e.dim(h, 1)
        proj = {}
        for n in "qkv":
            bias = e.param(P + "self_attn.%s_proj.bias" % n, W[p + n + "_bias"]) if cfg["qkv_bias"] else None
            proj[n] = _linear(e, h, e.param(P + "self_attn.%s_proj.weight" % n, W[p + n]), bias)
        q = g.op("Reshape", [proj["q"], e.shape(b_, s_, H, dh)])
        k = g.op("Reshape", [proj["k"], e.shape(b_, s_, KV, dh)])
        v = g.op("Reshape", [proj["v"], e.shape(b_, s_, KV, dh)])
        if cfg["rotary"] == "interleaved":
            q, k = _rotary_interleaved(e, q, cos, sin), _rotary_interleaved(e, k, cos, sin)
        q, k, v = (g.op("Transpose", [t], perm=[0, 2, 1, 3]) for t in (q, k, v))
        if cfg["rotary"] == "half":  # cos_cached[:kv_seq_len][position_ids].unsqueeze(1), per layer
            kv_len = g.op("Add", [e.dim(k, 2), e.dim("past_key_values.%d.key" % i, 2)])
            cs = [g.op("Unsqueeze", [g.op("Gather", [g.op("Slice", [t, e.c([0]), e.shape(kv_len), e.c([0])]),
                                                     "position_ids"], axis=0), e.c([1])]) for t in (cos_c, sin_c)]
            q, k = _rotary_half(e, q, cs[0], cs[1]), _rotary_half(e, k, cs[0], cs[1])
        pk, pv = "past_key_values.%d.key" % i, "past_key_values.%d.value" % i
        k = g.op("Concat", [pk, k], out="present.%d.key" % i, axis=2)
        v = g.op("Concat", [pv, v], out="present.%d.value" % i, axis=2)
        for n in (pk, pv):
            inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", KV, "past_seq", dh]))
        presents += [helper.make_tensor_value_info("present.%d.%s" % (i, n), TensorProto.FLOAT,
                                                   ["batch", KV, "total_seq", dh]) for n in ("key", "value")]
        if KV != H:
            k, v = _repeat_kv(e, k, H // KV), _repeat_kv(e, v, H // KV)
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        if cfg["mask"] == "additive":  # LLaMA: matmul / sqrt(d) + mask, clamp at min, softmax in float32
            sc = g.op("Div", [g.op("MatMul", [q, kt]), e.c(np.sqrt(dh), np.float32)])
            sc = g.op("Max", [g.op("Add", [sc, mask]), e.c(FMIN, np.float32)])
            pr = g.op("Cast", [g.op("Cast", [g.op("Softmax", [sc], axis=-1)], to=TensorProto.FLOAT)],
                      to=TensorProto.FLOAT)
        else:  # GPT-J-like: query pre-scaled, where(causal, scores, min) + padding mask
            sc = g.op("MatMul", [g.op("Mul", [q, e.c(1 / np.sqrt(dh), np.float32)]), kt])
            sc = g.op("Add", [g.op("Where", [causal, sc, e.c(FMIN, np.float32)]), pad])
            pr = g.op("Softmax", [sc], axis=-1)
        a = g.op("Transpose", [g.op("MatMul", [pr, v])], perm=[0, 2, 1, 3])
        a = g.op("Reshape", [a, e.shape(b_, s_, d)])
        x = g.op("Add", [x, g.op("MatMul", [a, e.param(P + "self_attn.o_proj.weight", W[p + "o"])])])
        h = _rms_norm(e, cfg, x, e.param(P + "post_attention_layernorm.weight", W[p + "ln2"]))
        if cfg["mlp"] == "swiglu":
            gt = g.op("MatMul", [h, e.param(P + "mlp.gate_proj.weight", W[p + "gate"])])
            up = g.op("MatMul", [h, e.param(P + "mlp.up_proj.weight", W[p + "up"])])
            y = g.op("MatMul", [g.op("Mul", [g.op("Mul", [gt, g.op("Sigmoid", [gt])]), up]),
                                e.param(P + "mlp.down_proj.weight", W[p + "down"])])
        else:
            u = _linear(e, h, e.param(P + "mlp.fc_in.weight", W[p + "fc1"]), e.param(P + "mlp.fc_in.bias",
                                                                                     W[p + "fc1_bias"]))
            y = _linear(e, _gelu(e, u), e.param(P + "mlp.fc_out.weight", W[p + "fc2"]),
                        e.param(P + "mlp.fc_out.bias", W[p + "fc2_bias"]))
        x = g.op("Add", [x, y])
    x = _rms_norm(e, cfg, x, e.param("model.norm.weight", W["norm"]))
    head = g.op("Transpose", [emb], perm=[1, 0]) if cfg["tied"] else e.param("lm_head.weight", W["lm_head"])
    g.op("MatMul", [x, head], out="logits")
    outputs.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", cfg["vocab"]]))
    return inputs, outputs + presents


# ---------------------------------------------------------------- test sets


def test_sets(cfg, W, rng):
    """[(inputs dict in graph-input order, reference outputs list)] for prefill and, if asked, one decode step."""
    b, s, L = cfg["batch"], cfg["seq"], cfg["layers"]
    dh, KV = cfg["hidden"] // cfg["heads"], cfg["kv_heads"]
    ids = rng.integers(0, cfg["vocab"], [b, s]).astype(np.int64)
    mask = np.ones([b, s], np.int64)
    if b > 1:
        mask[1, :3] = 0  # a left-padded row
    pos = np.where(mask == 0, 1, np.cumsum(mask, -1) - 1).astype(np.int64)  # Hugging Face's generate()
    past = [(np.zeros([b, KV, 0, dh], np.float32),) * 2 for _ in range(L)]
    sets = []

    def add(ids, mask, pos, past):
        feeds = {"input_ids": ids, "attention_mask": mask, "position_ids": pos}
        for i, (k, v) in enumerate(past):
            feeds["past_key_values.%d.key" % i], feeds["past_key_values.%d.value" % i] = k, v
        outs = reference(cfg, W, ids, mask, pos, past)
        sets.append((feeds, outs))
        return outs

    outs = add(ids, mask, pos, past)
    if "decode" in cfg["sets"]:
        past = [(outs[1 + 2 * i], outs[2 + 2 * i]) for i in range(L)]
        nxt = np.argmax(outs[0][:, -1], -1).astype(np.int64)[:, None]
        mask = np.concatenate([mask, np.ones([b, 1], np.int64)], -1)
        add(nxt, mask, pos[:, -1:] + 1, past)
    return sets


def decoder(name, graph_cls):
    """(model, test sets) for CONFIGS[name]; graph_cls is make_models.Graph."""
    cfg = CONFIGS[name]
    W = make_weights(cfg)
    g = graph_cls(cfg["seed"])
    inputs, outputs = build_graph(g, cfg, W)
    model = g.model(inputs, outputs, name)
    return model, test_sets(cfg, W, np.random.default_rng(cfg["seed"] + 100))
