// Legalisation for a target profile (legalise.h): opset into range, then per-op families of exact
// rewrites, each kept only when it lowers the number of illegal nodes.
#include "targets/legalise.h"

#include <algorithm>
#include <set>

#include "convert/adapter.h"
#include "convert/opset_convert.h"
#include "exec/infer_types.h"
#include "ir/attributes.h"
#include "ir/error.h"
#include "ir/graph_ops.h"
#include "ir/json.h"
#include "ir/snapshot.h"
#include "passes/pipeline.h"
#include "passes/util.h"
#include "targets/lift_rank.h"
#include "targets/resize_modes.h"

namespace ofg::targets {
namespace {

// The fused ops whose lowering (an adapter row's down step at the op's introduction) is valid at
// every opset from that introduction on, so it can be applied at the model's own opset.
const std::set<std::string>& lowerable() {
  static const std::set<std::string> s = {"LayerNormalization", "Gelu", "RMSNormalization", "Attention",
                                          "RotaryEmbedding", "GroupNormalization", "Mish", "HardSwish", "Swish"};
  return s;
}

// True when the profile accepts default-domain op `op` at `opset` (the "op" and "opset" rules).
bool op_allowed(const Profile& p, const std::string& op, int64_t opset) {
  const OpEntry* e = p.find("", op);
  if (!e) return false;
  if (e->since && opset < e->since) return false;
  if (e->until && opset > e->until) return false;
  return true;
}

// The opset the profile wants for a model at `have`: `have` when in range, else the highest the
// profile allows below it, else the lowest above it (clamped to what the converter knows).
int64_t choose_opset(const Profile& p, int64_t have) {
  bool low_ok = !p.opset_lo || have >= p.opset_lo, high_ok = !p.opset_hi || have <= p.opset_hi;
  if (low_ok && high_ok) return have;
  int64_t want = !high_ok ? p.opset_hi : p.opset_lo;
  return std::clamp(want, convert::kOldestOpset, convert::newest_opset());
}

// The lowering row for `op` at `opset`: the row with a down step whose boundary is the highest at
// or below the opset (GroupNormalization at 21+ takes its per-channel row).
const convert::Adapter* lowering_row(const std::string& op, int64_t opset) {
  const convert::Adapter* best = nullptr;
  for (const convert::Adapter& a : convert::adapters())
    if (op == a.op && a.down && a.boundary <= opset && (!best || a.boundary > best->boundary)) best = &a;
  return best;
}

// A copy of constant v transposed ([1, 0]) as a new initializer, or a Transpose node when v is
// not constant (or its bytes are not at hand).
Value* transposed(convert::AdaptCtx& c, Value* v, const std::string& base) {
  if (const Tensor* t = passes::const_tensor(c.m, v))
    if (t->dims.size == 2)
      if (Tensor* tt = passes::transpose_tensor(c.m, t, {1, 0})) return passes::add_initializer(c.n->graph, base, tt);
  return insert_op(c.m, c.n, "Transpose", {v}, base)->outputs[0];
}

// Gemm(A, B, C) = alpha * op(A) op(B) + beta * C  ->  MatMul, Mul by alpha, Mul C by beta, Add.
// The broadcast of C to [M, N] (unidirectional in Gemm) is what Add's broadcast gives as well.
const char* gemm_to_matmul(convert::AdaptCtx& c, const std::string& label) {
  Node* n = c.n;
  if (n->inputs.size < 2 || !n->inputs[0] || !n->inputs[1]) return "Gemm without inputs A and B";
  float alpha = attr_float(c.m, n, "alpha", 1.0f), beta = attr_float(c.m, n, "beta", 1.0f);
  int32_t dt = c.elem(n->inputs[0]);
  if ((alpha != 1.0f || beta != 1.0f) && !passes::is_float_type(dt))
    return "alpha or beta is not 1 and the element type is not a known float type";
  Value* a = n->inputs[0];
  Value* b = n->inputs[1];
  if (attr_int(c.m, n, "transA", 0)) a = transposed(c, a, label + "_a_t");
  if (attr_int(c.m, n, "transB", 0)) b = transposed(c, b, label + "_b_t");
  Node* last = insert_op(c.m, n, "MatMul", {a, b}, label + "_matmul");
  if (alpha != 1.0f)
    last = insert_op(c.m, n, "Mul", {last->outputs[0], convert::float_const(c.m, n, "gemm_alpha", dt, {alpha}, true)},
                     label + "_alpha");
  if (convert::has_input(n, 2)) {
    Value* cv = n->inputs[2];
    if (beta != 1.0f)
      cv = insert_op(c.m, n, "Mul", {cv, convert::float_const(c.m, n, "gemm_beta", dt, {beta}, true)}, label + "_beta")
               ->outputs[0];
    last = insert_op(c.m, n, "Add", {last->outputs[0], cv}, label + "_bias");
  }
  return convert::replace_by(c, last, "Gemm -> MatMul/Add (transposes folded into constants or Transpose nodes)");
}

// MatMul of two 2-D inputs -> Gemm without C (optional from opset 11).
const char* matmul_to_gemm(convert::AdaptCtx& c, int64_t opset) {
  if (opset < 11) return "Gemm's C input is optional from opset 11 only";
  if (c.n->inputs.size != 2 || c.rank(c.n->inputs[0]) != 2 || c.rank(c.n->inputs[1]) != 2)
    return "Gemm is 2-D only and the MatMul's inputs are not both known to be 2-D";
  return convert::rename_op(c, "Gemm", "MatMul (2-D) -> Gemm");
}

// Flatten(axis 0 or 1) -> Reshape to [1, -1] / [0, -1] (0 copies the input's first dimension):
// the same result for any rank and shape, so no static shape is needed. Larger axes would need
// the product of the leading dimensions and are left alone. (A tensor with no elements and a
// zero first dimension makes Reshape's -1 ambiguous; Flatten's such outputs are vanishingly rare.)
const char* flatten_to_reshape(convert::AdaptCtx& c, const std::string& label) {
  int64_t axis = attr_int(c.m, c.n, "axis", 1);
  if (axis < 0) {
    int r = c.rank(c.n->inputs[0]);
    if (r < 0) return "negative axis and unknown input rank";
    axis += r;
  }
  if (axis != 0 && axis != 1) return "axis above 1 needs the product of the leading dimensions";
  std::vector<int64_t> shape = {axis == 0 ? 1 : 0, -1};
  Node* rs = insert_op(c.m, c.n, "Reshape", {c.n->inputs[0], convert::int_const(c.m, c.n, "flatten_shape", shape)},
                       label + "_reshape");
  return convert::replace_by(c, rs, axis == 0 ? "Flatten(axis 0) -> Reshape [1, -1]" : "Flatten(axis 1) -> Reshape [0, -1]");
}

// Neg(x) -> Mul(x, -1) for float types: multiplying by -1 flips the sign bit only, as Neg does.
const char* neg_to_mul(convert::AdaptCtx& c, const std::string& label) {
  int32_t dt = c.elem(c.n->inputs[0]);
  if (!passes::is_float_type(dt)) return "not a known float type";
  Node* mul = insert_op(c.m, c.n, "Mul", {c.n->inputs[0], convert::float_const(c.m, c.n, "minus_one", dt, {-1.0}, true)},
                        label + "_mul");
  return convert::replace_by(c, mul, "Neg -> Mul by -1");
}

// Not(x) -> Equal(x, false): the same truth table (Equal takes bool from opset 11).
const char* not_to_equal(convert::AdaptCtx& c, const std::string& label) {
  if (c.target < 11) return "Equal takes bool inputs from opset 11";
  const uint8_t no = 0;
  Tensor* t = make_tensor(c.m, kBool, nullptr, 0, &no, 1);
  Value* f = passes::add_initializer(c.n->graph, "false_scalar", t);
  Node* eq = insert_op(c.m, c.n, "Equal", {c.n->inputs[0], f}, label + "_equal_false");
  return convert::replace_by(c, eq, "Not -> Equal(x, false)");
}

// Whether a Resize (coordinate mode, nearest mode) pair passes the profile's attribute rules.
ResizeModeAllowed resize_rules(const OpEntry& e) {
  return [&e](const std::string& cm, const std::string& nm) {
    for (const OpRule& r : e.rules) {
      if (r.kind != OpRule::kAttr) continue;
      const std::string* v = r.attr == "coordinate_transformation_mode" ? &cm : r.attr == "nearest_mode" ? &nm : nullptr;
      if (v && std::find(r.values.begin(), r.values.end(), *v) == r.values.end()) return false;
    }
    return true;
  };
}

// Whether the entry's rank rules (if any) take input 0 of rank r.
bool takes_rank(const OpEntry& e, int r) {
  for (const OpRule& rule : e.rules)
    if (rule.kind == OpRule::kRank && (r < rule.rank_lo || r > rule.rank_hi)) return false;
  return true;
}

struct Legaliser {
  std::unique_ptr<Model>& m;
  const Profile& p;
  LegaliseResult& r;

  size_t illegal() const { return check_model(*m, p).illegal_nodes; }

  // Moves the default-domain opset into the profile's range; on failure the model is kept as it
  // was and the reason goes into the notes (the model_opset finding stays).
  void opset() {
    r.opset_before = r.opset_after = m->opset_version("");
    if (!r.opset_before) return;
    int64_t want = choose_opset(p, r.opset_before);
    if (want == r.opset_before) return;
    std::unique_ptr<Model> before = snapshot_model(*m);
    try {
      convert::OpsetReport rep = convert::convert_opset(*m, want);
      for (const convert::AdaptedNode& a : rep.adapted)
        r.rewrites.push_back({a.node, a.op, "opset " + std::to_string(a.from) + " -> " + std::to_string(a.to) + ": " + a.what});
      r.opset_after = want;
    } catch (const Error& e) {
      keep_alive(*before, std::move(m));
      m = std::move(before);
      r.notes.push_back("opset " + std::to_string(r.opset_before) + " -> " + std::to_string(want) +
                        " not done: " + e.what());
    }
  }

  // One family: every default-domain node of op `op`, rewritten by `step`, when the profile does
  // not accept the op (or, with `op_legal_too`, when a node breaks one of the op's rules: the step
  // then leaves legal nodes alone); undone unless the illegal count goes down.
  template <typename Step>
  void family(const std::string& op, Step step, bool op_legal_too = false) {
    int64_t opset = m->opset_version("");
    if (!op_legal_too && op_allowed(p, op, opset)) return;
    std::vector<Node*> nodes;
    for (Graph* g : passes::all_graphs(*m))
      for (Node* n = g->first; n; n = n->next)
        if (is_default_domain(*m, n->domain) && m->str(n->op_type) == op) nodes.push_back(n);
    if (nodes.empty()) return;
    size_t before_count = illegal();
    std::unique_ptr<Model> before = snapshot_model(*m);
    exec::TypeInference types(*m);
    types.run(false);
    std::vector<LegalRewrite> done;
    for (Node* n : nodes) {
      std::string label = convert::node_label(*m, n);
      convert::AdaptCtx c{*m, n, opset, &types, nullptr};
      if (const char* why = step(c, label)) {
        r.notes.push_back(op + " '" + label + "' left: " + why);
        continue;
      }
      if (c.what) done.push_back({label, op, c.what});
    }
    std::string bad = check_consistency(*m);
    if (bad.empty() && !done.empty() && illegal() < before_count) {
      r.rewrites.insert(r.rewrites.end(), done.begin(), done.end());
      return;
    }
    if (!done.empty())
      r.notes.push_back(op + ": " + std::to_string(done.size()) + " rewrite(s) undone: " +
                        (bad.empty() ? "they did not lower the number of illegal nodes (the ops they use are not legal either)"
                                     : "the graph became inconsistent: " + bad));
    keep_alive(*before, std::move(m));
    m = std::move(before);
  }

  // The fusing direction: a profile may accept a fused op the model's opset lacks and not the
  // primitives the export wrote (QNN takes Gelu and not Erf). Raised to an opset where a fusion
  // of the pipeline starts (17 LayerNormalization, 20 Gelu, 23 RMSNormalization/Attention/
  // RotaryEmbedding, 24 Swish) that the profile allows, and optimized again, the fusions make
  // those ops; the raised model, with the rewrite families run on it too, replaces this one only
  // when it leaves fewer illegal nodes (the lowest such opset among the best).
  void raise_and_fuse() {
    size_t now = illegal();
    int64_t have = m->opset_version("");
    int64_t top = std::min(p.opset_hi ? p.opset_hi : convert::newest_opset(), convert::newest_opset());
    if (now == 0 || !have) return;
    std::unique_ptr<Model> best;
    LegaliseResult best_r;
    size_t best_left = now;
    int64_t best_opset = 0;
    for (int64_t to : {17, 20, 23, 24}) {
      if (to <= have || to > top) continue;
      std::unique_ptr<Model> raised = snapshot_model(*m);
      LegaliseResult rr;
      try {
        convert::convert_opset(*raised, to);
        passes::optimize(raised, passes::PipelineOptions{});
      } catch (const Error& e) {
        r.notes.push_back("raising to opset " + std::to_string(to) + " to fuse not done: " + e.what());
        continue;
      }
      Legaliser higher{raised, p, rr};
      higher.families();
      size_t left = higher.illegal();
      if (left >= best_left) continue;
      best = std::move(raised);
      best_r = std::move(rr);
      best_left = left;
      best_opset = to;
    }
    if (!best) return;
    r.rewrites.push_back({"", "", "opset " + std::to_string(have) + " -> " + std::to_string(best_opset) +
                                      " and the passes again, so fusions make ops the target accepts (" +
                                      std::to_string(now) + " -> " + std::to_string(best_left) + " illegal nodes)"});
    r.rewrites.insert(r.rewrites.end(), best_r.rewrites.begin(), best_r.rewrites.end());
    r.notes.insert(r.notes.end(), best_r.notes.begin(), best_r.notes.end());
    r.opset_after = best_opset;
    keep_alive(*best, std::move(m));
    m = std::move(best);
  }

  void run() {
    r.target = p.name;
    r.illegal_before = illegal();
    opset();
    families();
    raise_and_fuse();
    r.after = check_model(*m, p);
    r.illegal_after = r.after.illegal_nodes;
  }

  // Every rewrite family, each kept only when it lowers the illegal count.
  void families() {
    for (const std::string& op : lowerable())
      family(op, [&](convert::AdaptCtx& c, const std::string&) -> const char* {
        const convert::Adapter* row = lowering_row(op, c.target);
        if (!row) return "no lowering at this opset";
        return row->down(c);
      });
    if (op_allowed(p, "MatMul", m->opset_version("")) && op_allowed(p, "Add", m->opset_version("")))
      family("Gemm", [](convert::AdaptCtx& c, const std::string& label) { return gemm_to_matmul(c, label); });
    if (op_allowed(p, "Gemm", m->opset_version("")))
      family("MatMul", [](convert::AdaptCtx& c, const std::string&) { return matmul_to_gemm(c, c.target); });
    if (op_allowed(p, "Reshape", m->opset_version("")))
      family("Flatten", [](convert::AdaptCtx& c, const std::string& label) { return flatten_to_reshape(c, label); });
    if (op_allowed(p, "Mul", m->opset_version("")))
      family("Neg", [](convert::AdaptCtx& c, const std::string& label) { return neg_to_mul(c, label); });
    if (op_allowed(p, "Equal", m->opset_version("")))
      family("Not", [](convert::AdaptCtx& c, const std::string& label) { return not_to_equal(c, label); });
    if (op_allowed(p, "Unsqueeze", m->opset_version("")) && op_allowed(p, "Squeeze", m->opset_version("")))
      for (const char* op : {"Conv", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool"})
        if (const OpEntry* e = p.find("", op); e && takes_rank(*e, 4) && !takes_rank(*e, 3))
          family(op, [](convert::AdaptCtx& c, const std::string& label) { return lift_1d_to_2d(c, label); }, true);
    if (const OpEntry* e = p.find("", "Resize"))
      family("Resize", [e](convert::AdaptCtx& c, const std::string&) { return resize_to_allowed_modes(c, resize_rules(*e)); },
             true);
  }
};

}  // namespace

LegaliseResult legalise(std::unique_ptr<Model>& m, const Profile& p) {
  LegaliseResult r;
  Legaliser{m, p, r}.run();
  return r;
}

std::string legalise_json(const LegaliseResult& r, const std::string& verified) {
  auto field = [](std::string& s, const char* key, const std::string& v, bool first = false) {
    s += first ? "\"" : ",\"";
    s += key;
    s += "\":";
    s += json::string(v);
  };
  auto number = [](std::string& s, const char* key, int64_t v) {
    s += ",\"";
    s += key;
    s += "\":" + std::to_string(v);
  };
  std::string s = "{";
  field(s, "target", r.target, true);
  number(s, "opset_before", r.opset_before);
  number(s, "opset_after", r.opset_after);
  number(s, "illegal_before", static_cast<int64_t>(r.illegal_before));
  number(s, "illegal_after", static_cast<int64_t>(r.illegal_after));
  s += r.after.findings.empty() ? ",\"legal\":true" : ",\"legal\":false";
  field(s, "verified", verified);
  s += ",\"rewrites\":[";
  for (size_t i = 0; i < r.rewrites.size(); ++i) {
    s += i ? ",{" : "{";
    field(s, "node", r.rewrites[i].node, true);
    field(s, "op", r.rewrites[i].op);
    field(s, "what", r.rewrites[i].what);
    s += "}";
  }
  s += "],\"notes\":[";
  for (size_t i = 0; i < r.notes.size(); ++i) s += (i ? "," : "") + json::string(r.notes[i]);
  s += "],\"findings\":[";
  for (size_t i = 0; i < r.after.findings.size(); ++i) {
    const Finding& f = r.after.findings[i];
    s += i ? ",{" : "{";
    field(s, "node", f.node, true);
    field(s, "op", f.op);
    field(s, "graph", f.graph);
    field(s, "rule", f.rule);
    field(s, "message", f.message);
    s += "}";
  }
  return s + "]}";
}

}  // namespace ofg::targets
