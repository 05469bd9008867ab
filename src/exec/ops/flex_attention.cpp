// ai.onnx.preview.FlexAttention (opset 1): scaled dot-product attention over (B, H, S, D)
// inputs with two optional subgraphs, score_mod on the scaled scores and prob_mod on the
// softmax probabilities, each a (B, Hq, L, S) -> same-shape function run by the interpreter.
// Query head h reads K/V head h / (Hq / Hkv). The subgraphs see the "softmax precision" element
// type (float32 unless the inputs are double or softmax_precision says otherwise); everything
// else is computed in double. A fully masked row (all -inf) gives zeros, as Attention does.
#include <limits>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// Runs the (B, Hq, L, S) -> (B, Hq, L, S) modifier `name`, if the node has it, on `v`.
void apply_mod(OpCtx& c, const char* name, int32_t dt, const Shape& shape, std::vector<double>& v) {
  const Attribute* a = c.attr(name);
  if (!a || !a->g) return;
  Graph* g = a->g;
  c.require(g->inputs.size == 1 && g->outputs.size == 1,
            std::string(name) + " must have one input and one output");
  std::vector<RValue> outs = c.interp.run_graph(g, {RValue::tensor(tensor_of(v, dt, shape))}, c.frame);
  c.require(outs.size() == 1 && outs[0].kind == RValue::kTensor && outs[0].t.shape == shape,
            std::string(name) + " must return one tensor of shape " + shape_str(shape));
  v = f64_of(outs[0].t);
}

void op_flex_attention(OpCtx& c) {
  c.require_inputs(3);
  const RTensor& qt = c.t_rank(0, 4);
  const RTensor& kt = c.t_rank(1, 4);
  const RTensor& vt = c.t_rank(2, 4);
  int64_t B = qt.shape[0], Hq = qt.shape[1], L = qt.shape[2], E = qt.shape[3];
  int64_t Hkv = kt.shape[1], S = kt.shape[2], Ev = vt.shape[3];
  c.require(kt.shape[0] == B && kt.shape[3] == E, "K " + shape_str(kt.shape) + " does not match Q " + shape_str(qt.shape));
  c.require(vt.shape[0] == B && vt.shape[1] == Hkv && vt.shape[2] == S,
            "V " + shape_str(vt.shape) + " does not match K " + shape_str(kt.shape));
  c.require(Hkv > 0 ? Hq % Hkv == 0 : Hq == 0,
            "the " + std::to_string(Hq) + " query heads are not a multiple of the " + std::to_string(Hkv) + " K/V heads");
  int64_t group = Hkv > 0 ? Hq / Hkv : 1;
  double scale = c.has_attr("scale") ? c.attr_f("scale", 1.f) : 1.0 / std::sqrt(static_cast<double>(E));
  int32_t prec = static_cast<int32_t>(c.attr_i("softmax_precision", qt.dtype == kDouble ? kDouble : kFloat));
  c.require(prec == kFloat || prec == kDouble || prec == kFloat16 || prec == kBfloat16,
            "softmax_precision " + std::to_string(prec) + " is not a floating type");

  std::vector<double> q = f64_of(qt), k = f64_of(kt), v = f64_of(vt);
  // Calls f(row, kv) for each query row (b, h, i) with kv the first K/V row of its head.
  auto for_rows = [&](auto&& f) {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t i = 0; i < L; ++i) f((b * Hq + h) * L + i, (b * Hkv + h / group) * S);
  };
  Shape sshape{B, Hq, L, S};
  std::vector<double> p(scratch_elems(shape_numel(sshape)));
  for_rows([&](int64_t row, int64_t kv) {
    const double* qr = q.data() + row * E;
    for (int64_t j = 0; j < S; ++j) {
      const double* kr = k.data() + (kv + j) * E;
      double s = 0;
      for (int64_t d = 0; d < E; ++d) s += qr[d] * kr[d];
      p[static_cast<size_t>(row * S + j)] = s * scale;
    }
  });
  apply_mod(c, "score_mod", prec, sshape, p);
  const double kNegInf = -std::numeric_limits<double>::infinity();
  for (size_t r = 0; r + static_cast<size_t>(S) <= p.size() && S > 0; r += static_cast<size_t>(S)) {
    double* pr = p.data() + r;
    double mx = kNegInf, sum = 0;
    for (int64_t j = 0; j < S; ++j) mx = std::max(mx, pr[j]);
    if (mx == kNegInf) {
      std::fill(pr, pr + S, 0.0);
      continue;
    }
    for (int64_t j = 0; j < S; ++j) sum += (pr[j] = std::exp(pr[j] - mx));
    for (int64_t j = 0; j < S; ++j) pr[j] /= sum;
  }
  apply_mod(c, "prob_mod", prec, sshape, p);
  Shape yshape{B, Hq, L, Ev};
  std::vector<double> y(scratch_elems(shape_numel(yshape)), 0.0);
  for_rows([&](int64_t row, int64_t kv) {
    double* yr = y.data() + row * Ev;
    for (int64_t j = 0; j < S; ++j) {
      double pj = p[static_cast<size_t>(row * S + j)];
      const double* vr = v.data() + (kv + j) * Ev;
      for (int64_t d = 0; d < Ev; ++d) yr[d] += pj * vr[d];
    }
  });
  c.set(0, tensor_of(y, vt.dtype, yshape));
}

bool rule_flex_attention(InferCtx& c) {
  const IType* q = c.t(0);
  const IType* v = c.t(2);
  std::vector<IDim> dims(4);
  if (q && q->ranked && q->dims.size() == 4) dims = {q->dims[0], q->dims[1], q->dims[2], IDim{}};
  if (v && v->ranked && v->dims.size() == 4) dims[3] = v->dims[3];
  c.out[0] = rules::ranked(rules::elem0(c, 2), dims);
  return true;
}

}  // namespace

void register_flex_attention_ops(Registry& r) {
  r.add("FlexAttention", op_flex_attention, 1, 1 << 30, false, "ai.onnx.preview").infer(rule_flex_attention);
}

}  // namespace ofg::exec
