// Nodes computed from constants only: found once per interpreter, their outputs kept in the run's
// cache after their first run (see Interpreter::constant_node). The kept values are the ones the
// kernels made, so a run that takes them computes exactly what it would have computed.
#include "exec/interp.h"

namespace ofg::exec {

namespace {
size_t value_bytes(const RValue& v) {
  size_t n = v.kind == RValue::kTensor ? v.t.nbytes() : 0;
  for (const RTensor& t : v.seq) n += t.nbytes();
  return n;
}
}  // namespace

const RValue* ExecCache::kept_output(const Value* v) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kept_.find(v);
  return it == kept_.end() ? nullptr : &it->second;
}

void ExecCache::keep_outputs(const std::vector<std::pair<const Value*, RValue>>& outs) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t bytes = 0;
  for (const auto& o : outs) bytes += value_bytes(o.second);
  if (kept_bytes_ + bytes > kKeptOutputBytes) return;
  for (const auto& o : outs)
    if (kept_.emplace(o.first, o.second).second) kept_bytes_ += value_bytes(o.second);
}

bool Interpreter::constant_value(const Value* v) {
  if (!v) return true;  // an omitted optional input
  if (v->is_constant()) return true;
  if (v->is_graph_input || !v->producer) return false;
  auto it = constant_values_.find(v);
  if (it != constant_values_.end()) return it->second;
  const Node* p = v->producer;
  const bool constant = (m_.str(p->op_type) == "Constant" && m_.str(p->domain).empty()) || constant_node(p);
  constant_values_.emplace(v, constant);
  return constant;
}

bool Interpreter::constant_node(const Node* n) {
  NodeFacts* nf = facts(n);
  if (!nf) return false;  // nothing to keep
  if (nf->constant < 0) {
    // The producers' facts are looked up on the way, which may grow the table: look n up again.
    const int8_t constant = computes_from_constants(n) ? 1 : 0;
    facts(n)->constant = constant;
    return constant == 1;
  }
  return nf->constant == 1;
}

bool Interpreter::computes_from_constants(const Node* n) {
  if (n->attributes.size)
    for (const Attribute& a : n->attributes)
      if (a.g || a.graphs.size) return false;  // a subgraph may read anything in scope
  const uint32_t traits = Registry::instance().traits(m_.str(n->domain), m_.str(n->op_type));
  if (traits & (kRandom | kRandomInTraining)) return false;
  if (m_.str(n->op_type) == "Constant" && m_.str(n->domain).empty()) return false;  // already a view
  for (const Value* in : n->inputs)
    if (!constant_value(in)) return false;
  return true;
}

bool Interpreter::recall_outputs(const Node* n, Frame& f) {
  std::vector<const RValue*> kept;
  for (const Value* v : n->outputs) {
    if (!v) continue;
    const RValue* r = cache_->kept_output(v);
    if (!r) return false;
    kept.push_back(r);
  }
  size_t i = 0;
  for (const Value* v : n->outputs) {
    if (!v) continue;
    const RValue& r = *kept[i++];
    if (r.kind == RValue::kNone) continue;
    RValue* s = f.slot(v);
    if (!s) return false;
    live_bytes_ += value_bytes(r);
    *s = r;
  }
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_bytes_);
  ++stats_.nodes_run;
  return true;
}

void Interpreter::keep_outputs(const Node* n, const Frame& f) {
  std::vector<std::pair<const Value*, RValue>> outs;
  for (const Value* v : n->outputs) {
    if (!v) continue;
    const RValue* r = f.slot(v);
    outs.emplace_back(v, r ? *r : RValue{});
  }
  cache_->keep_outputs(outs);
}

}  // namespace ofg::exec
