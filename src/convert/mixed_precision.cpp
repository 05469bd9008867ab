#include "convert/mixed_precision.h"

#include <algorithm>
#include <cmath>

#include "convert/keep_rules.h"
#include "exec/infer_types.h"
#include "exec/interp.h"
#include "ir/graph_ops.h"
#include "ir/json.h"
#include "ir/snapshot.h"
#include "verify/inputs.h"

namespace ofg::convert {

namespace {

using exec::RValue;

// Why each node starts float32: the caller's block lists, then the spec and interpreter rules.
std::vector<KeptNode> initial_keeps(Model& m, const ConvertOptions& o) {
  std::vector<KeptNode> out;
  std::vector<Node*> nodes = main_nodes(m);
  for (size_t i = 0; i < nodes.size(); ++i) {
    KeptNode k;
    k.index = i;
    k.name = std::string(m.str(nodes[i]->name));
    k.op = std::string(m.str(nodes[i]->op_type));
    if (o.block_nodes.count(k.name)) k.reason = "blocked by user (block_nodes)";
    else if (o.block_ops.count(k.op)) k.reason = "blocked by user (block_ops)";
    else k.reason = keep_reason(m, *nodes[i], o.target);
    if (!k.reason.empty()) out.push_back(k);
  }
  return out;
}

// One set of inputs for the attribution run: the caller's first data set, completed with drawn
// inputs, or the first drawn set.
verify::NamedValues attribution_inputs(Model& ref, const verify::Options& vo) {
  verify::InputPlanner planner(ref, vo);
  verify::NamedValues drawn = planner.make(0, vo.seed);
  if (vo.given.empty()) return drawn;
  verify::NamedValues out = vo.given[0].values;
  for (auto& kv : drawn) {
    bool have = false;
    for (auto& g : out) have |= g.first == kv.first;
    if (!have) out.push_back(kv);
  }
  return out;
}

struct ProbeError {
  double rel = 0;         // max |cand - ref| / max |ref|
  bool nonfinite = false; // an infinity or NaN where the float32 original is finite (overflow)
  bool saturated = false; // the float32 original holds finite values beyond the target's range
};

// A reference value beyond the target's finite range (a -3.4e38 attention mask) is compared as
// the target's largest finite value: the conversion clamps such constants, so that is the best the
// target can hold, and a clamped mask masks as well; comparing with the raw value would call every
// masked position a relative error of 1 and keep the mask's producers float32, whose runtime Casts
// back to the target then turn the mask into infinities.
ProbeError measure(const exec::RTensor& c, const exec::RTensor& r, double lim) {
  ProbeError e;
  if (c.numel() != r.numel()) {
    e.nonfinite = true;
    return e;
  }
  double scale = 0, err = 0;
  for (int64_t i = 0; i < r.numel(); ++i) {
    const double a = exec::get_f64(c, i);
    double b = exec::get_f64(r, i);
    if (!std::isfinite(b)) continue;
    e.saturated = e.saturated || std::fabs(b) > lim;
    b = std::max(-lim, std::min(lim, b));
    if (!std::isfinite(a)) {
      e.nonfinite = true;
      continue;
    }
    scale = std::max(scale, std::fabs(b));
    err = std::max(err, std::fabs(a - b));
  }
  e.rel = err / std::max(scale, 1e-30);
  return e;
}

// Adds `Cast(v, to=float)` as a new graph output named `probe` (v in the main graph).
void add_probe(Model& m, Value* v, const std::string& probe) {
  Graph* g = m.graph;
  Value* out = new_value(g, m.intern(probe));
  append_node(g, new_cast(m, g, v, out, kFloat));
  ValueInfo vi;
  vi.value = out;
  vi.has_type = false;
  ++out->graph_output_count;
  g->outputs.push(m.arena, vi);
}

// Runs the float32 original and the candidate with every float32 output of the converted nodes
// probed, and returns the nodes whose conversion starts the drift: nodes whose output is beyond
// tolerance (or overflows) while none of their probed inputs is. When the drift accumulates
// below tolerance everywhere, the nodes with the largest growth of the error instead.
std::vector<std::pair<size_t, std::string>> attribute_error(const Model& original, const PrecisionPlan& plan,
                                                            const ConvertOptions& o, double tol, size_t widest) {
  std::unique_ptr<Model> ref = snapshot_model(original);
  std::unique_ptr<Model> cand = snapshot_model(original);
  convert_precision(*cand, plan);
  std::vector<Node*> rnodes = main_nodes(*ref);
  // The candidate's values by name (the snapshot keeps names; indexed by the candidate's StrId).
  std::vector<Value*> by_name;
  for (Node* n = cand->graph->first; n; n = n->next)
    for (Value* v : n->outputs)
      if (v) {
        if (v->name >= by_name.size()) by_name.resize(v->name + 1, nullptr);
        by_name[v->name] = v;
      }
  exec::TypeInference ti(*ref);
  ti.run(false);
  std::vector<int64_t> probe_of(ref->value_count, -1);  // reference value id -> probe index
  std::vector<size_t> probe_node;
  size_t base_outputs = ref->graph->outputs.size;
  for (size_t i = 0; i < rnodes.size(); ++i) {
    if (plan.keep[i]) continue;
    for (Value* v : rnodes[i]->outputs) {
      const exec::IType* t = v ? ti.type_of(v) : nullptr;
      if (!t || t->elem != kFloat) continue;
      const StrId cid = cand->strings.find(ref->str(v->name));
      Value* cv = cid != kNoStr && cid < by_name.size() ? by_name[cid] : nullptr;
      if (!cv) continue;
      std::string probe = "ofg_probe_" + std::to_string(probe_node.size());
      while (cand->strings.find(probe) != kNoStr || ref->strings.find(probe) != kNoStr) probe += "_";
      add_probe(*ref, v, probe);
      add_probe(*cand, cv, probe);
      probe_of[v->id] = static_cast<int64_t>(probe_node.size());
      probe_node.push_back(i);
    }
  }
  verify::NamedValues in = attribution_inputs(*ref, o.vo);
  std::vector<RValue> ro = exec::Interpreter(*ref).run(in);
  std::vector<RValue> co = exec::Interpreter(*cand).run(in);
  std::vector<ProbeError> err(probe_node.size());
  for (size_t p = 0; p < probe_node.size(); ++p) {
    const RValue& r = ro[base_outputs + p];
    const RValue& c = co[cand->graph->outputs.size - probe_node.size() + p];
    if (r.kind == RValue::kTensor && c.kind == RValue::kTensor) err[p] = measure(c.t, r.t, largest_finite(plan.target));
  }
  auto bad = [&](const ProbeError& e) { return e.nonfinite || e.rel > tol; };
  std::vector<std::pair<size_t, std::string>> origins;
  std::vector<std::pair<double, size_t>> growth;
  // Per node: worst output error, overflow, probed at all.
  std::vector<ProbeError> node_err(rnodes.size());
  std::vector<bool> probed(rnodes.size(), false);
  for (size_t p = 0; p < probe_node.size(); ++p) {
    ProbeError& ne = node_err[probe_node[p]];
    ne.rel = std::max(ne.rel, err[p].rel);
    ne.nonfinite = ne.nonfinite || err[p].nonfinite;
    ne.saturated = ne.saturated || err[p].saturated;
    probed[probe_node[p]] = true;
  }
  for (size_t i = 0; i < rnodes.size(); ++i) {
    const ProbeError& ne = node_err[i];
    // A node whose float32 values lie beyond the target's range while its converted values stay
    // finite (a -3.4e38 attention mask, plus scores) computes on the saturated value (-65504):
    // there, like float32's lowest, it absorbs what is added to it (-65504 + s rounds to -65504),
    // so a fully masked row stays uniform after Softmax. Kept float32 it would read -65504 through
    // a Cast and add the scores exactly, and a fully masked row would no longer match: such nodes
    // are neither blamed nor kept. (One that overflows to infinity is blamed as before.)
    if (!probed[i] || (ne.saturated && !ne.nonfinite)) continue;
    double in_err = 0;
    bool in_bad = false;
    for (Value* v : rnodes[i]->inputs) {
      const int64_t pi = v && v->id < probe_of.size() ? probe_of[v->id] : -1;
      if (pi < 0) continue;
      in_err = std::max(in_err, err[pi].rel);
      in_bad = in_bad || bad(err[pi]);
    }
    char buf[160];
    if ((ne.nonfinite || ne.rel > tol) && !in_bad) {
      std::snprintf(buf, sizeof buf, "error attribution: %s (relative error %.3g, inputs %.3g, tolerance %.3g)",
                    ne.nonfinite ? "overflows the target type" : "output drifts beyond tolerance", ne.rel, in_err, tol);
      origins.push_back({i, buf});
    } else {
      growth.push_back({ne.rel - in_err, i});
    }
  }
  if (!origins.empty()) return origins;
  // The `widest` largest growths (a selection, not a sort: smaller code).
  for (size_t k = 0; k < growth.size() && k < widest; ++k) {
    for (size_t j = k + 1; j < growth.size(); ++j)
      if (growth[j].first > growth[k].first) std::swap(growth[j], growth[k]);
    char buf[160];
    std::snprintf(buf, sizeof buf, "error attribution: largest error growth (+%.3g relative)", growth[k].first);
    origins.push_back({growth[k].second, buf});
  }
  return origins;
}

}  // namespace

std::unique_ptr<Model> convert_float(const Model& original, const ConvertOptions& o, ConvertReport& report) {
  std::unique_ptr<Model> probe = snapshot_model(original);
  report.kept = initial_keeps(*probe, o);
  PrecisionPlan plan;
  plan.target = o.target;
  plan.keep_io_types = o.keep_io_types;
  plan.keep.assign(main_nodes(*probe).size(), false);
  for (const KeptNode& k : report.kept) plan.keep[k.index] = true;
  const double tol = o.target == kBfloat16 ? kBfloat16Tolerance : kFloat16Tolerance;
  verify::Options vo = o.vo;
  if (!vo.atol_set) vo.atol = tol;
  if (!vo.rtol_set) vo.rtol = tol;
  vo.atol_set = vo.rtol_set = true;
  // A half-precision candidate is never closer to the exact answer than float32: no referee.
  vo.float64_referee = false;
  report.atol = vo.atol;
  report.rtol = vo.rtol;
  for (int round = 0;; ++round) {
    std::unique_ptr<Model> cand = snapshot_model(original);
    report.last = convert_precision(*cand, plan);
    report.clamped = report.last.clamped;
    report.rounds = round + 1;
    if (o.log)
      for (const Clamped& c : report.clamped)
        o.log(2, "convert: " + c.name + ": " + std::to_string(c.count) +
                     " values beyond the target type's range clamped (largest magnitude " + std::to_string(c.largest) + ")");
    if (!o.verify) return cand;
    std::unique_ptr<Model> ref = snapshot_model(original);
    report.verify = verify::verify_models(*ref, *cand, vo);
    if (report.verify.passed) {
      report.verified = true;
      return cand;
    }
    if (o.log)
      for (const verify::OutputDiff& d : report.verify.outputs)
        if (!d.passed()) {
          char buf[200];
          std::snprintf(buf, sizeof buf, "convert: round %d: output '%s' max abs diff %.3g", round + 1, d.name.c_str(), d.max_abs);
          o.log(1, buf);
        }
    if (round + 1 >= o.max_rounds) break;
    // Drift spread thinly over a deep network (an LLM's logits) is not cured by two nodes a
    // round: the number kept for error growth doubles each round (2, 4, 8, ...), so the rounds
    // reach any depth while a model that needs few keeps few.
    const size_t widest = size_t{2} << std::min(round, 20);
    auto found = attribute_error(original, plan, o, std::min(vo.atol, vo.rtol), widest);
    size_t added = 0;
    for (auto& [i, why] : found) {
      if (plan.keep[i]) continue;
      plan.keep[i] = true;
      Node* n = main_nodes(*probe)[i];
      report.kept.push_back({i, std::string(probe->str(n->name)), std::string(probe->str(n->op_type)), why});
      if (o.log) o.log(1, "convert: node '" + report.kept.back().name + "' (" + report.kept.back().op + ") kept float32: " + why);
      ++added;
    }
    if (added == 0) break;
  }
  std::string worst;
  for (const verify::OutputDiff& d : report.verify.outputs)
    if (!d.passed()) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "output '%s' max abs diff %.3g (atol %.3g, rtol %.3g)", d.name.c_str(), d.max_abs,
                    d.atol, d.rtol);
      worst = buf;
      break;
    }
  fail(Status::kVerifyFailed, "convert: the " + std::string(o.target == kBfloat16 ? "bfloat16" : "float16") +
                                  " model does not verify after " + std::to_string(report.rounds) + " rounds with " +
                                  std::to_string(report.kept.size()) + " nodes kept float32: " + worst);
}

std::string ConvertReport::to_json(int32_t target, bool keep_io_types) const {
  std::string s = "{\"target\":\"";
  s += target == kBfloat16 ? "bfloat16" : "float16";
  s += "\",\"keep_io_types\":";
  s += keep_io_types ? "true" : "false";
  s += ",\"rounds\":" + std::to_string(rounds) + ",\"nodes_converted\":" + std::to_string(last.nodes_converted);
  s += ",\"casts_added\":" + std::to_string(last.casts_added) + ",\"casts_removed\":" + std::to_string(last.casts_removed);
  s += ",\"kept_float32\":[";
  // The plan's nodes, then those the last conversion kept for want of a known input type.
  std::vector<KeptNode> all = kept;
  all.insert(all.end(), last.kept.begin(), last.kept.end());
  for (size_t i = 0; i < all.size(); ++i) {
    if (i) s += ",";
    s += "{\"index\":" + std::to_string(all[i].index) + ",\"node\":" + json::string(all[i].name) +
         ",\"op\":" + json::string(all[i].op) + ",\"reason\":" + json::string(all[i].reason) + "}";
  }
  s += "],\"clamped\":[";
  for (size_t i = 0; i < clamped.size(); ++i) {
    if (i) s += ",";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", clamped[i].largest);
    s += "{\"name\":" + json::string(clamped[i].name) + ",\"count\":" + std::to_string(clamped[i].count) +
         ",\"largest\":" + buf + "}";
  }
  s += "],\"verified\":";
  s += verified ? "true" : "false";
  char buf[64];
  std::snprintf(buf, sizeof buf, ",\"atol\":%.9g,\"rtol\":%.9g", atol, rtol);
  s += buf;
  s += ",\"verify\":" + (verify.outputs.empty() ? std::string("null") : verify.to_json()) + "}";
  return s;
}

}  // namespace ofg::convert
