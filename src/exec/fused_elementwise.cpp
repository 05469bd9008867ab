// Running an elementwise chain (exec/fusion.h, FusedChain::source) in blocks that stay in L1: each
// node's kernel (the table's binary and unary entries that the Add, Mul, Tanh ... ops call) runs
// on a block of the source before the next node's does, so no intermediate tensor is allocated or
// streamed through memory. Every one of those kernels computes an output element from the input
// elements at the same place with the same lane operations whatever the length and alignment of
// the call, so a block's elements get the bits the whole-tensor calls give them.
#include "exec/fused_elementwise.h"

#include <algorithm>
#include <string_view>

#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "ops/registry.h"

namespace ofg::exec {
namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;

// Elements per block: a multiple of every vector loop's step; 16 blocks fit in L1.
constexpr size_t kBlock = 512;

struct Operand {
  enum Kind { Source, Step, Scalar, Row } kind = Source;
  int step = 0;              // Step: the node whose output it is
  float scalar = 0.f;        // Scalar: the one element of a constant
  const float* row = nullptr;  // Row: a constant of the source's last dim, broadcast along rows
};

struct Step {
  bool unary = false;
  BinaryOp bop = BinaryOp::Add;
  UnaryOp uop = UnaryOp::Relu;
  float alpha = 0.f, beta = 0.f;  // the unary kernel's parameters
  Operand a, b;
};

// The kernel of a chainable elementwise node (the registry's facts, as fusion.cpp admits it) and
// the parameters its own kernel call would take; false when it is none.
bool step_op(const Model& m, const Node& n, Step& s) {
  const ops::OpFacts& f = ops::Registry::instance().facts(m.str(n.domain), m.str(n.op_type));
  if (!f.chainable) return false;
  if (f.elementwise == ops::Elementwise::Binary) {
    s.bop = f.binary_kernel;
    return true;
  }
  if (f.elementwise != ops::Elementwise::Unary) return false;
  s.unary = true;
  s.uop = f.unary_kernel;
  return !f.unary_params || f.unary_params(m, n, s.alpha, s.beta);
}

// The steps of chain c over source x, or false when an input is not what the fused run takes:
// the source and the constants float32, each constant one element or one row of the source's last
// dim (its other dims 1) and of no higher rank than the source (the output then has x's shape).
bool make_steps(const Model& m, const FusedChain& c, const RTensor& x,
                const std::function<const RValue*(const Value*)>& value, std::vector<Step>& steps) {
  std::vector<const Value*> made;  // made[k]: the output of step k
  const int64_t D = x.rank() ? x.shape.back() : 1;
  auto operand = [&](const Value* v, Operand& o) {
    if (v == c.source) return o.kind = Operand::Source, true;
    auto it = std::find(made.begin(), made.end(), v);
    if (it != made.end()) {
      o.kind = Operand::Step;
      o.step = static_cast<int>(it - made.begin());
      return true;
    }
    const RValue* r = value(v);
    if (!r || r->kind != RValue::kTensor || r->t.dtype != kFloat || r->t.rank() > x.rank()) return false;
    const RTensor& t = r->t;
    if (t.numel() == 1) {
      o.kind = Operand::Scalar;
      o.scalar = t.data<float>()[0];
      return true;
    }
    if (t.rank() == 0 || t.shape.back() != D || t.numel() != D) return false;
    o.kind = Operand::Row;
    o.row = t.data<float>();
    return true;
  };
  const size_t first = c.matmul ? 1 : 0;  // the MatMul computed the source
  for (size_t k = first; k < c.nodes.size(); ++k) {
    const Node* n = c.nodes[k];
    Step s;
    if (!step_op(m, *n, s)) return false;
    if (!operand(n->inputs[0], s.a)) return false;
    if (!s.unary && !operand(n->inputs[1], s.b)) return false;
    // fusion.cpp makes every node read the source or a chain value.
    if (s.a.kind >= Operand::Scalar && (s.unary || s.b.kind >= Operand::Scalar)) return false;
    made.push_back(n->outputs[0]);
    steps.push_back(s);
  }
  return true;
}

// Runs the steps on elements [lo, hi) of the source, block by block.
void run_range(const kernels::KernelTable& kt, const std::vector<Step>& steps, const float* x, float* y, size_t D,
               size_t lo, size_t hi) {
  alignas(64) float buf[kMaxElementwiseNodes][kBlock];
  for (size_t b = lo; b < hi; b += kBlock) {
    const size_t len = std::min(kBlock, hi - b);
    auto at = [&](const Operand& o) -> const float* { return o.kind == Operand::Source ? x + b : buf[o.step]; };
    for (size_t k = 0; k < steps.size(); ++k) {
      const Step& s = steps[k];
      float* out = k + 1 == steps.size() ? y + b : buf[k];
      if (s.unary) kt.unary(s.uop, at(s.a), out, len, s.alpha, s.beta);
      else if (s.a.kind == Operand::Scalar) kt.binary_sv(s.bop, s.a.scalar, at(s.b), out, len);
      else if (s.b.kind == Operand::Scalar) kt.binary_vs(s.bop, at(s.a), s.b.scalar, out, len);
      else if (s.a.kind != Operand::Row && s.b.kind != Operand::Row) kt.binary_vv(s.bop, at(s.a), at(s.b), out, len);
      else {
        // A row operand: pieces that end where the source's rows do.
        for (size_t q = b; q < b + len;) {
          const size_t off = q % D, piece = std::min(D - off, b + len - q);
          const float* pa = s.a.kind == Operand::Row ? s.a.row + off : at(s.a) + (q - b);
          const float* pb = s.b.kind == Operand::Row ? s.b.row + off : at(s.b) + (q - b);
          kt.binary_vv(s.bop, pa, pb, out + (q - b), piece);
          q += piece;
        }
      }
    }
  }
}

}  // namespace

bool run_elementwise_chain(const Model& m, const FusedChain& c, const std::function<const RValue*(const Value*)>& value,
                           RTensor& out, bool in_place) {
  const RValue* xv = value(c.source);
  if (!xv || xv->kind != RValue::kTensor || xv->t.dtype != kFloat || c.nodes.size() > kMaxElementwiseNodes + 1) return false;
  const RTensor& x = xv->t;
  std::vector<Step> steps;
  if (!make_steps(m, c, x, value, steps) || steps.size() > kMaxElementwiseNodes) return false;
  // In place, each block's last step overwrites source elements no later step reads.
  out = in_place ? x : RTensor::alloc_uninit(kFloat, x.shape);  // every element is written below
  const size_t n = static_cast<size_t>(x.numel()), D = static_cast<size_t>(x.rank() ? x.shape.back() : 1);
  if (n == 0) return true;
  const kernels::KernelTable& kt = kernels::active_table();  // the separate ops' table
  const float* px = x.data<float>();
  float* py = out.data<float>();
  kernels::parallel_ranges(n, kernels::kElementGrain, kernels::kElementsPerPart,
                           [&](size_t lo, size_t hi) { run_range(kt, steps, px, py, D, lo, hi); });
  return true;
}

}  // namespace ofg::exec
