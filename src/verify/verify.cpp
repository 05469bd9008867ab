#include "verify/verify.h"

#include <random>

#include "kernels/kernels.h"

namespace ofg::verify {

using exec::RTensor;
using exec::RValue;
using exec::Shape;

namespace {

// The table size an input indexes when it feeds Gather's indices directly (or through Cast /
// Reshape / Unsqueeze), 0 when it does not.
int64_t gather_bound(Model& m, Value* v, int depth = 0) {
  if (depth > 4) return 0;
  int64_t best = 0;
  for (const Use& u : v->uses) {
    Node* n = u.node;
    std::string op(m.str(n->op_type));
    if (op == "Gather" && u.index == 1) {
      Value* data = n->inputs[0];
      int64_t axis = 0;
      for (const Attribute& a : n->attributes)
        if (m.str(a.name) == "axis") axis = a.i;
      int64_t size = 0;
      if (data->initializer) {
        const Tensor* t = data->initializer;
        if (axis < 0) axis += t->dims.size;
        if (axis >= 0 && axis < static_cast<int64_t>(t->dims.size)) size = t->dims[axis];
      } else if (data->type && data->type->shape_known()) {
        if (axis < 0) axis += data->type->dims.size;
        if (axis >= 0 && axis < static_cast<int64_t>(data->type->dims.size) && data->type->dims[axis].is_static())
          size = data->type->dims[axis].value;
      }
      if (size > 0 && (best == 0 || size < best)) best = size;
    } else if ((op == "Cast" || op == "Reshape" || op == "Unsqueeze" || op == "Squeeze" || op == "Flatten") && u.index == 0) {
      for (Value* o : n->outputs)
        if (o) {
          int64_t b = gather_bound(m, o, depth + 1);
          if (b > 0 && (best == 0 || b < best)) best = b;
        }
    }
  }
  return best;
}

}  // namespace

std::vector<std::pair<std::string, RValue>> make_inputs(Model& m, const Options& o, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::pair<std::string, RValue>> out;
  for (const ValueInfo& vi : m.graph->inputs) {
    Value* v = vi.value;
    if (v->initializer) continue;
    const Type* t = vi.type ? vi.type : v->type;
    std::string name(m.str(v->name));
    if (!t || t->kind != Type::kTensor || !t->has_elem_type)
      fail(Status::kUnsupported, "verify: input '" + name + "' is not a tensor of known element type");
    Shape s;
    if (t->has_shape)
      for (const Dim& d : t->dims) {
        if (d.is_static()) s.push_back(d.value);
        else {
          auto it = d.is_symbolic() ? o.dims.find(std::string(m.str(d.param))) : o.dims.end();
          s.push_back(it != o.dims.end() ? it->second : o.default_dim);
        }
      }
    int32_t dt = t->elem_type;
    if (!exec::is_supported_type(dt))
      fail(Status::kUnsupported, "verify: input '" + name + "' has element type " + dtype_name(dt));
    RTensor x = RTensor::alloc(dt, s);
    int64_t n = x.numel();
    if (exec::is_float_type(dt)) {
      for (int64_t i = 0; i < n; ++i) exec::set_f64(x, i, normal(rng));
    } else if (dt == kBool) {
      for (int64_t i = 0; i < n; ++i) x.data<bool>()[i] = (rng() & 1) != 0;
    } else {
      int64_t hi = gather_bound(m, v);
      if (hi <= 0) hi = o.int_high;
      for (int64_t i = 0; i < n; ++i) exec::set_f64(x, i, static_cast<double>(rng() % static_cast<uint64_t>(hi)));
    }
    out.emplace_back(name, RValue::tensor(x));
  }
  return out;
}

OutputDiff compare(const RTensor& actual, const RTensor& expected, double atol, double rtol) {
  OutputDiff d;
  if (actual.dtype != expected.dtype) {
    d.problem = std::string("element type ") + dtype_name(actual.dtype) + " != expected " + dtype_name(expected.dtype);
    return d;
  }
  if (actual.shape != expected.shape) {
    d.problem = "shape " + exec::shape_str(actual.shape) + " != expected " + exec::shape_str(expected.shape);
    return d;
  }
  d.elements = static_cast<size_t>(actual.numel());
  if (d.elements == 0) return d;
  if (actual.dtype == kDouble) {
    // Compare doubles in double: casting to float would hide differences below float precision.
    for (size_t i = 0; i < d.elements; ++i) {
      double a = actual.data<double>()[i], b = expected.data<double>()[i];
      double diff = (std::isnan(a) && std::isnan(b)) || a == b ? 0 : std::fabs(a - b);
      if (std::isnan(diff)) diff = INFINITY;
      double rel = b == 0 ? (diff == 0 ? 0 : INFINITY) : diff / std::fabs(b);
      if (diff > d.max_abs) { d.max_abs = diff; d.worst_index = i; }
      d.max_rel = std::max(d.max_rel, rel);
      if (diff > atol + rtol * std::fabs(b)) ++d.mismatches;
    }
    return d;
  }
  if (!exec::is_float_type(actual.dtype)) {
    for (size_t i = 0; i < d.elements; ++i) {
      int64_t a = exec::get_i64(actual, i), b = exec::get_i64(expected, i);
      if (actual.dtype == kUint64) { a = static_cast<int64_t>(actual.data<uint64_t>()[i] != expected.data<uint64_t>()[i]); b = 0; }
      double diff = std::fabs(static_cast<double>(a) - static_cast<double>(b));
      if (diff > d.max_abs) { d.max_abs = diff; d.worst_index = i; }
      double rel = b == 0 ? (diff == 0 ? 0 : INFINITY) : diff / std::fabs(static_cast<double>(b));
      d.max_rel = std::max(d.max_rel, rel);
      if (diff != 0) ++d.mismatches;  // integers and booleans must match exactly
    }
    return d;
  }
  RTensor a = exec::cast_tensor(actual, kFloat), b = exec::cast_tensor(expected, kFloat);
  kernels::DiffStats st = kernels::diff_f32(a.data<float>(), b.data<float>(), d.elements, atol, rtol);
  d.max_abs = st.max_abs;
  d.max_rel = st.max_rel;
  d.mismatches = st.mismatches;
  d.worst_index = st.worst_index;
  return d;
}

Report verify_models(Model& reference, Model& candidate, const Options& o) {
  Report r;
  exec::Interpreter ri(reference), ci(candidate);
  std::map<std::string, OutputDiff> worst;
  std::vector<std::string> order;
  for (uint32_t s = 0; s < std::max<uint32_t>(1, o.samples); ++s) {
    auto inputs = make_inputs(reference, o, o.seed + s * 0x9E3779B97F4A7C15ull);
    std::vector<RValue> ro = ri.run(inputs);
    // The candidate gets the same inputs by name; inputs it lacks are dropped (a pass may have
    // removed an unused input), inputs it needs but the reference lacks are an error below.
    std::vector<std::pair<std::string, RValue>> cin;
    for (auto& kv : inputs)
      for (const ValueInfo& vi : candidate.graph->inputs)
        if (candidate.str(vi.value->name) == kv.first) cin.push_back(kv);
    std::vector<RValue> co = ci.run(cin);
    for (uint32_t i = 0; i < reference.graph->outputs.size; ++i) {
      std::string name(reference.str(reference.graph->outputs[i].value->name));
      if (s == 0) order.push_back(name);
      OutputDiff d;
      d.name = name;
      int found = -1;
      for (uint32_t j = 0; j < candidate.graph->outputs.size; ++j)
        if (candidate.str(candidate.graph->outputs[j].value->name) == name) found = static_cast<int>(j);
      if (found < 0) d.problem = "output missing from the candidate";
      else if (ro[i].kind != RValue::kTensor || co[found].kind != RValue::kTensor) d.problem = "output is not a tensor";
      else {
        d = compare(co[found].t, ro[i].t, o.atol, o.rtol);
        d.name = name;
      }
      auto it = worst.find(name);
      if (it == worst.end()) worst[name] = d;
      else {
        OutputDiff& w = it->second;
        if (w.problem.empty() && !d.problem.empty()) w.problem = d.problem;
        if (d.max_abs > w.max_abs) { w.max_abs = d.max_abs; w.worst_index = d.worst_index; }
        w.max_rel = std::max(w.max_rel, d.max_rel);
        w.mismatches += d.mismatches;
        w.elements += d.elements;
      }
    }
  }
  for (auto& n : order) {
    r.outputs.push_back(worst[n]);
    if (!worst[n].passed()) r.passed = false;
  }
  return r;
}

}  // namespace ofg::verify
