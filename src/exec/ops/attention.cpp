// Attention family: Attention (opset 23/24) and RotaryEmbedding (opset 23). Computed in double
// so that the masked / soft-capped paths match the reference within float rounding; float32
// Attention takes the sgemm path of attention_f32.cpp first, and this walk is its reference.
#include <cstring>
#include <limits>

#include "exec/infer_rules.h"
#include "exec/ops/attention_f32.h"
#include "exec/ops/rotary_f32.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// Q/K/V in the (batch, heads, seq, head_size) layout whatever the input rank.
struct Heads {
  int64_t B = 0, H = 0, S = 0, D = 0;
  std::vector<double> v;
  double at(int64_t b, int64_t h, int64_t s, int64_t d) const { return v[((b * H + h) * S + s) * D + d]; }
};

Heads to_heads(const OpCtx& c, const RTensor& t, int64_t heads_attr) {
  Heads r;
  std::vector<double> raw = f64_of(t);
  if (t.rank() == 4) {
    r.B = t.shape[0]; r.H = t.shape[1]; r.S = t.shape[2]; r.D = t.shape[3];
    r.v = std::move(raw);
    return r;
  }
  if (t.rank() != 3) c.error("Q, K and V must have rank 3 or 4");
  if (heads_attr <= 0) c.error("3D inputs need q_num_heads and kv_num_heads");
  r.B = t.shape[0]; r.S = t.shape[1]; r.H = heads_attr;
  if (t.shape[2] % heads_attr != 0) c.error("hidden size is not a multiple of the number of heads");
  r.D = t.shape[2] / heads_attr;
  r.v = permute_f64(raw, {r.B, r.S, r.H, r.D}, {0, 2, 1, 3});  // (B, S, H*D) -> (B, H, S, D)
  return r;
}

// Prepends the cache along the sequence axis.
Heads with_past(const OpCtx& c, const Heads& cur, const RTensor* past) {
  if (!past) return cur;
  if (past->rank() != 4 || past->shape[0] != cur.B || past->shape[1] != cur.H || past->shape[3] != cur.D)
    c.error("past key/value shape " + shape_str(past->shape) + " does not match the current one");
  Heads r = cur;
  int64_t P = past->shape[2];
  r.S = P + cur.S;
  r.v.assign(static_cast<size_t>(r.B * r.H * r.S * r.D), 0.0);
  std::vector<double> pv = f64_of(*past);
  for (int64_t b = 0; b < r.B; ++b)
    for (int64_t h = 0; h < r.H; ++h) {
      double* dst = &r.v[static_cast<size_t>(((b * r.H + h) * r.S) * r.D)];
      std::copy(pv.data() + static_cast<size_t>(((b * r.H + h) * P) * r.D), pv.data() + static_cast<size_t>(((b * r.H + h) * P + P) * r.D), dst);
      std::copy(cur.v.data() + static_cast<size_t>(((b * r.H + h) * cur.S) * r.D),
                cur.v.data() + static_cast<size_t>(((b * r.H + h) * cur.S + cur.S) * r.D), dst + P * r.D);
    }
  return r;
}

void op_attention(OpCtx& c) {
  if (attention_f32(c)) return;
  const double kNegInf = -std::numeric_limits<double>::infinity();
  const RTensor& qt = c.t(0);
  int32_t odt = qt.dtype;
  int64_t qh_attr = c.attr_i("q_num_heads", 0), kvh_attr = c.attr_i("kv_num_heads", 0);
  bool three_d = qt.rank() == 3;
  Heads Q = to_heads(c, qt, qh_attr);
  Heads K = to_heads(c, c.t(1), kvh_attr);
  Heads V = to_heads(c, c.t(2), kvh_attr);
  const RTensor* past_k = c.has(4) ? &c.t(4) : nullptr;
  const RTensor* past_v = c.has(5) ? &c.t(5) : nullptr;
  K = with_past(c, K, past_k);
  V = with_past(c, V, past_v);
  int64_t P = past_k ? past_k->shape[2] : 0;  // rank 4: with_past checked it
  int64_t B = Q.B, H = Q.H, Sq = Q.S, T = K.S, Dq = Q.D, Dv = V.D;
  if (K.B != B || V.B != B || K.H != V.H || K.S != V.S || K.D != Dq) c.error("K and V do not match Q");
  if (K.H == 0 || H % K.H != 0) c.error("q heads must be a multiple of kv heads");
  int64_t rep = H / K.H;
  double scale = c.has_attr("scale") ? c.attr_f("scale", 1.f) : 1.0 / std::sqrt(static_cast<double>(Dq));
  double softcap = c.attr_f("softcap", 0.f);
  bool causal = c.attr_i("is_causal", 0) != 0;
  int64_t mode = c.attr_i("qk_matmul_output_mode", 0);

  // The mask broadcasts (numpy rules) to (B, H, Sq, T); a shorter last axis is padded with
  // "masked" (false / -inf).
  bool has_mask = c.has(3);
  RTensor mask;
  int64_t mstride[4], mdim[4];
  if (has_mask) mask = c.t(3);
  if (has_mask && mask.rank() > 4) c.error("attn_mask of rank > 4");
  if (!mask_layout(has_mask ? mask.shape : Shape{}, B, H, Sq, mdim, mstride))
    c.error("attn_mask " + shape_str(mask.shape) + " does not broadcast to " + shape_str({B, H, Sq, T}));
  bool mask_bool = has_mask && mask.dtype == kBool;
  std::vector<int64_t> nonpad;
  if (c.has(6)) nonpad = to_i64_vec(c.t_dims(6, {B}));

  std::vector<double> Y(scratch_elems(shape_numel({B, H, Sq, Dv})), 0.0);
  std::vector<double> QK(scratch_elems(shape_numel({B, H, Sq, T})), 0.0);
  std::vector<double> row(static_cast<size_t>(T)), raw(static_cast<size_t>(T));
  for (int64_t b = 0; b < B; ++b) {
    int64_t offset = P;
    if (!past_k && !nonpad.empty()) offset = nonpad[static_cast<size_t>(b)] - Sq;
    for (int64_t h = 0; h < H; ++h) {
      int64_t kh = h / rep;
      for (int64_t i = 0; i < Sq; ++i) {
        for (int64_t j = 0; j < T; ++j) {
          double s = 0;
          for (int64_t d = 0; d < Dq; ++d) s += Q.at(b, h, i, d) * K.at(b, kh, j, d);
          s *= scale;
          // Soft-capping comes before the mask so that -inf stays -inf.
          if (softcap > 0) s = softcap * std::tanh(s / softcap);
          raw[j] = s;
          double bias = 0;
          if (has_mask) {
            if (j >= mdim[3]) {
              bias = kNegInf;
            } else {
              int64_t off = (mdim[0] == 1 ? 0 : b) * mstride[0] + (mdim[1] == 1 ? 0 : h) * mstride[1] +
                            (mdim[2] == 1 ? 0 : i) * mstride[2] + j * mstride[3];
              double mv = get_f64(mask, off);
              bias = mask_bool ? (mv != 0 ? 0.0 : kNegInf) : mv;
            }
          }
          if (causal && j > i + offset) bias = kNegInf;
          if (!nonpad.empty() && j >= nonpad[static_cast<size_t>(b)]) bias = kNegInf;
          row[j] = s + bias;
        }
        double mx = kNegInf;
        for (int64_t j = 0; j < T; ++j) mx = std::max(mx, row[j]);
        double* qk = QK.data() + static_cast<size_t>(((b * H + h) * Sq + i) * T);
        if (mode == 0 || mode == 1) std::copy(raw.begin(), raw.end(), qk);
        if (mode == 2) std::copy(row.begin(), row.end(), qk);
        // A fully masked row attends to nothing: zeros instead of the NaN of exp(-inf - -inf).
        if (mx == kNegInf) {
          std::fill(row.begin(), row.end(), 0.0);
        } else {
          double sum = 0;
          for (int64_t j = 0; j < T; ++j) sum += (row[j] = std::exp(row[j] - mx));
          for (int64_t j = 0; j < T; ++j) row[j] /= sum;
        }
        if (mode == 3) std::copy(row.begin(), row.end(), qk);
        double* y = Y.data() + static_cast<size_t>(((b * H + h) * Sq + i) * Dv);
        for (int64_t j = 0; j < T; ++j) {
          double p = row[j];
          if (p == 0) continue;
          for (int64_t d = 0; d < Dv; ++d) y[d] += p * V.at(b, kh, j, d);
        }
      }
    }
  }
  if (three_d) {
    std::vector<double> y3 = permute_f64(Y, {B, H, Sq, Dv}, {0, 2, 1, 3});  // (B, H, S, Dv) -> (B, S, H*Dv)
    c.set(0, tensor_of(y3, odt, {B, Sq, H * Dv}));
  } else {
    c.set(0, tensor_of(Y, odt, {B, H, Sq, Dv}));
  }
  int32_t kdt = c.t(1).dtype, vdt = c.t(2).dtype;
  if (c.wants(1)) c.set(1, tensor_of(K.v, kdt, {K.B, K.H, K.S, K.D}));
  if (c.wants(2)) c.set(2, tensor_of(V.v, vdt, {V.B, V.H, V.S, V.D}));
  if (c.wants(3)) c.set(3, tensor_of(QK, odt, {B, H, Sq, T}));
}

// RotaryEmbedding (opset 23): input (B, S, hidden) with num_heads, or (B, H, S, D); cos/sin
// caches (max_pos, rot/2) indexed by position_ids (B, S), or (B, S, rot/2) when no ids given.
void op_rotary(OpCtx& c) {
  const RTensor& xt = c.t(0);
  int32_t odt = xt.dtype;
  const Shape& cs = c.t(1).shape;
  bool has_ids = c.has(3);
  std::vector<int64_t> ids;
  if (has_ids) ids = to_i64_vec(c.t(3));
  int64_t interleaved = c.attr_i("interleaved", 0);
  int64_t nh = c.attr_i("num_heads", 0);
  int64_t rot = c.attr_i("rotary_embedding_dim", 0);
  int64_t B, S, H, D;
  bool four = xt.rank() == 4;
  if (four) {
    // (B, H, S, D)
    B = xt.shape[0]; H = xt.shape[1]; S = xt.shape[2]; D = xt.shape[3];
  } else if (xt.rank() == 3) {
    if (nh <= 0) c.error("3D input needs num_heads");
    B = xt.shape[0]; S = xt.shape[1]; H = nh; D = xt.shape[2] / nh;
    if (xt.shape[2] % nh != 0) c.error("hidden size is not a multiple of num_heads");
  } else {
    c.error("input must have rank 3 or 4");
  }
  if (rot == 0) rot = D;
  if (rot < 0 || rot > D) c.error("rotary_embedding_dim " + std::to_string(rot) + " is out of range [0, " + std::to_string(D) + "]");
  int64_t half = rot / 2;
  if (cs.empty() || c.t(2).shape != cs) c.error("cos and sin caches must have the same shape of rank >= 1");
  int64_t cache_w = cs.back();
  if (cache_w < half) c.error("the caches have " + std::to_string(cache_w) + " columns, " + std::to_string(half) + " needed");
  if (has_ids && static_cast<int64_t>(ids.size()) != B * S) c.error("position_ids must have B*S values");
  int64_t cache_rows = cache_w ? c.t(1).numel() / cache_w : 0;
  auto idx = [&](int64_t b, int64_t h, int64_t s, int64_t d) -> size_t {
    return static_cast<size_t>(four ? ((b * H + h) * S + s) * D + d : (b * S + s) * H * D + h * D + d);
  };
  // The generic walk: every type but float32 (see below), in double.
  auto rotate = [&](auto* y, const auto* cosp, const auto* sinp) {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        int64_t crow = has_ids ? ids[static_cast<size_t>(b * S + s)] : (b * S + s);
        if (half > 0 && (crow < 0 || crow >= cache_rows)) c.error("position " + std::to_string(crow) + " is outside the caches");
        const auto* cr = cosp + crow * cache_w;
        const auto* sr = sinp + crow * cache_w;
        for (int64_t h = 0; h < H; ++h)
          for (int64_t k = 0; k < half; ++k) {
            int64_t d1 = interleaved ? 2 * k : k, d2 = interleaved ? 2 * k + 1 : k + half;
            const auto a = y[idx(b, h, s, d1)], bb = y[idx(b, h, s, d2)];
            y[idx(b, h, s, d1)] = a * cr[k] - bb * sr[k];
            y[idx(b, h, s, d2)] = bb * cr[k] + a * sr[k];
          }
      }
  };
  // float32: the row-wise kernel of rotary_f32.cpp, its positions checked here first (a task must
  // not stop halfway). The walk above runs the other types in double and is the reference the
  // tests compare the kernel with (tests/exec_rotary_test.cpp).
  if (xt.dtype == kFloat && c.t(1).dtype == kFloat && c.t(2).dtype == kFloat) {
    std::vector<int64_t> crow(static_cast<size_t>(B * S));
    for (int64_t i = 0; i < B * S; ++i) {
      crow[static_cast<size_t>(i)] = has_ids ? ids[static_cast<size_t>(i)] : i;
      if (half > 0 && (crow[static_cast<size_t>(i)] < 0 || crow[static_cast<size_t>(i)] >= cache_rows))
        c.error("position " + std::to_string(crow[static_cast<size_t>(i)]) + " is outside the caches");
    }
    RotaryF32 g;
    g.B = B, g.S = S, g.H = H, g.D = D, g.half = half, g.cache_w = cache_w, g.bhsd = four, g.interleaved = interleaved != 0;
    c.set(0, rotary_f32(g, xt, c.t(1).data<float>(), c.t(2).data<float>(), crow));
    return;
  }
  std::vector<double> y = f64_of(xt);
  std::vector<double> cosv = f64_of(c.t(1)), sinv = f64_of(c.t(2));
  rotate(y.data(), cosv.data(), sinv.data());
  c.set(0, tensor_of(y, odt, xt.shape));
}

}  // namespace

namespace rules {

// Attention (23). Q (B, Hq, Sq, D) with K (B, Hkv, Skv, D) and V (B, Hkv, Skv, Dv), or the 3-D
// forms (B, S, heads * D) with q_num_heads / kv_num_heads. Y is (B, Hq, Sq, Dv) or (B, Sq, Hq * Dv);
// present key/value are (B, Hkv, P + Skv, D / Dv) with P the past's sequence length; the optional
// QK output is (B, Hq, Sq, P + Skv). A dim the inputs do not fix is left unknown.
bool rule_attention(InferCtx& c) {
  const IType* q = c.t(0);
  const IType* k = c.t(1);
  const IType* v = c.t(2);
  int32_t elem = elem0(c);
  for (IType& o : c.out) o = IType{elem, false, {}};
  if (c.out.size() > 1) c.out[1].elem = elem0(c, 1);
  if (c.out.size() > 2) c.out[2].elem = elem0(c, 2);
  if (!q || !k || !v || !q->ranked || !k->ranked || !v->ranked || q->rank() != k->rank() || q->rank() != v->rank())
    return true;
  IDim B = q->dims[0], Sq, Hq, Hkv, D, Dv, Skv;
  if (q->rank() == 4) {
    Hq = q->dims[1]; Sq = q->dims[2]; Hkv = k->dims[1]; Skv = k->dims[2]; D = k->dims[3]; Dv = v->dims[3];
  } else if (q->rank() == 3) {
    int64_t qh = c.attr_i("q_num_heads", 0), kvh = c.attr_i("kv_num_heads", 0);
    if (qh <= 0 || kvh <= 0) return true;
    Hq = st(qh); Hkv = st(kvh); Sq = q->dims[1]; Skv = k->dims[1];
    if (k->dims[2].is_static() && k->dims[2].value % kvh == 0) D = st(k->dims[2].value / kvh);
    if (v->dims[2].is_static() && v->dims[2].value % kvh == 0) Dv = st(v->dims[2].value / kvh);
  } else {
    return true;
  }
  IDim T = Skv;
  const IType* past = c.t(4);
  if (c.in.size() > 4 && c.in_values[4]) {
    T = IDim{};
    if (past && past->ranked && past->rank() == 4 && past->dims[2].is_static() && Skv.is_static())
      T = st_add(past->dims[2].value, Skv.value);
    else if (past && past->ranked && past->rank() == 4 && past->dims[2].is_static() && past->dims[2].value == 0)
      T = Skv;
  }
  if (q->rank() == 4) {
    c.out[0] = ranked(elem, {B, Hq, Sq, Dv});
  } else {
    IDim hidden = Hq.is_static() && Dv.is_static() ? st_mul(Hq.value, Dv.value) : IDim{};
    c.out[0] = ranked(elem, {B, Sq, hidden});
  }
  if (c.out.size() > 1) c.out[1] = ranked(elem0(c, 1), {B, Hkv, T, D});
  if (c.out.size() > 2) c.out[2] = ranked(elem0(c, 2), {B, Hkv, T, Dv});
  if (c.out.size() > 3) c.out[3] = ranked(elem, {B, Hq, Sq, T});
  return true;
}

}  // namespace rules

void register_attention_ops(Registry& r) {
  r.add("Attention", op_attention, 23).infer(rules::rule_attention);
  r.add("RotaryEmbedding", op_rotary, 23).infer(rules::same_type);
}

}  // namespace ofg::exec
