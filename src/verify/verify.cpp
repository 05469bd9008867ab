#include "verify/verify.h"

#include <chrono>
#include <cmath>
#include <memory>

#include "ir/graph_ops.h"
#include "ir/json.h"
#include "kernels/kernels.h"
#include "verify/candidate_run.h"
#include "verify/inputs.h"
#include "verify/referee.h"

namespace ofg::verify {

using exec::RTensor;
using exec::RValue;
using exec::Shape;

namespace {

// The kernel counts mismatches; the first one's index is looked for only when there is one.
// Same rule as the kernel: NaN only matches NaN, an infinity only the same infinity.
size_t first_float_mismatch(const float* a, const float* e, size_t n, double atol, double rtol) {
  for (size_t i = 0; i < n; ++i) {
    double x = a[i], y = e[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) && std::isnan(y)) continue;
      return i;
    }
    if (x == y) continue;
    double d = std::fabs(x - y);
    if (std::isinf(d) || d > atol + rtol * std::fabs(y)) return i;
  }
  return n;
}

}  // namespace

OutputDiff compare(const RTensor& actual, const RTensor& expected, double atol, double rtol) {
  OutputDiff d;
  d.atol = atol;
  d.rtol = rtol;
  if (actual.dtype != expected.dtype) {
    d.problem = std::string("element type ") + dtype_name(actual.dtype) + " != expected " + dtype_name(expected.dtype);
    return d;
  }
  if (actual.shape != expected.shape) {
    d.problem = "shape " + exec::shape_str(actual.shape) + " != expected " + exec::shape_str(expected.shape);
    return d;
  }
  d.elements = static_cast<size_t>(actual.numel());
  d.first_mismatch = d.elements;
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
      if (diff > atol + rtol * std::fabs(b)) {
        if (d.mismatches++ == 0) d.first_mismatch = i;
      }
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
      if (diff != 0 && d.mismatches++ == 0) d.first_mismatch = i;  // integers and booleans must match exactly
    }
    return d;
  }
  RTensor a = exec::cast_tensor(actual, kFloat), b = exec::cast_tensor(expected, kFloat);
  kernels::DiffStats st = kernels::diff(a.data<float>(), b.data<float>(), d.elements, atol, rtol);
  d.max_abs = st.max_abs;
  d.max_rel = st.max_rel;
  d.mismatches = st.mismatches;
  d.worst_index = st.worst_index;
  if (d.mismatches > 0) d.first_mismatch = first_float_mismatch(a.data<float>(), b.data<float>(), d.elements, atol, rtol);
  return d;
}

Tolerance tolerance_for(int32_t dtype, const Options& o) {
  // Two machine epsilons of the type: the result of one rounding step on either side.
  double unit = dtype == kFloat16 ? 2 * std::ldexp(1.0, -10) : dtype == kBfloat16 ? 2 * std::ldexp(1.0, -7) : 0;
  Tolerance t{o.atol, o.rtol};
  if (unit > 0) {
    if (!o.atol_set) t.atol = unit;
    if (!o.rtol_set) t.rtol = unit;
  }
  return t;
}

namespace {

// Folds the diff of one more sample into the worst so far.
void merge_worst(OutputDiff& w, const OutputDiff& d) {
  if (w.problem.empty() && !d.problem.empty()) w.problem = d.problem;
  if (w.mismatches == 0 && d.mismatches > 0) w.first_mismatch = d.first_mismatch;
  if (d.max_abs > w.max_abs) { w.max_abs = d.max_abs; w.worst_index = d.worst_index; }
  w.max_rel = std::max(w.max_rel, d.max_rel);
  w.mismatches += d.mismatches;
  w.elements += d.elements;
  w.outside_tolerance += d.outside_tolerance;
  w.ref_err64 = std::max(w.ref_err64, d.ref_err64);
  w.cand_err64 = std::max(w.cand_err64, d.cand_err64);
  w.ref_over64 += d.ref_over64;
  w.cand_over64 += d.cand_over64;
  // The verdict of the referee over all samples: rejected in one sample is rejected; one it
  // could not judge leaves the plain rule standing there (unavailable is said).
  if (d.referee == "rejected" || (d.referee.rfind("unavailable", 0) == 0 && w.referee != "rejected") ||
      (w.referee.empty() && !d.referee.empty()))
    w.referee = d.referee;
  w.referee_used |= d.referee_used;
}

// Errors by which a model rejects the inputs it was given (shapes or values that do not fit
// what its ops require, or sizes past a limit), as opposed to unsupported ops.
bool rejects_inputs(const Error& e) { return e.status() == Status::kInvalidModel || e.status() == Status::kLimit; }

bool all_empty(const std::vector<RValue>& outs) {
  if (outs.empty()) return false;
  for (const RValue& v : outs)
    if (v.kind != RValue::kTensor || v.t.numel() != 0) return false;
  return true;
}

std::string seed_text(uint64_t seed) { return "seed " + std::to_string(seed); }

// Given values first; inputs the set lacks come from `drawn`.
NamedValues merge(const NamedValues& given, const NamedValues& drawn) {
  NamedValues out = given;
  for (const auto& kv : drawn) {
    bool have = false;
    for (const auto& g : given) have |= g.first == kv.first;
    if (!have) out.push_back(kv);
  }
  return out;
}

// The first sample's inputs, for the report.
std::vector<InputInfo> describe_inputs(const NamedValues& inputs, const GivenInputs* given, uint64_t seed) {
  std::vector<InputInfo> out;
  for (const auto& kv : inputs) {
    InputInfo in;
    in.name = kv.first;
    if (kv.second.kind == RValue::kTensor) {
      in.elem_type = kv.second.t.dtype;
      in.shape.assign(kv.second.t.shape.begin(), kv.second.t.shape.end());
    }
    bool from_given = false;
    if (given)
      for (const auto& g : given->values) from_given |= g.first == kv.first;
    in.source = from_given ? given->source : seed_text(seed);
    out.push_back(std::move(in));
  }
  return out;
}

// The candidate gets the reference's inputs by name; inputs it lacks are dropped (a pass may have
// removed an unused input), inputs it needs but the reference lacks are an error of its run.
NamedValues candidate_inputs(const Model& candidate, const NamedValues& inputs) {
  NamedValues cin;
  for (auto& kv : inputs)
    for (const ValueInfo& vi : candidate.graph->inputs)
      if (candidate.str(vi.value->name) == kv.first) cin.push_back(kv);
  return cin;
}

// Computes every tensor of m still pending (Tensor::recipe) on this thread. The two models may
// share tensors (a snapshot and the model it was taken from, or one model given twice), and
// two interpreters reading one pending tensor at once would both compute it into one arena.
void materialize_pending(Model& m) {
  auto touch = [](const Tensor* t) {
    if (t && t->recipe) t->bytes();
  };
  for_each_graph(m.graph, [&](Graph* g) {
    for (Value* v : g->initializers) touch(v->initializer);
    for (Node* n = g->first; n != nullptr; n = n->next)
      for (Attribute& a : n->attributes) {
        touch(a.t);
        for (Tensor* t : a.tensors) touch(t);
      }
  });
}

}  // namespace

Report verify_models(Model& reference, Model& candidate, const Options& o) {
  Report r;
  r.atol = o.atol;
  r.rtol = o.rtol;
  if (kernels::threads() >= 2) {  // before any interpreter looks at the weights
    materialize_pending(reference);
    materialize_pending(candidate);
  }
  exec::Interpreter ri(reference), ci(candidate);
  // The candidate runs on the inputs of each reference run, beside it when threads allow; its
  // result is used only when the reference accepted them, as if it had run afterwards.
  CandidateRun cand(ci);
  InputPlanner planner(reference, o);
  std::map<std::string, OutputDiff> worst;
  std::unique_ptr<Float64Referee> referee;
  std::vector<std::string> order;
  const bool given = !o.given.empty();
  r.samples = given ? static_cast<uint32_t>(o.given.size()) : std::max<uint32_t>(1, o.samples);
  size_t chosen = 0;    // the planner's candidate the reference accepted
  bool searched = false;
  for (uint32_t s = 0; s < r.samples; ++s) {
    const uint64_t seed = o.seed + s * 0x9E3779B97F4A7C15ull;
    NamedValues inputs;
    std::vector<RValue> ro;
    if (given) {
      // Real data: a failure of the reference on it is the model's (or the data's), as it is.
      inputs = merge(o.given[s].values, planner.make(0, seed));
      cand.start(candidate_inputs(candidate, inputs));
      ro = ri.run(inputs);
    } else if (!searched) {
      std::string first_error, last_error;
      bool accepted = false;
      // A set the reference accepts but that gives only empty outputs compares nothing: it is
      // kept as a fallback while other sets are tried.
      bool have_empty = false;
      size_t empty_k = 0;
      for (size_t k = 0; k < planner.count() && !accepted; ++k) {
        inputs = planner.make(k, seed);
        cand.start(candidate_inputs(candidate, inputs));
        try {
          ro = ri.run(inputs);
          if (all_empty(ro) && k + 1 < planner.count()) {
            if (!have_empty) empty_k = k;
            have_empty = true;
            cand.abandon();
            continue;
          }
          accepted = true;
          chosen = k;
        } catch (const Error& e) {
          if (!rejects_inputs(e) || !planner.has_choices()) throw;
          cand.abandon();
          std::string what = "[" + planner.describe(k) + "] " + e.what();
          if (first_error.empty()) first_error = what;
          last_error = what;
          if (o.log) o.log(1, "verify: the reference rejected input set " + what);
        } catch (const std::bad_alloc&) {
          cand.abandon();
          std::string what = "[" + planner.describe(k) + "] out of memory";
          if (first_error.empty()) first_error = what;
          last_error = what;
          if (o.log) o.log(1, "verify: the reference rejected input set " + what);
        }
        if (!accepted && o.progress && !o.progress(0, r.samples))
          fail(Status::kCancelled, "verify: cancelled by the progress callback");
      }
      if (!accepted && have_empty) {
        chosen = empty_k;
        inputs = planner.make(chosen, seed);
        cand.start(candidate_inputs(candidate, inputs));
        ro = ri.run(inputs);
        accepted = true;
      }
      if (!accepted)
        fail(Status::kNoValidInputs,
             "verify: cannot build inputs that the model accepts: the reference rejected all " +
                 std::to_string(planner.count()) + " input sets tried (first " + first_error +
                 (planner.count() > 1 ? "; last " + last_error : std::string()) +
                 "); give input shapes (verify.dim.NAME, optimize.input_shapes; CLI --dim, --input-shape) or real "
                 "inputs (verify.test_data, verify.input.NAME; CLI --test-data, --input)");
      searched = true;
      std::string dims = planner.describe(chosen);
      r.note = "seeded random inputs (" + seed_text(o.seed) + ", " + std::to_string(r.samples) + " sample" +
               (r.samples == 1 ? "" : "s") + ")" +
               (dims.empty() ? std::string() : "; chose " + dims) +
               (chosen > 0 ? " (tried " + std::to_string(chosen) + " other input set" + (chosen == 1 ? "" : "s") +
                                 " first: rejected by the reference, or all its outputs empty)"
                           : std::string());
    } else {
      inputs = planner.make(chosen, seed);
      cand.start(candidate_inputs(candidate, inputs));
      ro = ri.run(inputs);
    }
    if (s == 0) {
      r.inputs = describe_inputs(inputs, given ? &o.given[0] : nullptr, seed);
      if (given)
        r.note = "given inputs: " + o.given[0].source +
                 (o.given.size() > 1 ? " and " + std::to_string(o.given.size() - 1) + " more set(s)" : std::string());
    }
    std::vector<RValue> co;
    try {
      co = cand.finish();
    } catch (const Error& e) {
      fail(e.status(), std::string("verify: the candidate model failed on inputs the reference accepts: ") + e.what());
    }
    std::vector<OutputDiff> diffs;
    std::vector<int> cand_index;
    bool want_referee = false;
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
        Tolerance tol = tolerance_for(ro[i].t.dtype, o);
        d = compare(co[found].t, ro[i].t, tol.atol, tol.rtol);
        d.name = name;
        d.atol = tol.atol;
        d.rtol = tol.rtol;
        want_referee |= d.problem.empty() && d.mismatches > 0 && exec::is_float_type(ro[i].t.dtype) &&
                        ro[i].t.dtype != kDouble;
      }
      diffs.push_back(std::move(d));
      cand_index.push_back(found);
    }
    if (want_referee && o.float64_referee) {
      // Made once, on the first sample that needs it: most verifications never do.
      if (!referee) referee = std::make_unique<Float64Referee>(reference);
      std::vector<RValue> exact = referee->run(inputs);
      for (uint32_t i = 0; i < diffs.size(); ++i) {
        OutputDiff& d = diffs[i];
        if (!d.problem.empty() || d.mismatches == 0 || !exec::is_float_type(ro[i].t.dtype) || ro[i].t.dtype == kDouble)
          continue;
        if (exact.empty()) d.referee = "unavailable: " + referee->why();
        else if (exact[i].kind == RValue::kTensor && exact[i].t.shape == ro[i].t.shape)
          referee_judge(d, co[cand_index[i]].t, ro[i].t, exact[i].t, d.atol, d.rtol);
        else d.referee = "unavailable: its output has another shape or kind";
      }
    }
    for (OutputDiff& d : diffs) {
      auto it = worst.find(d.name);
      if (it == worst.end()) worst[d.name] = d;
      else merge_worst(it->second, d);
    }
    if (s == 0 && o.log) o.log(1, "verify: " + r.note);
    if (o.progress && !o.progress(s + 1, r.samples)) fail(Status::kCancelled, "verify: cancelled by the progress callback");
  }
  for (auto& n : order) {
    r.outputs.push_back(worst[n]);
    if (!worst[n].passed()) r.passed = false;
  }
  return r;
}

std::string Report::to_json() const {
  std::string j = std::string("{\"passed\":") + (passed ? "true" : "false") + ",\"samples\":" + std::to_string(samples) +
                  "," + json::number_field("atol", atol) + "," + json::number_field("rtol", rtol) +
                  ",\"rule\":" + json::string(kCompareRule) +
                  ",\"tolerance_rule\":" + json::string(kToleranceRule) + ",\"note\":" + json::string(note) + ",\"inputs\":[";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputInfo& in = inputs[i];
    j += (i ? ",{" : "{") + std::string("\"name\":") + json::string(in.name) +
         ",\"elem_type\":" + json::string(in.elem_type ? dtype_name(in.elem_type) : "") + ",\"shape\":[";
    for (size_t k = 0; k < in.shape.size(); ++k) j += (k ? "," : "") + std::to_string(in.shape[k]);
    j += "],\"source\":" + json::string(in.source) + "}";
  }
  j += "],\"outputs\":[";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputDiff& d = outputs[i];
    j += (i ? ",{" : "{") + std::string("\"name\":") + json::string(d.name) + ",\"passed\":" +
         (d.passed() ? "true" : "false") + "," + json::number_field("max_abs", d.max_abs) + "," +
         json::number_field("max_rel", d.max_rel) + ",\"mismatches\":" + std::to_string(d.mismatches) +
         ",\"elements\":" + std::to_string(d.elements) + ",\"worst_index\":" + std::to_string(d.worst_index) +
         ",\"first_mismatch\":" + (d.mismatches ? std::to_string(d.first_mismatch) : std::string("null")) +
         ",\"problem\":" + (d.problem.empty() ? std::string("null") : json::string(d.problem)) + "," +
         json::number_field("atol", d.atol) + "," + json::number_field("rtol", d.rtol) + ",\"referee\":";
    if (d.referee.empty()) j += "null";
    else {
      const bool unavailable = d.referee.rfind("unavailable", 0) == 0;
      j += "{\"verdict\":" + json::string(unavailable ? "unavailable" : d.referee);
      if (d.referee_used)
        j += ",\"outside_tolerance\":" + std::to_string(d.outside_tolerance) + "," +
             json::number_field("reference_max_abs_error", d.ref_err64) + "," +
             json::number_field("candidate_max_abs_error", d.cand_err64) +
             ",\"reference_outside_tolerance\":" + std::to_string(d.ref_over64) +
             ",\"candidate_outside_tolerance\":" + std::to_string(d.cand_over64);
      if (unavailable) j += ",\"why\":" + json::string(d.referee.substr(d.referee.find(':') + 2));
      j += "}";
    }
    j += "}";
  }
  return j + "]}";
}

}  // namespace ofg::verify
