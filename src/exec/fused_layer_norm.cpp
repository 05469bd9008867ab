// Running a layer norm written out node by node (exec/fusion.h, FusedChain::layer_norm) as one
// pass over rows: ReduceMean's double sums in element order (row_sums_f64, the op's own loop) and
// its conversion to float, then for every elementwise node the table kernel its op calls, with
// its operands in the node's order. Only the intermediate tensors and the node dispatches go.
#include "exec/fused_layer_norm.h"

#include <vector>

#include "exec/ops/fusable.h"
#include "kernels/kernels.h"

namespace ofg::exec {
namespace {

using kernels::BinaryOp;

enum Node_ { kMean, kSub, kPow, kVar, kEps, kSqrt, kDiv, kMul, kAdd };

// The one float of a float32 constant that broadcasts to a tensor of rank `rank`.
bool scalar_of(const RValue* r, int rank, float& v) {
  if (!r || r->kind != RValue::kTensor || r->t.dtype != kFloat || r->t.numel() != 1 || r->t.rank() > rank) return false;
  v = r->t.data<float>()[0];
  return true;
}

// A float32 constant of D elements along the last dim, broadcasting to rank `rank`.
const float* row_of(const RValue* r, int rank, int64_t D) {
  if (!r || r->kind != RValue::kTensor || r->t.dtype != kFloat || r->t.rank() > rank || r->t.rank() == 0) return nullptr;
  return r->t.shape.back() == D && r->t.numel() == D ? r->t.data<float>() : nullptr;
}

// Whether ReduceMean node n reduces the last of `rank` axes (from its attribute or its input).
bool means_last_axis(const Model& m, const Node* n, const std::function<const RValue*(const Value*)>& value, int rank) {
  int64_t a = 0;
  if (n->inputs.size == 2) {
    const RValue* r = value(n->inputs[1]);
    if (!r || r->kind != RValue::kTensor || r->t.dtype != kInt64 || r->t.numel() != 1) return false;
    a = r->t.data<int64_t>()[0];
  } else {
    const Attribute* axes = n->attribute(m, "axes");
    if (!axes || axes->ints.size != 1) return false;
    a = axes->ints[0];
  }
  return a == -1 || a == rank - 1;
}

// The other operand of binary node n, the one that is not v, and whether it comes first.
const Value* other(const Node* n, const Value* v, bool& first) {
  first = n->inputs[0] != v;
  return first ? n->inputs[0] : n->inputs[1];
}

}  // namespace

bool run_layer_norm_chain(const Model& m, const FusedChain& c, const std::function<const RValue*(const Value*)>& value,
                          RTensor& out) {
  const std::vector<Node*>& n = c.nodes;
  const RValue* xv = value(n[kMean]->inputs[0]);
  if (!xv || xv->kind != RValue::kTensor || xv->t.dtype != kFloat || xv->t.rank() < 1 || xv->t.numel() == 0) return false;
  const RTensor& x = xv->t;
  const int rank = x.rank();
  const int64_t D = x.shape.back(), rows = x.numel() / D;
  if (!means_last_axis(m, n[kMean], value, rank) || !means_last_axis(m, n[kVar], value, rank)) return false;
  float power = 0.f, eps = 0.f;
  bool eps_first = false, gamma_first = false, beta_first = false;
  if (!scalar_of(value(n[kPow]->inputs[1]), rank, power)) return false;
  if (!scalar_of(value(other(n[kEps], n[kVar]->outputs[0], eps_first)), rank, eps)) return false;
  const float *gamma = nullptr, *beta = nullptr;
  if (n.size() > kMul && !(gamma = row_of(value(other(n[kMul], n[kDiv]->outputs[0], gamma_first)), rank, D))) return false;
  if (n.size() > kAdd && !(beta = row_of(value(other(n[kAdd], n[kMul]->outputs[0], beta_first)), rank, D))) return false;

  const kernels::KernelTable& kt = kernels::active_table();  // the separate ops' table
  const size_t R = static_cast<size_t>(rows), W = static_cast<size_t>(D);
  // ReduceMean: the double sums, divided by the count and stored as the op stores them.
  auto means = [&](const float* p) {
    std::vector<double> acc(R, 0.0);
    row_sums_f64(p, rows, D, false, acc.data());
    RTensor mean = RTensor::alloc_uninit(kFloat, {rows});
    for (int64_t r = 0; r < rows; ++r) set_f64(mean, r, acc[r] / static_cast<double>(D));
    return mean;
  };
  const RTensor mean = means(x.data<float>());
  std::vector<float> d(R * W), sq(R * W);
  for (size_t r = 0; r < R; ++r) kt.binary_vs(BinaryOp::Sub, x.data<float>() + r * W, mean.data<float>()[r], d.data() + r * W, W);
  kt.binary_vs(BinaryOp::Pow, d.data(), power, sq.data(), R * W);
  const RTensor var = means(sq.data());
  std::vector<float> sd(R);
  if (eps_first) kt.binary_sv(BinaryOp::Add, eps, var.data<float>(), sd.data(), R);
  else kt.binary_vs(BinaryOp::Add, var.data<float>(), eps, sd.data(), R);
  kt.unary(kernels::UnaryOp::Sqrt, sd.data(), sd.data(), R, 0.f, 0.f);
  out = RTensor::alloc_uninit(kFloat, x.shape);  // every element is written below
  float* y = out.data<float>();
  for (size_t r = 0; r < R; ++r) {
    float* q = y + r * W;
    kt.binary_vs(BinaryOp::Div, d.data() + r * W, sd[r], q, W);
    if (gamma) kt.binary_vv(BinaryOp::Mul, gamma_first ? gamma : q, gamma_first ? q : gamma, q, W);
    if (beta) kt.binary_vv(BinaryOp::Add, beta_first ? beta : q, beta_first ? q : beta, q, W);
  }
  return true;
}

}  // namespace ofg::exec
