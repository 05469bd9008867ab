// CausalConvWithState (opset 27): the depthwise causal 1-D convolution of Mamba and Gated
// DeltaNet blocks, with its carry state. The sequence seen by the kernel is the past state (the
// last k-1 positions of the previous call, zeros when absent) followed by the input; the output
// keeps the input's length and the present state is the last k-1 positions of that sequence.
// Computed in double: the op is a few multiply-adds per element.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_causal_conv(OpCtx& c) {
  c.require_inputs(2);
  const RTensor& xt = c.t_rank(0, 3);
  int64_t B = xt.shape[0], C = xt.shape[1], L = xt.shape[2];
  const RTensor& wt = c.t_rank(1, 3);
  c.require(wt.shape[0] == C && wt.shape[1] == 1 && wt.shape[2] >= 1,
            "weight must have shape (channels, 1, k) with channels " + std::to_string(C) + " and k >= 1, got " +
                shape_str(wt.shape));
  int64_t k = wt.shape[2], carry = k - 1;
  std::string act = c.attr_s("activation", "none");
  c.require(act == "none" || act == "silu" || act == "swish",
            "activation must be 'none', 'silu' or 'swish', got '" + act + "'");
  bool silu = act != "none";
  std::vector<double> bias(static_cast<size_t>(C), 0.0);
  if (c.has(2)) bias = f64_of(c.t_dims(2, {C}));
  std::vector<double> past;
  if (c.has(3)) past = f64_of(c.t_dims(3, {B, C, carry}));
  std::vector<double> x = f64_of(xt), w = f64_of(wt);

  int64_t T = checked_add(carry, L);  // length of the padded sequence
  std::vector<double> seq(scratch_elems(T));
  std::vector<double> y(x.size()), present(scratch_elems(checked_mul(checked_mul(B, C), carry)));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t ch = 0; ch < C; ++ch) {
      size_t row = static_cast<size_t>(b * C + ch);
      for (int64_t i = 0; i < carry; ++i) seq[static_cast<size_t>(i)] = past.empty() ? 0.0 : past[row * carry + i];
      std::copy(x.begin() + row * L, x.begin() + (row + 1) * L, seq.begin() + carry);
      const double* wk = w.data() + static_cast<size_t>(ch) * k;
      for (int64_t t = 0; t < L; ++t) {
        double s = bias[static_cast<size_t>(ch)];
        for (int64_t j = 0; j < k; ++j) s += wk[j] * seq[static_cast<size_t>(t + j)];
        if (silu) s = s / (1.0 + std::exp(-s));
        y[row * L + t] = s;
      }
      std::copy(seq.begin() + L, seq.end(), present.begin() + row * carry);
    }
  c.set(0, tensor_of(y, xt.dtype, xt.shape));
  if (c.wants(1)) c.set(1, tensor_of(present, c.has(3) ? c.t(3).dtype : xt.dtype, {B, C, carry}));
}

bool rule_causal_conv(InferCtx& c) {
  const IType* x = c.t(0);
  if (!x) return false;
  c.out[0] = *x;
  if (c.out.size() > 1) {
    std::vector<IDim> dims(3);
    if (x->ranked && x->dims.size() == 3) dims = {x->dims[0], x->dims[1], IDim{}};
    const IType* w = c.t(1);
    if (w && w->ranked && w->dims.size() == 3 && w->dims[2].is_static() && w->dims[2].value >= 1)
      dims[2] = rules::st(w->dims[2].value - 1);
    c.out[1] = rules::ranked(x->elem, dims);
  }
  return true;
}

}  // namespace

void register_causal_conv_ops(Registry& r) {
  r.add("CausalConvWithState", op_causal_conv, 27, 1 << 30, false).infer(rule_causal_conv);
}

}  // namespace ofg::exec
