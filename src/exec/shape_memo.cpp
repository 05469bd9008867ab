// Nodes computed from tensor shapes and constants only: exports with dynamic axes compute every
// Reshape's target, every mask and every Expand from Shape nodes (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape), about a third of the nodes of a small transformer, and the shapes rarely
// change from one run to the next. Such a node's outputs are remembered with the versions of its
// inputs; a Shape or Size node's output gets a new version only when its value changes, any other
// remembered node's outputs when it runs again. A node whose inputs still have the versions it
// saw takes its remembered outputs: the values the kernels made, so a run that takes them
// computes exactly what it would have computed. Inside a Loop body that reshapes a growing
// tensor, the versions change and the nodes run again.
#include <cstring>

#include "exec/interp.h"

namespace ofg::exec {

namespace {
// Remembered outputs are small shape vectors and masks; larger ones are computed every time.
constexpr size_t kMemoBytes = size_t{64} << 10;

// An op whose output is its input's shape or size (the registry's shape-only fact).
bool is_shape_source(const Model& m, const Node* n) {
  return (Registry::instance().traits(m.str(n->domain), m.str(n->op_type)) & ops::kShapeOnly) != 0;
}

bool same_value(const RValue& a, const RValue& b) {
  if (a.kind != RValue::kTensor || b.kind != RValue::kTensor) return false;
  return a.t.dtype == b.t.dtype && a.t.shape == b.t.shape &&
         std::memcmp(a.t.ptr, b.t.ptr, a.t.nbytes()) == 0;
}
}  // namespace

bool Interpreter::shape_input(const Value* v) {
  if (!v || constant_value(v)) return true;
  const Node* p = v->producer;
  if (!p || v->is_graph_input) return false;
  return is_shape_source(m_, p) || shape_node(p);
}

bool Interpreter::shape_node(const Node* n) {
  NodeFacts* nf = facts(n);
  if (!nf) return false;
  if (nf->shape < 0) {
    bool derived = !is_shape_source(m_, n) && !constant_node(n);
    if (derived && n->attributes.size)
      for (const Attribute& a : n->attributes)
        if (a.g || a.graphs.size) derived = false;  // a subgraph may read anything in scope
    if (derived && (Registry::instance().traits(m_.str(n->domain), m_.str(n->op_type)) & (kRandom | kRandomInTraining)))
      derived = false;
    if (derived && m_.str(n->op_type) == "Constant" && m_.str(n->domain).empty()) derived = false;
    for (const Value* in : n->inputs)
      if (derived && !shape_input(in)) derived = false;
    facts(n)->shape = derived ? 1 : 0;  // the inputs' facts may have grown the table
    return derived;
  }
  return nf->shape == 1;
}

uint32_t Interpreter::version(const Value* v) const {
  return v && v->id < value_version_.size() ? value_version_[v->id] : 0;
}

void Interpreter::bump_version(const Value* v) {
  if (!v) return;
  if (value_version_.size() <= v->id) value_version_.resize(std::max<size_t>(v->id + 1, m_.value_count), 0);
  ++value_version_[v->id];
}

bool Interpreter::recall_shape_outputs(const Node* n, Frame& f) {
  auto it = shape_memos_.find(n);
  if (it == shape_memos_.end()) return false;
  const ShapeMemo& memo = it->second;
  for (uint32_t i = 0; i < n->inputs.size; ++i)
    if (version(n->inputs[i]) != memo.in_versions[i]) return false;
  for (uint32_t i = 0; i < n->outputs.size; ++i)
    if (n->outputs[i] && memo.outs[i].kind != RValue::kNone) store(n->outputs[i], memo.outs[i], f);
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_bytes_);
  ++stats_.nodes_recalled;
  return true;
}

void Interpreter::remember_shape_outputs(const Node* n, const Frame& f) {
  const bool source = is_shape_source(m_, n);
  ShapeMemo& memo = shape_memos_[n];
  std::vector<RValue> outs(n->outputs.size);
  bool fits = true;
  for (uint32_t i = 0; i < n->outputs.size; ++i) {
    const RValue* r = n->outputs[i] ? f.find(n->outputs[i]) : nullptr;
    if (!r) continue;
    outs[i] = *r;
    fits = fits && r->kind == RValue::kTensor && r->t.nbytes() <= kMemoBytes;
    // A shape source's output keeps its version while its value stays the same; anything else
    // that ran again has new outputs for its consumers.
    if (!source || i >= memo.outs.size() || !same_value(memo.outs[i], *r)) bump_version(n->outputs[i]);
  }
  if (!fits) {
    shape_memos_.erase(n);
    return;
  }
  memo.outs = std::move(outs);
  memo.in_versions.resize(n->inputs.size);
  for (uint32_t i = 0; i < n->inputs.size; ++i) memo.in_versions[i] = version(n->inputs[i]);
}

bool Interpreter::shape_source(const Node* n) const { return is_shape_source(m_, n); }

}  // namespace ofg::exec
