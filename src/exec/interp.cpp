#include "exec/interp.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "exec/input_check.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::exec {

// ------------------------------------------------------------------ OpCtx

const RTensor& OpCtx::t(size_t i) const {
  if (i >= in.size() || !in[i] || in[i]->kind == RValue::kNone)
    error("input " + std::to_string(i) + " is missing");
  if (in[i]->kind != RValue::kTensor) error("input " + std::to_string(i) + " is not a tensor");
  return in[i]->t;
}

const void* OpCtx::constant_key(size_t i) const {
  ExecCache* cache = interp.cache();
  const Value* v = i < node.inputs.size ? node.inputs[i] : nullptr;
  if (!cache || !v || !has(i)) return nullptr;
  if (v->is_constant()) return v->initializer->bytes().data;
  const Node* p = v->producer;
  if (p && model.str(p->op_type) == "Constant" && model.str(p->domain).empty()) {
    const Attribute* a = p->attribute(model, "value");
    if (a && a->t) return a->t->bytes().data;
  }
  const RValue* r = in[i];
  if (r->kind == RValue::kTensor && cache->holds(r->t.ptr)) return r->t.ptr;
  // The output of a node computed from constants only that the cache keeps (a DequantizeLinear of
  // quantized weights, a slice of an initializer): it stays where it is while the cache lives.
  const RValue* kept = cache->kept_output(v);
  if (kept && kept->kind == RValue::kTensor && r->kind == RValue::kTensor && kept->t.ptr == r->t.ptr) return kept->t.ptr;
  return nullptr;
}

// Attribute reads forward to the IR's one attribute API (ir/attributes.h).
const Attribute* OpCtx::attr(const char* name) const { return ofg::attr(model, &node, name); }
int64_t OpCtx::attr_i(const char* name, int64_t dflt) const { return attr_int(model, &node, name, dflt); }
float OpCtx::attr_f(const char* name, float dflt) const { return attr_float(model, &node, name, dflt); }
std::string OpCtx::attr_s(const char* name, const std::string& dflt) const {
  return attr_string(model, &node, name, dflt);
}
std::vector<int64_t> OpCtx::attr_ints(const char* name) const {
  std::vector<int64_t> v;
  ofg::attr_ints(model, &node, name, v);
  return v;
}
std::vector<float> OpCtx::attr_floats(const char* name) const {
  std::vector<float> v;
  ofg::attr_floats(model, &node, name, v);
  return v;
}
Graph* OpCtx::attr_g(const char* name) const {
  Graph* g = attr_graph(model, &node, name);
  if (!g) error(std::string("graph attribute '") + name + "' is missing");
  return g;
}
std::string OpCtx::where() const {
  std::string d(model.str(node.domain));
  return "op " + std::string(model.str(node.op_type)) + (d.empty() ? "" : " (domain " + d + ")") + " node '" +
         std::string(model.str(node.name)) + "'";
}
void OpCtx::error(const std::string& what) const { fail(Status::kInvalidModel, where() + ": " + what); }

const RTensor& OpCtx::t_rank(size_t i, int lo, int hi) const {
  const RTensor& x = t(i);
  if (x.rank() < lo || x.rank() > hi)
    error("input " + std::to_string(i) + " must have rank " +
          (lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi)) + ", got shape " +
          shape_str(x.shape));
  return x;
}

const RTensor& OpCtx::t_dims(size_t i, const Shape& dims) const {
  const RTensor& x = t(i);
  if (x.shape != dims) error("input " + std::to_string(i) + " must have shape " + shape_str(dims) + ", got " + shape_str(x.shape));
  return x;
}

const RTensor& OpCtx::t_numel(size_t i, int64_t n) const {
  const RTensor& x = t(i);
  if (x.numel() < n)
    error("input " + std::to_string(i) + " must have at least " + std::to_string(n) + " elements, got shape " +
          shape_str(x.shape));
  return x;
}

int64_t OpCtx::index(int64_t v, int64_t dim, const char* what) const {
  if (v < -dim || v >= dim)
    error(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(-dim) + ", " +
          std::to_string(dim) + ")");
  return v < 0 ? v + dim : v;
}

int64_t OpCtx::size_value(int64_t v, const char* what, int64_t max) const {
  if (v < 0 || v > max)
    error(std::string(what) + " must be in [0, " + std::to_string(max) + "], got " + std::to_string(v));
  return v;
}

void OpCtx::require_inputs(size_t n) const {
  for (size_t i = 0; i < n; ++i)
    if (!has(i)) error("needs at least " + std::to_string(n) + " inputs, input " + std::to_string(i) + " is missing");
}

// ------------------------------------------------------------------ registry

}  // namespace ofg::exec

namespace ofg::ops {

Registry& Registry::instance() {
  static Registry* r = [] {
    auto* reg = new Registry();
    reg->entries_.reserve(256);
#define OFG_OP_FAMILY(name) exec::register_##name##_ops(*reg);
#include "exec/ops/families.h"
#undef OFG_OP_FAMILY
    reg->build_index();
    return reg;
  }();
  return *r;
}

}  // namespace ofg::ops

namespace ofg::exec {

// ------------------------------------------------------------------ frames and plans

const RValue* Interpreter::resident_value(const Value* v) {
  auto it = resident_values_.find(v);  // a node-based map: pointers stay valid as it grows
  if (it != resident_values_.end()) return &it->second;
  if (!v->initializer) return nullptr;
  return &(resident_values_[v] = RValue::tensor(initializer_value(*v->initializer)));
}

void Interpreter::settle_residency(Node* n, const Frame& f) {
  NodeFacts* nf = facts(n);
  if (!nf || nf->resident >= 0) return;
  // A Constant node's value comes from its attributes; a node computed from constants only is
  // resident once the cache keeps its outputs (it may refuse: a budget bounds what it keeps).
  const bool constant_op = n->inputs.size == 0 && m_.str(n->op_type) == "Constant" && m_.str(n->domain).empty();
  bool resident = constant_op || (cache_ && constant_node(n));
  nf = facts(n);  // constant_node may have grown the table
  std::vector<std::pair<const Value*, const RValue*>> outs;
  for (const Value* v : n->outputs) {
    if (!v || !resident) continue;
    const RValue* r = constant_op ? nullptr : cache_->kept_output(v);
    if (constant_op) r = f.slot(v);
    if (!r || r->kind == RValue::kNone) resident = false;
    else outs.emplace_back(v, r);
  }
  nf->resident = resident ? 1 : 0;
  if (resident)
    for (const auto& o : outs) resident_values_[o.first] = *o.second;
}

Interpreter::NodeFacts* Interpreter::facts(const Node* n) {
  for (const Value* v : n->outputs) {
    if (!v) continue;
    if (v->id >= node_facts_.size()) node_facts_.resize(std::max<size_t>(v->id + 1, m_.value_count));
    return &node_facts_[v->id];
  }
  return nullptr;
}

const OpEntry* Interpreter::op_entry(const Node* n, int64_t& opset) {
  NodeFacts* nf = facts(n);
  if (nf && nf->entry) {
    opset = nf->opset;
    return nf->entry;
  }
  const std::string_view domain = m_.str(n->domain);
  opset = m_.opset_version(domain);
  const OpEntry* e = Registry::instance().find(domain, m_.str(n->op_type), opset);
  if (nf && e) {
    nf->entry = e;
    nf->opset = opset;
  }
  return e;
}

const RValue* Frame::find(const Value* v) const {
  for (const Frame* f = this; f; f = f->parent) {
    const RValue* r = f->slot(v);
    if (r && r->kind != RValue::kNone) return r;
  }
  return nullptr;
}

Interpreter::Interpreter(Model& m, ExecCache* cache) : m_(m), cache_(cache) {}

RTensor ExecCache::constant(const Tensor& t) {
  // Keyed by the bytes and told apart by type and dims (tensors may share bytes).
  const void* key = t.bytes().data;
  uint64_t tag = 0x434F4E5354ull ^ static_cast<uint64_t>(t.data_type);  // "CONST"
  for (int64_t d : t.dims) tag = tag * 0x100000001B3ull ^ static_cast<uint64_t>(d);
  // A copy made on an earlier run is used without converting the bytes again.
  if (const uint8_t* p = find(key, tag)) return RTensor::view(t.data_type, Shape(t.dims.begin(), t.dims.end()), p, nullptr);
  RTensor view = from_ir(t);
  if (view.ptr == key || view.nbytes() == 0) return view;
  // from_ir had to copy (unaligned bytes, or bools to normalise): keep that copy instead of
  // making one per run.
  const size_t n = view.nbytes();
  const uint8_t* p = get(key, tag, n, [&](uint8_t* dst) { std::memcpy(dst, view.ptr, n); });
  return RTensor::view(view.dtype, view.shape, p, nullptr);
}

namespace {
size_t value_bytes(const RValue& v) {
  if (v.kind == RValue::kTensor) return v.t.hold ? v.t.nbytes() : 0;
  size_t n = 0;
  for (auto& t : v.seq) n += t.nbytes();
  return n;
}
}  // namespace

void Interpreter::set_plan_fusion(bool on) {
  if (on == fuse_) return;
  fuse_ = on;
  plans_.clear();
  value_slot_.clear();  // numbered again as the graphs are planned again
}

const Interpreter::Plan& Interpreter::plan_for(Graph* g) {
  auto it = plans_.find(g);
  if (it != plans_.end()) return it->second;
  Plan p;
  for (Node* n = g->first; n; n = n->next) p.order.push_back(n);
  if (value_slot_.size() < m_.value_count) value_slot_.resize(m_.value_count, -1);
  auto add_slot = [&](const Value* v) {
    if (v && v->graph == g && v->id < value_slot_.size() && value_slot_[v->id] < 0)
      value_slot_[v->id] = static_cast<int32_t>(p.slots++);
  };
  for (const ValueInfo& vi : g->inputs) add_slot(vi.value);
  for (Node* n : p.order)
    for (const Value* v : n->outputs) add_slot(v);
  p.chain_at.assign(p.order.size(), -1);
  // run_at[i]: where order[i] runs, the position of its chain's last node when it has one (what
  // it reads must live until then).
  std::vector<size_t> run_at(p.order.size());
  for (size_t i = 0; i < p.order.size(); ++i) run_at[i] = i;
  if (fuse_) {
    p.chains = find_chains(m_, g, p.order);
    // A chain computed from constants only runs once with a cache (its nodes' outputs are kept,
    // exec/constant_nodes.cpp): left to that. One computed from shapes (the head is, so all its
    // nodes are) is remembered node by node (exec/shape_memo.cpp).
    p.chains.erase(std::remove_if(p.chains.begin(), p.chains.end(),
                                  [&](const FusedChain& c) { return (cache_ && constant_node(c.head())) || shape_node(c.head()); }),
                   p.chains.end());
    std::unordered_map<const Node*, size_t> pos;
    for (size_t i = 0; i < p.order.size(); ++i) pos[p.order[i]] = i;
    for (size_t k = 0; k < p.chains.size(); ++k) {
      const size_t tail = pos[p.chains[k].nodes.back()];
      for (Node* n : p.chains[k].nodes) {
        p.chain_at[pos[n]] = -2;
        run_at[pos[n]] = tail;
      }
      p.chain_at[tail] = static_cast<int32_t>(k);
    }
  }
  std::unordered_map<const Value*, size_t> last;
  std::vector<Value*> captured;
  for (size_t i = 0; i < p.order.size(); ++i) {
    Node* n = p.order[i];
    auto use = [&](const Value* v) {
      size_t& l = last[v];
      l = std::max(l, run_at[i]);
    };
    for (Value* v : n->inputs)
      if (v) use(v);
    // Values a subgraph reads from this scope are inputs of the node that owns the subgraph.
    captured.clear();
    append_subgraph_captures(n, captured);
    for (const Value* v : captured) use(v);
  }
  // Captures of every subgraph of g, gathered above node by node: placements skip them.
  std::vector<Value*> all_captured;
  for (Node* n : p.order) append_subgraph_captures(n, all_captured);
  plan_placements(p.order, all_captured);
  p.release_after.resize(p.order.size());
  for (auto& kv : last) {
    const Value* v = kv.first;
    if (v->graph != g || v->is_graph_output()) continue;
    p.release_after[kv.second].push_back(v);
  }
  return plans_.emplace(g, std::move(p)).first->second;
}

void Interpreter::store(Value* v, RValue r, Frame& f) {
  RValue* s = f.slot(v);
  if (!s) fail(Status::kInvalidModel, "value '" + std::string(m_.str(v->name)) + "' is not defined by the graph that computes it");
  live_bytes_ += value_bytes(r);
  if (s->kind != RValue::kNone) live_bytes_ -= std::min(live_bytes_, value_bytes(*s));
  *s = std::move(r);
}

void Interpreter::exec_node(Node* n, Frame& f) {
  const bool keep = cache_ && constant_node(n);
  if (keep && recall_outputs(n, f)) return;
  std::string_view domain = m_.str(n->domain);
  std::string_view op = m_.str(n->op_type);
  int64_t opset = 0;
  const OpEntry* e = op_entry(n, opset);
  if (!e)
    fail(Status::kUnsupported, "unsupported op " + std::string(op) + ", domain " +
                                   (domain.empty() ? std::string("ai.onnx") : std::string(domain)) + ", opset " +
                                   std::to_string(opset) + " (node '" + std::string(m_.str(n->name)) + "')");
  OpCtx ctx{*this, m_, *n, opset, {}, {}, &f};
  // Every op has at least one output; kernels write out[0] without looking.
  if (n->outputs.size == 0) fail(Status::kInvalidModel, ctx.where() + ": the node has no outputs");
  SpareVectors::Lease lease(spare_, ctx);
  ctx.in.reserve(n->inputs.size);
  std::vector<RValue> promoted;  // reserved once a half input shows up: ctx.in points into it
  bool had_half = false;
  int32_t half_type = 0;
  for (Value* v : n->inputs) {
    if (!v) {
      ctx.in.push_back(nullptr);
      continue;
    }
    const RValue* rv = value_of(v, f);
    if (!rv) fail(Status::kInvalidModel, ctx.where() + ": input '" + std::string(m_.str(v->name)) + "' has no value");
    if (e->promote_half && rv->kind == RValue::kTensor && (rv->t.dtype == kFloat16 || rv->t.dtype == kBfloat16)) {
      had_half = true;
      half_type = rv->t.dtype;
      if (promoted.capacity() == 0) promoted.reserve(n->inputs.size);
      promoted.push_back(RValue::tensor(cast_tensor(rv->t, kFloat)));
      ctx.in.push_back(&promoted.back());
    } else {
      ctx.in.push_back(rv);
    }
  }
  ctx.out.resize(n->outputs.size);
  try {
    e->fn(ctx);
  } catch (const Error& err) {
    // Errors raised below the kernel (allocation budget, checked size arithmetic, conversions)
    // do not know the node: name it, once (errors from OpCtx::error already start with it).
    std::string at = ctx.where();
    if (std::string_view(err.what()).substr(0, at.size()) == at) throw;
    fail(err.status(), at + ": " + err.what());
  }
  for (uint32_t i = 0; i < n->outputs.size; ++i) {
    Value* v = n->outputs[i];
    if (!v) continue;
    RValue& r = ctx.out[i];
    if (r.kind == RValue::kNone) continue;  // optional output the op did not produce
    if (had_half && r.kind == RValue::kTensor && r.t.dtype == kFloat) r.t = cast_tensor(r.t, half_type);
    store(v, std::move(r), f);
  }
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_bytes_);
  ++stats_.nodes_run;
  if (keep) keep_outputs(n, f);
}

std::vector<RValue> Interpreter::run_node(Node* n, const std::vector<RValue>& inputs) {
  if (node_slots_.size() < m_.value_count) node_slots_.assign(m_.value_count, -1);
  Frame f;
  f.slot_of = &node_slots_;
  // Slots for the node's values only, taken back however the node ends.
  std::vector<uint32_t> used;
  struct Reset {
    std::vector<int32_t>& slots;
    const std::vector<uint32_t>& used;
    ~Reset() {
      for (uint32_t id : used) slots[id] = -1;
    }
  } reset{node_slots_, used};
  auto add = [&](const Value* v) {
    if (!v || v->id >= node_slots_.size() || node_slots_[v->id] >= 0) return;
    node_slots_[v->id] = static_cast<int32_t>(f.slots.size());
    f.slots.emplace_back();
    used.push_back(v->id);
  };
  for (const Value* v : n->inputs) add(v);
  for (const Value* v : n->outputs) add(v);
  for (uint32_t i = 0; i < n->inputs.size && i < inputs.size(); ++i)
    if (RValue* s = n->inputs[i] ? f.slot(n->inputs[i]) : nullptr) *s = inputs[i];
  exec_node(n, f);
  std::vector<RValue> out(n->outputs.size);
  for (uint32_t i = 0; i < n->outputs.size; ++i)
    if (RValue* s = n->outputs[i] ? f.slot(n->outputs[i]) : nullptr) out[i] = std::move(*s);
  return out;
}

std::vector<RValue> Interpreter::run_graph(Graph* g, const std::vector<RValue>& inputs, Frame* parent) {
  const Plan& p = plan_for(g);
  Frame f;
  f.parent = parent;
  f.graph = g;
  f.slot_of = &value_slot_;
  f.slots.resize(p.slots);
  // Initializers are not bound here: a lookup that finds no value takes the resident one
  // (resident_value), made once per interpreter instead of once per run of the graph.
  for (size_t i = 0; i < g->inputs.size && i < inputs.size(); ++i)
    if (RValue* s = f.slot(g->inputs[i].value)) *s = inputs[i];
  for (size_t i = 0; i < p.order.size(); ++i) {
    const int32_t k = p.chain_at[i];
    if (k == -1) {
      Node* n = p.order[i];
      const NodeFacts* nf = facts(n);
      if (nf && nf->resident == 1) {
        ++stats_.nodes_resident;
      } else {
        // A Shape or Size node always runs (its input may have a new shape): remembering its
        // output tells whether that changed.
        const bool source = shape_source(n), derived = !source && shape_node(n);
        if (!derived || !recall_shape_outputs(n, f)) {
          exec_node(n, f);
          settle_residency(n, f);
          if (source || derived) remember_shape_outputs(n, f);
        }
      }
    } else if (k >= 0) {
      run_chain(p.chains[k], f);
    }
    for (const Value* v : p.release_after[i]) {
      RValue* s = f.slot(v);
      if (!s || s->kind == RValue::kNone) continue;
      live_bytes_ -= std::min(live_bytes_, value_bytes(*s));
      *s = RValue{};
      ++stats_.freed_values;
    }
  }
  std::vector<RValue> out;
  for (const ValueInfo& vi : g->outputs) {
    const RValue* r = value_of(vi.value, f);
    if (!r) fail(Status::kInvalidModel, "graph output '" + std::string(m_.str(vi.value->name)) + "' was not computed");
    out.push_back(*r);
  }
  return out;
}

std::vector<RValue> Interpreter::run(const std::vector<std::pair<std::string, RValue>>& inputs) {
  Graph* g = m_.graph;
  std::vector<RValue> bound(g->inputs.size);
  std::vector<bool> given(g->inputs.size, false);
  for (auto& kv : inputs) {
    bool found = false;
    for (uint32_t i = 0; i < g->inputs.size; ++i) {
      if (m_.str(g->inputs[i].value->name) == kv.first) {
        bound[i] = kv.second;
        given[i] = true;
        found = true;
      }
    }
    if (!found)
      fail(Status::kInvalidArgument, "the model has no input named '" + kv.first + "' (its inputs: " + input_names_text(m_) + ")");
  }
  // What the caller gives must fit what the model declares, before any node runs (input_check.h).
  std::vector<std::pair<size_t, const RValue*>> to_check;
  for (uint32_t i = 0; i < g->inputs.size; ++i)
    if (given[i]) to_check.emplace_back(i, &bound[i]);
  check_inputs(m_, to_check);
  for (uint32_t i = 0; i < g->inputs.size; ++i) {
    Value* v = g->inputs[i].value;
    if (given[i]) continue;
    if (v->initializer) {
      bound[i] = RValue::tensor(initializer_value(*v->initializer));
      continue;
    }
    // An optional-typed input left out is an empty optional.
    Type* t = g->inputs[i].type ? g->inputs[i].type : v->type;
    if (t && t->kind == Type::kOptional) {
      bound[i].kind = RValue::kOptionalNone;
      continue;
    }
    fail(Status::kInvalidArgument, "no value given for model input '" + std::string(m_.str(v->name)) + "'");
  }
  live_bytes_ = 0;
  stats_ = RunStats{};
  // run_graph binds the caller's inputs after the initializers, so they override defaults.
  return run_graph(g, bound, nullptr);
}

}  // namespace ofg::exec
