#include "verify/referee.h"

#include <cmath>

#include "exec/interp.h"
#include "ir/constant_floats.h"
#include "ir/graph_ops.h"
#include "ir/snapshot.h"

namespace ofg::verify {

using exec::RTensor;
using exec::RValue;

namespace {

bool lower_float(int32_t dt) { return dt == kFloat || dt == kFloat16 || dt == kBfloat16; }

// The same tensor in float64 (name kept), or t itself when it is not a lower-precision float.
Tensor* to_double(Model& m, Tensor* t) {
  if (!t || !lower_float(t->data_type)) return t;
  RTensor d = exec::cast_tensor(exec::from_ir(*t), kDouble);
  Tensor* out = make_tensor(m, kDouble, t->dims.data, t->dims.size, d.ptr, d.nbytes());
  out->name = t->name;
  return out;
}

void type_to_double(Type* t) {
  for (; t; t = t->elem)
    if ((t->kind == Type::kTensor || t->kind == Type::kSparseTensor) && lower_float(t->elem_type)) t->elem_type = kDouble;
}

// A Constant's value_float(s) becomes a float64 value tensor (Constant then makes a double).
void constant_floats_to_double(Model& m, Attribute& a) {
  std::vector<double> v;
  std::vector<int64_t> dims;
  if (!constant_float_values(m.str(a.name), a, v, dims)) return;
  a.name = m.intern("value");
  a.type = Attribute::kTensor;
  a.has_type = true;
  a.present = Attribute::kT;
  a.t = make_tensor(m, kDouble, dims.data(), dims.size(), v.data(), v.size() * sizeof(double));
}

void graph_to_double(Model& m, Graph* g) {
  for (Value* v : g->initializers) v->initializer = to_double(m, v->initializer);
  for (ArenaVec<ValueInfo>* list : {&g->inputs, &g->outputs, &g->value_infos})
    for (ValueInfo& vi : *list) {
      type_to_double(vi.type);
      type_to_double(vi.value->type);
    }
  for (Node* n = g->first; n; n = n->next) {
    for (Value* o : n->outputs)
      if (o) type_to_double(o->type);
    const bool cast_like = m.str(n->op_type) == "Cast";
    for (Attribute& a : n->attributes) {
      std::string_view name = m.str(a.name);
      a.t = to_double(m, a.t);
      for (Tensor*& t : a.tensors) t = to_double(m, t);
      // Target element types: Cast's "to", "dtype" of EyeLike, RandomNormal(Like) and the like.
      if (((cast_like && name == "to") || name == "dtype") && lower_float(static_cast<int32_t>(a.int_or(0))))
        a.i = kDouble;
      if (m.str(n->op_type) == "Constant") constant_floats_to_double(m, a);
    }
  }
}

}  // namespace

Float64Referee::Float64Referee(const Model& reference) {
  try {
    m64_ = snapshot_model(reference);
    for_each_graph(m64_->graph, [&](Graph* g) { graph_to_double(*m64_, g); });
    interp_ = std::make_unique<exec::Interpreter>(*m64_);
  } catch (const Error& e) {
    why_ = e.what();
  }
}

Float64Referee::~Float64Referee() = default;

std::vector<RValue> Float64Referee::run(const NamedValues& inputs) {
  if (!why_.empty()) return {};
  NamedValues in64 = inputs;
  for (auto& kv : in64)
    if (kv.second.kind == RValue::kTensor && lower_float(kv.second.t.dtype))
      kv.second.t = exec::cast_tensor(kv.second.t, kDouble);
  std::vector<RValue> out;
  try {
    out = interp_->run(in64);
  } catch (const Error& e) {
    why_ = e.what();
    return {};
  } catch (const std::bad_alloc&) {
    why_ = "out of memory";
    return {};
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].kind == RValue::kTensor && out[i].t.dtype != kDouble && exec::is_float_type(out[i].t.dtype)) {
      // A kernel that computes in float32 whatever it is given: its result is no referee.
      why_ = "output " + std::to_string(i) + " came out as " + dtype_name(out[i].t.dtype) +
             " (an op of the model has no float64 kernel)";
      return {};
    }
  return out;
}

// The measure: the candidate is accepted when, by both the largest error and the number of
// elements outside tolerance, it is at least as close to the exact answer X as the reference:
//   max |c - X| <= max |r - X|  and  #{|c - X| > atol + rtol|X|} <= #{|r - X| > atol + rtol|X|}.
// Not elementwise: the reference and the candidate share the rounding of everything before the
// changed part (an input scaled in float16 is rounded the same way in both), so at an element
// where the reference's later roundings happen to cancel that error, a candidate that rounds once
// would look worse than the reference while it is better everywhere on the whole. A wrong
// candidate (a changed weight) moves elements far beyond the reference's own largest error and
// is rejected by the first measure; a small wrong region raises the count. Elements where X, the
// reference or the candidate is not finite are judged by the plain rule alone.
void referee_judge(OutputDiff& d, const RTensor& cand, const RTensor& ref, const RTensor& exact, double atol,
                   double rtol) {
  const size_t n = static_cast<size_t>(exact.numel());
  size_t nonfinite_mismatches = 0, first_nonfinite = n, ref_over = 0;
  d.referee_used = true;
  d.outside_tolerance = d.mismatches;
  d.ref_err64 = d.cand_err64 = 0;
  d.cand_over64 = 0;
  for (size_t i = 0; i < n; ++i) {
    const double c = exec::get_f64(cand, static_cast<int64_t>(i)), r = exec::get_f64(ref, static_cast<int64_t>(i));
    const double x = exact.data<double>()[i];
    if (!std::isfinite(x) || !std::isfinite(r) || !std::isfinite(c)) {
      const bool same = (std::isnan(c) && std::isnan(r)) || c == r;
      if (!same && nonfinite_mismatches++ == 0) first_nonfinite = i;
      continue;
    }
    const double ec = std::fabs(c - x), er = std::fabs(r - x), tol = atol + rtol * std::fabs(x);
    d.ref_err64 = std::max(d.ref_err64, er);
    d.cand_err64 = std::max(d.cand_err64, ec);
    ref_over += er > tol;
    d.cand_over64 += ec > tol;
  }
  d.ref_over64 = ref_over;
  const bool accepted = nonfinite_mismatches == 0 && d.cand_err64 <= d.ref_err64 && d.cand_over64 <= ref_over;
  d.referee = accepted ? "accepted" : "rejected";
  // Accepted: nothing is a mismatch any more. Rejected: the mismatches stay those of the plain
  // rule (outside tolerance of the reference).
  if (accepted) {
    d.mismatches = 0;
    d.first_mismatch = d.elements;
  } else if (nonfinite_mismatches > 0 && first_nonfinite < d.first_mismatch) {
    d.first_mismatch = first_nonfinite;
  }
}

}  // namespace ofg::verify
