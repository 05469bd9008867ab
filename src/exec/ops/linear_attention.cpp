// LinearAttention (opset 27): the recurrent form of linear attention, gated linear attention,
// DeltaNet and Gated DeltaNet, selected by update_rule. Per KV head the state S (d_k x d_v)
// evolves token by token:
//   gated:  S <- exp(g_t) * S                      (g_t per head or per key dim, log space)
//   delta:  v_t <- beta_t * (v_t - S^T k_t)         (the state's current answer is corrected)
//   always: S <- S + k_t v_t^T;   o_t = scale * S^T q_t for each query head of the group.
// The sequential recurrence is the definition; chunk_size only tunes parallel implementations.
// Computed in double, outputs in the input element types (float16 included).
#include <cmath>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

struct LinAttnDims {
  int64_t B = 0, T = 0, Hq = 0, Hkv = 0, dk = 0, dv = 0;
};

// Checks Q/K/V (B, T, heads*dim) against the head counts and returns the dims.
LinAttnDims linear_attention_dims(const OpCtx& c, int64_t hq, int64_t hkv) {
  const RTensor& q = c.t_rank(0, 3);
  LinAttnDims d;
  d.B = q.shape[0];
  d.T = q.shape[1];
  d.Hq = hq;
  d.Hkv = hkv;
  c.require(q.shape[2] % hq == 0, "query width " + std::to_string(q.shape[2]) + " is not a multiple of q_num_heads " +
                                      std::to_string(hq));
  d.dk = q.shape[2] / hq;
  c.t_dims(1, {d.B, d.T, checked_mul(hkv, d.dk)});
  const RTensor& v = c.t_rank(2, 3);
  c.require(v.shape[0] == d.B && v.shape[1] == d.T && v.shape[2] % hkv == 0,
            "value " + shape_str(v.shape) + " must be (" + std::to_string(d.B) + ", " + std::to_string(d.T) +
                ", kv_num_heads * d_v)");
  d.dv = v.shape[2] / hkv;
  return d;
}

void op_linear_attention(OpCtx& c) {
  c.require_inputs(3);
  std::string rule = c.attr_s("update_rule", "gated_delta");
  c.require(rule == "linear" || rule == "gated" || rule == "delta" || rule == "gated_delta",
            "update_rule must be 'linear', 'gated', 'delta' or 'gated_delta', got '" + rule + "'");
  bool gated = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  int64_t hq = c.attr_i("q_num_heads", 0), hkv = c.attr_i("kv_num_heads", 0);
  c.require(hq > 0 && hkv > 0 && hq % hkv == 0, "q_num_heads (" + std::to_string(hq) +
                                                    ") must be a positive multiple of kv_num_heads (" +
                                                    std::to_string(hkv) + ")");
  c.require(gated == c.has(4), "update_rule '" + rule + (gated ? "' needs" : "' takes no") + " decay input");
  c.require(delta == c.has(5), "update_rule '" + rule + (delta ? "' needs" : "' takes no") + " beta input");
  LinAttnDims d = linear_attention_dims(c, hq, hkv);
  int64_t B = d.B, T = d.T, dk = d.dk, dv = d.dv, group = hq / hkv;

  // decay: one log-gate per head, or one per key dim; beta: one per head or one for all.
  int64_t decay_w = 0, beta_w = 0;
  if (gated) {
    const RTensor& g = c.t_rank(4, 3);
    decay_w = g.shape[2];
    c.require(g.shape[0] == B && g.shape[1] == T && (decay_w == hkv || decay_w == hkv * dk),
              "decay " + shape_str(g.shape) + " must be (B, T, kv_num_heads) or (B, T, kv_num_heads * d_k)");
  }
  if (delta) {
    const RTensor& bt = c.t_rank(5, 3);
    beta_w = bt.shape[2];
    c.require(bt.shape[0] == B && bt.shape[1] == T && (beta_w == hkv || beta_w == 1),
              "beta " + shape_str(bt.shape) + " must be (B, T, kv_num_heads) or (B, T, 1)");
  }
  Shape state_shape{B, hkv, dk, dv};
  std::vector<double> S(scratch_elems(shape_numel(state_shape)), 0.0);
  if (c.has(3)) S = f64_of(c.t_dims(3, state_shape));
  std::vector<double> q = f64_of(c.t(0)), k = f64_of(c.t(1)), v = f64_of(c.t(2));
  std::vector<double> g = gated ? f64_of(c.t(4)) : std::vector<double>{};
  std::vector<double> beta = delta ? f64_of(c.t(5)) : std::vector<double>{};
  float scale_attr = c.attr_f("scale", 0.f);
  double scale = scale_attr != 0.f ? scale_attr : 1.0 / std::sqrt(static_cast<double>(dk));

  Shape out_shape{B, T, checked_mul(hq, dv)};
  std::vector<double> out(scratch_elems(shape_numel(out_shape)), 0.0);
  std::vector<double> vt(static_cast<size_t>(dv));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < hkv; ++h) {
      double* s = S.data() + static_cast<size_t>((b * hkv + h) * dk * dv);
      for (int64_t t = 0; t < T; ++t) {
        int64_t bt = b * T + t;
        const double* kt = k.data() + static_cast<size_t>((bt * hkv + h) * dk);
        const double* vin = v.data() + static_cast<size_t>((bt * hkv + h) * dv);
        if (gated) {
          for (int64_t i = 0; i < dk; ++i) {
            double f = std::exp(decay_w == hkv ? g[static_cast<size_t>(bt * hkv + h)]
                                               : g[static_cast<size_t>((bt * hkv + h) * dk + i)]);
            for (int64_t m = 0; m < dv; ++m) s[i * dv + m] *= f;
          }
        }
        if (delta) {
          double bv = beta[static_cast<size_t>(bt * beta_w + (beta_w == 1 ? 0 : h))];
          for (int64_t m = 0; m < dv; ++m) {
            double got = 0;
            for (int64_t i = 0; i < dk; ++i) got += s[i * dv + m] * kt[i];
            vt[static_cast<size_t>(m)] = bv * (vin[m] - got);
          }
        } else {
          std::copy(vin, vin + dv, vt.begin());
        }
        for (int64_t i = 0; i < dk; ++i)
          for (int64_t m = 0; m < dv; ++m) s[i * dv + m] += kt[i] * vt[static_cast<size_t>(m)];
        for (int64_t j = 0; j < group; ++j) {
          int64_t qh = h * group + j;
          const double* qt = q.data() + static_cast<size_t>((bt * hq + qh) * dk);
          double* o = out.data() + static_cast<size_t>((bt * hq + qh) * dv);
          for (int64_t m = 0; m < dv; ++m) {
            double acc = 0;
            for (int64_t i = 0; i < dk; ++i) acc += qt[i] * s[i * dv + m];
            o[m] = scale * acc;
          }
        }
      }
    }
  int32_t qdt = c.t(0).dtype;
  c.set(0, tensor_of(out, qdt, out_shape));
  if (c.wants(1)) c.set(1, tensor_of(S, c.has(3) ? c.t(3).dtype : qdt, state_shape));
}

// A static dim divided by a head count, unknown unless exact.
IDim per_head(const IDim& width, int64_t heads) {
  if (!width.is_static() || heads <= 0 || width.value % heads != 0) return IDim{};
  return rules::st(width.value / heads);
}

bool rule_linear_attention(InferCtx& c) {
  const IType* q = c.t(0);
  const IType* v = c.t(2);
  int64_t hq = c.attr_i("q_num_heads", 0), hkv = c.attr_i("kv_num_heads", 0);
  int32_t elem = rules::elem0(c);
  std::vector<IDim> qd(3), vd(3);
  if (q && q->ranked && q->dims.size() == 3) qd = q->dims;
  if (v && v->ranked && v->dims.size() == 3) vd = v->dims;
  IDim dv = per_head(vd[2], hkv);
  IDim width = dv.is_static() && hq > 0 ? rules::st_mul(dv.value, hq) : IDim{};
  c.out[0] = rules::ranked(elem, {qd[0], qd[1], width});
  if (c.out.size() > 1) {
    const IType* past = c.t(3);
    int32_t state_elem = past && past->elem ? past->elem : elem;
    c.out[1] = rules::ranked(state_elem, {qd[0], hkv > 0 ? rules::st(hkv) : IDim{}, per_head(qd[2], hq), dv});
  }
  return true;
}

}  // namespace

void register_linear_attention_ops(Registry& r) {
  r.add("LinearAttention", op_linear_attention, 27, 1 << 30, false).infer(rule_linear_attention);
}

}  // namespace ofg::exec
