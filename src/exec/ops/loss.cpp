// Loss ops of inference exports: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#include <limits>

#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// Shared by both ops: logp is (N, C, D...) flattened to (N, C, D) as doubles, target (N, D).
// Returns the loss tensor of `dt` after the reduction.
RTensor nll(const OpCtx& c, const std::vector<double>& logp, const Shape& in_shape, const RTensor& target,
            const RTensor* weight, int32_t dt) {
  if (in_shape.size() < 2) c.error("input must have rank >= 2");
  int64_t N = in_shape[0], C = in_shape[1];
  int64_t D = 1;
  for (size_t i = 2; i < in_shape.size(); ++i) D *= in_shape[i];
  Shape ts(in_shape.begin(), in_shape.end());
  ts.erase(ts.begin() + 1);
  if (target.shape != ts) c.error("target must have shape " + shape_str(ts) + ", got " + shape_str(target.shape));
  if (weight && weight->shape != Shape{C}) c.error("weight must have shape [" + std::to_string(C) + "], got " + shape_str(weight->shape));
  bool has_ii = c.has_attr("ignore_index");
  int64_t ii = c.attr_i("ignore_index", 0);
  std::string red = c.attr_s("reduction", "mean");
  std::vector<double> loss(static_cast<size_t>(N * D), 0.0), w(static_cast<size_t>(N * D), 1.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      size_t o = static_cast<size_t>(n * D + d);
      int64_t t = get_i64(target, static_cast<int64_t>(o));
      if (has_ii && t == ii) {
        w[o] = 0;
        continue;
      }
      if (t < 0 || t >= C) c.error("target " + std::to_string(t) + " is out of range [0, " + std::to_string(C) + ")");
      double wt = weight ? get_f64(*weight, t) : 1.0;
      w[o] = wt;
      loss[o] = -logp[static_cast<size_t>((n * C + t) * D + d)] * wt;
    }
  if (red == "none") {
    Shape ts(in_shape.begin(), in_shape.end());
    ts.erase(ts.begin() + 1);
    RTensor out = RTensor::alloc(dt, ts);
    for (size_t i = 0; i < loss.size(); ++i) set_f64(out, static_cast<int64_t>(i), loss[i]);
    return out;
  }
  double s = 0, sw = 0;
  for (size_t i = 0; i < loss.size(); ++i) {
    s += loss[i];
    sw += w[i];
  }
  RTensor out = RTensor::alloc(dt, {});
  if (red == "sum") {
    set_f64(out, 0, s);
  } else if (red == "mean") {
    set_f64(out, 0, sw == 0 ? (s == 0 ? 0.0 : s / sw) : s / sw);
  } else {
    c.error("unknown reduction '" + red + "'");
  }
  return out;
}

void op_nll(OpCtx& c) {
  const RTensor& x = c.t(0);
  c.set(0, nll(c, f64_of(x), x.shape, c.t(1), c.has(2) ? &c.t(2) : nullptr, x.dtype));
}

void op_sce(OpCtx& c) {
  const RTensor& x = c.t(0);
  if (x.rank() < 2) c.error("scores must have rank >= 2");
  int64_t N = x.shape[0], C = x.shape[1];
  int64_t D = x.numel() / std::max<int64_t>(1, N * C);
  std::vector<double> lp(static_cast<size_t>(x.numel()));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < C; ++k) mx = std::max(mx, get_f64(x, (n * C + k) * D + d));
      double s = 0;
      for (int64_t k = 0; k < C; ++k) s += std::exp(get_f64(x, (n * C + k) * D + d) - mx);
      double ls = std::log(s) + mx;
      for (int64_t k = 0; k < C; ++k)
        lp[static_cast<size_t>((n * C + k) * D + d)] = get_f64(x, (n * C + k) * D + d) - ls;
    }
  c.set(0, nll(c, lp, x.shape, c.t(1), c.has(2) ? &c.t(2) : nullptr, x.dtype));
  if (c.wants(1)) {
    RTensor o = RTensor::alloc(x.dtype, x.shape);
    for (size_t i = 0; i < lp.size(); ++i) set_f64(o, static_cast<int64_t>(i), lp[i]);
    c.set(1, o);
  }
}

}  // namespace

void register_loss_ops(Registry& r) {
  r.add("NegativeLogLikelihoodLoss", op_nll, 12).no_rule();
  r.add("SoftmaxCrossEntropyLoss", op_sce, 12).no_rule();
}

}  // namespace ofg::exec
