#include "verify/inputs.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "exec/tensor.h"
#include "ir/graph_ops.h"
#include "ops/registry.h"

namespace ofg::verify {

using exec::RTensor;
using exec::RValue;

namespace {

// Sizes suggested by the graph are taken from this range: a 1 says nothing, and larger sizes
// would make inputs too big to run quickly.
constexpr int64_t kMinHint = 2, kMaxHint = 4096;
// How many of the graph's sizes are tried (most frequent first) before the powers of two.
constexpr size_t kMaxGraphSizes = 8;
// Candidate sets whose inputs hold more elements than this are skipped.
constexpr int64_t kMaxInputElements = int64_t{1} << 24;
constexpr int64_t kMaxTotalElements = int64_t{1} << 25;
// Constant integer tensors read for hints (shape vectors, compared scalars) are small.
constexpr int64_t kMaxConstantElements = 64;

// The integer contents of a small constant value (an initializer or a Constant node's output;
// float values saturate to the int64 range); false when it is not one.
bool small_constant(Model& m, const Value* v, std::vector<int64_t>& out) {
  const Tensor* t = v->initializer;
  if (!t && v->producer && m.str(v->producer->op_type) == "Constant" && m.str(v->producer->domain).empty()) {
    for (const Attribute& a : v->producer->attributes) {
      std::string_view name = m.str(a.name);
      if (name == "value" && a.t) t = a.t;
      else if (name == "value_int") { out.assign(1, a.i); return true; }
      else if (name == "value_ints") { out.assign(a.ints.begin(), a.ints.end()); return true; }
      else if (name == "value_float") { out.assign(1, exec::saturate_cast<int64_t>(a.f)); return true; }
    }
  }
  if (!t || t->recipe || !exec::is_supported_type(t->data_type) || t->numel() > kMaxConstantElements) return false;
  RTensor x = exec::from_ir(*t);
  out.clear();
  for (int64_t i = 0; i < x.numel(); ++i)
    out.push_back(exec::is_float_type(x.dtype) ? exec::saturate_cast<int64_t>(exec::get_f64(x, i)) : exec::get_i64(x, i));
  return true;
}

// Follows an integer input through ops that pass its values on unchanged and collects what it
// meets: constants it is compared with, and the size of a table it indexes.
void trace_integer_input(Model& m, const Value* v, int depth, std::vector<int64_t>& compared, int64_t& bound) {
  if (depth > 6) return;
  for (const Use& u : v->uses) {
    Node* n = u.node;
    if (!m.str(n->domain).empty()) continue;
    std::string_view op = m.str(n->op_type);
    const ops::OpFacts& facts = ops::Registry::instance().facts("", op);
    if (facts.elementwise == ops::Elementwise::Comparison && n->inputs.size == 2) {
      const Value* other = n->inputs[1 - u.index];
      std::vector<int64_t> c;
      if (other && small_constant(m, other, c))
        for (int64_t x : c)
          if (std::find(compared.begin(), compared.end(), x) == compared.end()) compared.push_back(x);
    } else if (op == "Gather" && u.index == 1 && n->inputs.size >= 2 && n->inputs[0]) {
      // Indices of a table: stay inside its axis.
      const Value* data = n->inputs[0];
      const Attribute* axis_attr = n->attribute(m, "axis");
      int64_t axis = axis_attr ? axis_attr->int_or(0) : 0;
      int64_t size = 0;
      if (data->initializer) {
        const Tensor* t = data->initializer;
        if (axis < 0) axis += static_cast<int64_t>(t->dims.size);
        if (axis >= 0 && axis < static_cast<int64_t>(t->dims.size)) size = t->dims[axis];
      } else if (data->type && data->type->has_shape) {
        if (axis < 0) axis += static_cast<int64_t>(data->type->dims.size);
        if (axis >= 0 && axis < static_cast<int64_t>(data->type->dims.size) && data->type->dims[axis].is_static())
          size = data->type->dims[axis].value;
      }
      if (size > 0 && (bound == 0 || size < bound)) bound = size;
    } else if (facts.passes_input >= 0 && u.index == static_cast<uint32_t>(facts.passes_input)) {
      for (const Value* o : n->outputs)
        if (o) trace_integer_input(m, o, depth + 1, compared, bound);
    }
  }
}

// Sizes the graph's constants suggest, most frequent first.
std::vector<int64_t> graph_sizes(Model& m) {
  std::map<int64_t, int> freq;
  auto note = [&](int64_t d) {
    if (d >= kMinHint && d <= kMaxHint) ++freq[d];
  };
  for_each_graph(m.graph, [&](Graph* g) {
    for (Value* v : g->initializers)
      for (int64_t d : v->initializer->dims) note(d);
    for (const ValueInfo& vi : g->inputs) {
      const Type* t = vi.type ? vi.type : vi.value->type;
      if (t && t->kind == Type::kTensor && t->has_shape)
        for (const Dim& d : t->dims)
          if (d.is_static()) note(d.value);
    }
    for (Node* n = g->first; n; n = n->next)
      for (const Value* o : n->outputs) {
        std::vector<int64_t> c;
        if (o && m.str(n->op_type) == "Constant" && small_constant(m, o, c))
          for (int64_t x : c) note(x);
      }
  });
  std::vector<std::pair<int, int64_t>> by_freq;
  for (auto& kv : freq) by_freq.push_back({-kv.second, kv.first});
  std::sort(by_freq.begin(), by_freq.end());
  std::vector<int64_t> out;
  for (size_t i = 0; i < by_freq.size() && i < kMaxGraphSizes; ++i) out.push_back(by_freq[i].second);
  return out;
}

}  // namespace

InputPlanner::InputPlanner(Model& m, const Options& o) : o_(o) {
  std::map<std::string, int> var_by_symbol;
  for (const ValueInfo& vi : m.graph->inputs) {
    Value* v = vi.value;
    if (v->initializer) continue;
    const Type* t = vi.type ? vi.type : v->type;
    Input in;
    in.name = std::string(m.str(v->name));
    if (!t || t->kind != Type::kTensor || !t->has_elem_type)
      fail(Status::kUnsupported, "verify: input '" + in.name + "' is not a tensor of known element type");
    in.elem_type = t->elem_type;
    if (!exec::is_supported_type(in.elem_type))
      fail(Status::kUnsupported, "verify: input '" + in.name + "' has element type " + dtype_name(in.elem_type));
    auto given = o.input_shapes.find(in.name);
    if (given != o.input_shapes.end()) {
      for (int64_t d : given->second) in.dims.push_back(DimSlot{d, -1});
    } else if (t->has_shape) {
      for (uint32_t axis = 0; axis < t->dims.size; ++axis) {
        const Dim& d = t->dims[axis];
        if (d.is_static() && d.value >= 0) {
          in.dims.push_back(DimSlot{d.value, -1});
          continue;
        }
        int var = -1;
        if (d.is_symbolic()) {
          std::string sym(m.str(d.param));
          auto it = var_by_symbol.find(sym);
          if (it != var_by_symbol.end()) var = it->second;
          else {
            var = static_cast<int>(vars_.size());
            var_by_symbol[sym] = var;
            Var nv;
            nv.label = sym;
            auto fixed = o.dims.find(sym);
            if (fixed != o.dims.end()) nv.fixed = fixed->second;
            vars_.push_back(nv);
          }
        } else {
          var = static_cast<int>(vars_.size());
          Var nv;
          nv.label = in.name + "[" + std::to_string(axis) + "]";
          nv.unnamed = true;
          vars_.push_back(nv);
        }
        // The first axis of a batched input is its batch: small sizes come first for it.
        if (axis == 0 && t->dims.size >= 2) vars_[var].batch_like = true;
        in.dims.push_back(DimSlot{-1, var});
      }
    }
    if (!exec::is_float_type(in.elem_type) && in.elem_type != kBool)
      trace_integer_input(m, v, 0, in.compared_with, in.index_bound);
    inputs_.push_back(std::move(in));
  }
  // Relations between the symbolic dims of the inputs, solved for some of them from the others.
  std::vector<std::string> fixed, symbols;
  for (const auto& kv : var_by_symbol) {
    symbols.push_back(kv.first);
    if (vars_[kv.second].fixed >= 0) fixed.push_back(kv.first);
  }
  if (!var_by_symbol.empty()) {
    auto solver = std::make_unique<DimSolver>(derive_dim_relations(m), fixed, symbols);
    bool relates_inputs = false;
    for (const Var& v : vars_) {
      const int k = v.unnamed ? -1 : solver->index(v.label);
      relates_inputs |= k >= 0 && solver->determined(static_cast<size_t>(k));
    }
    if (relates_inputs) solver_ = std::move(solver);
  }
  plan_tries(graph_sizes(m));
}

bool InputPlanner::apply_relations(Try& t) const {
  std::vector<int64_t> values(solver_->names().size(), -1);
  std::vector<int> at(vars_.size(), -1);  // each var's number in the solver's names
  for (size_t i = 0; i < vars_.size(); ++i) {
    if (!vars_[i].unnamed) at[i] = solver_->index(vars_[i].label);
    if (at[i] >= 0) values[at[i]] = t.var_values[i];
  }
  if (!solver_->solve(values)) return false;
  for (size_t i = 0; i < vars_.size(); ++i)
    if (at[i] >= 0) t.var_values[i] = values[at[i]];
  return true;
}

void InputPlanner::plan_tries(const std::vector<int64_t>& hints) {
  std::vector<int64_t> sizes{o_.default_dim};
  for (int64_t h : hints) sizes.push_back(h);
  for (int64_t p : {1, 4, 8, 16, 32, 64, 128, 256, 512, 1024}) sizes.push_back(p);
  std::vector<int64_t> uniq;
  for (int64_t s : sizes)
    if (std::find(uniq.begin(), uniq.end(), s) == uniq.end()) uniq.push_back(s);

  size_t constant_choices = 1;
  for (const Input& in : inputs_) constant_choices = std::max(constant_choices, in.compared_with.size());
  constant_choices = std::min<size_t>(constant_choices, 3);

  std::set<std::vector<int64_t>> seen;
  // batch-like vars take `batch`, the others `other` (`distinct`: other, other + 1, ... in order
  // for the named ones); `related`: then the vars the graph's relations determine are solved.
  auto add = [&](int64_t batch, int64_t other, bool related, bool distinct) {
    Try t;
    int64_t next = other;
    for (const Var& v : vars_) {
      int64_t size = v.fixed >= 0 ? v.fixed : v.batch_like ? batch : other;
      if (distinct && v.fixed < 0 && !v.batch_like && !v.unnamed) size = next++;
      t.var_values.push_back(size);
    }
    if (related && !apply_relations(t)) return;
    t.related = related;
    if (!seen.insert(t.var_values).second) return;
    int64_t total = 0;
    for (const Input& in : inputs_) {
      int64_t n = 1;
      for (int64_t d : shape_of(in, t)) n = std::min(kMaxInputElements + 1, n * std::max<int64_t>(d, 1));
      if (n > kMaxInputElements) return;
      total += n;
    }
    if (total > kMaxTotalElements) return;
    for (size_t c = 0; c < constant_choices; ++c) {
      t.constant_choice = c;
      tries_.push_back(t);
    }
  };
  if (solver_) {
    // Sizes above 1 that differ: a mask over seq = 1 masks nothing, and two dims of one size
    // hide a transposition.
    add(o_.default_dim, o_.default_dim + 1, true, true);
    add(o_.default_dim, o_.default_dim, true, false);
  }
  // The sizes as before (a relation read wrongly must not cost the inputs that worked), then the
  // same sizes with the relations.
  for (bool related : {false, true}) {
    if (related && !solver_) break;
    add(o_.default_dim, o_.default_dim, related, false);
    for (size_t i = 1; i < uniq.size(); ++i) {
      add(o_.default_dim, uniq[i], related, false);
      add(uniq[i], uniq[i], related, false);
    }
  }
  if (tries_.empty()) {  // every candidate was too large: the simplest one all the same
    Try t;
    for (const Var& v : vars_) t.var_values.push_back(v.fixed >= 0 ? v.fixed : o_.default_dim);
    tries_.push_back(t);
  }
  if (tries_.size() > static_cast<size_t>(std::max(1, o_.max_tries))) tries_.resize(std::max(1, o_.max_tries));
}

std::vector<int64_t> InputPlanner::shape_of(const Input& in, const Try& t) const {
  std::vector<int64_t> s;
  for (const DimSlot& d : in.dims) s.push_back(d.var >= 0 ? t.var_values[d.var] : d.value);
  return s;
}

NamedValues InputPlanner::make(size_t k, uint64_t seed) const {
  const Try& t = tries_.at(k);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  NamedValues out;
  for (const Input& in : inputs_) {
    RTensor x = RTensor::alloc(in.elem_type, shape_of(in, t));
    int64_t n = x.numel();
    if (exec::is_float_type(in.elem_type)) {
      for (int64_t i = 0; i < n; ++i) exec::set_f64(x, i, normal(rng));
    } else if (in.elem_type == kBool) {
      for (int64_t i = 0; i < n; ++i) x.data<bool>()[i] = (rng() & 1) != 0;
    } else if (!in.compared_with.empty()) {
      int64_t c = in.compared_with[t.constant_choice % in.compared_with.size()];
      for (int64_t i = 0; i < n; ++i) exec::set_f64(x, i, static_cast<double>(c));
    } else {
      int64_t hi = in.index_bound > 0 ? in.index_bound : o_.int_high;
      for (int64_t i = 0; i < n; ++i) exec::set_f64(x, i, static_cast<double>(rng() % static_cast<uint64_t>(hi)));
    }
    out.emplace_back(in.name, RValue::tensor(x));
  }
  return out;
}

std::string InputPlanner::describe(size_t k) const {
  const Try& t = tries_.at(k);
  std::string s;
  for (size_t i = 0; i < vars_.size(); ++i)
    s += (s.empty() ? "" : ", ") + vars_[i].label + "=" + std::to_string(t.var_values[i]);
  for (const Input& in : inputs_)
    if (!in.compared_with.empty())
      s += (s.empty() ? "" : ", ") + in.name + "=" +
           std::to_string(in.compared_with[t.constant_choice % in.compared_with.size()]);
  if (t.related) s += " (following the graph: " + relations() + ")";
  return s;
}

}  // namespace ofg::verify
