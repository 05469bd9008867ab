#include "exec/fusion.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "exec/fused_elementwise.h"
#include "exec/interp.h"
#include "ir/graph_ops.h"

namespace ofg::exec {
namespace {

// What the planner knows of g's values: consumers (a node once per input slot naming the value)
// and the values subgraphs read.
struct Uses {
  const Model& m;
  Graph* g;
  std::unordered_map<const Value*, std::vector<Node*>> users;
  std::unordered_set<const Value*> captured;

  // v stays inside a chain when it has exactly n consumer slots, is no graph output and no
  // subgraph reads it.
  bool inner(const Value* v, size_t n) const {
    if (!v || v->graph != g || v->is_graph_output() || captured.count(v)) return false;
    auto it = users.find(v);
    return it != users.end() && it->second.size() == n;
  }
  Node* only_user(const Value* v) const { return users.at(v).front(); }

  // A default-domain node of this type that the registry runs at the model's opset, with only
  // its first output named (BatchNormalization may list its training outputs as "").
  bool is(const Node* n, std::string_view type) const { return m.str(n->op_type) == type && entry(n); }
  // The registry entry of a default-domain node as is() admits it, whatever its type; null otherwise.
  const OpEntry* entry(const Node* n) const {
    const std::string_view d = m.str(n->domain);
    if (!d.empty() && d != "ai.onnx") return nullptr;
    if (n->outputs.size == 0 || !n->outputs[0]) return nullptr;
    for (uint32_t i = 1; i < n->outputs.size; ++i)
      if (n->outputs[i]) return nullptr;
    return Registry::instance().find("", m.str(n->op_type), m.opset_version(d));
  }
};

// An initializer that is no graph input, or the output of a Constant node (exporters give
// Clip its bounds that way): computed before any node that reads it, the same on every run.
bool is_constant(const Model& m, const Value* v) {
  if (v->is_constant()) return true;
  const Node* p = v->producer;
  const std::string_view d = p ? m.str(p->domain) : std::string_view();
  return p && p->inputs.size == 0 && (d.empty() || d == "ai.onnx") && m.str(p->op_type) == "Constant";
}

bool constant_or_absent(const Model& m, const Node* n, uint32_t i) {
  return i >= n->inputs.size || !n->inputs[i] || is_constant(m, n->inputs[i]);
}

bool is_fusable_bn(const Uses& u, const Node* n) {
  if (!u.is(n, "BatchNormalization") || n->inputs.size < 5) return false;
  for (uint32_t i = 1; i < 5; ++i)
    if (!n->inputs[i] || !is_constant(u.m, n->inputs[i])) return false;
  const Attribute* tm = n->attribute(u.m, "training_mode");
  return !tm || tm->int_or(0) == 0;
}

// An activation the registry's facts let end a Conv / BatchNormalization chain.
bool is_fusable_act(const Uses& u, const Node* n) {
  const OpEntry* e = u.entry(n);
  switch (e ? e->facts.fusable_act : FusableAct::No) {
    case FusableAct::No: return false;
    case FusableAct::Plain: return n->inputs.size == 1;
    case FusableAct::ConstantBounds:
      // Bounds read when the chain runs must not be computed later than its first node.
      return constant_or_absent(u.m, n, 1) && constant_or_absent(u.m, n, 2) && n->inputs.size <= 3;
  }
  return false;
}

// From value x (the chain's current result), the activation, or the activation and the Mul of
// x * act(x), that consume it; false when neither is there.
bool extend_with_act(const Uses& u, const Value* x, FusedChain& c) {
  if (u.inner(x, 1)) {
    Node* a = u.only_user(x);
    if (!is_fusable_act(u, a) || a->inputs[0] != x) return false;
    c.act = a;
    c.nodes.push_back(a);
    return true;
  }
  if (!u.inner(x, 2)) return false;
  Node* a = u.users.at(x)[0];
  Node* mul = u.users.at(x)[1];
  if (!is_fusable_act(u, a)) std::swap(a, mul);
  if (!is_fusable_act(u, a) || a->inputs[0] != x || !u.is(mul, "Mul") || mul->inputs.size != 2) return false;
  const Value* ax = a->outputs[0];
  if (!u.inner(ax, 1) || u.only_user(ax) != mul) return false;
  if (!((mul->inputs[0] == x && mul->inputs[1] == ax) || (mul->inputs[0] == ax && mul->inputs[1] == x))) return false;
  c.act = a;
  c.gate = mul;
  c.act_first = mul->inputs[0] == ax;
  c.nodes.push_back(a);
  c.nodes.push_back(mul);
  return true;
}

// The node reading v, when v has one consumer slot and stays inside a chain.
Node* sole_user(const Uses& u, const Value* v) { return v && u.inner(v, 1) ? u.only_user(v) : nullptr; }

// Binary node n of type t reads v and a constant (either side when `either`, else v first).
bool binary_with_constant(const Uses& u, const Node* n, const char* t, const Value* v, bool either) {
  if (!n || !u.is(n, t) || n->inputs.size != 2 || !n->inputs[0] || !n->inputs[1]) return false;
  if (n->inputs[0] == v) return is_constant(u.m, n->inputs[1]);
  return either && n->inputs[1] == v && is_constant(u.m, n->inputs[0]);
}

// A ReduceMean over one axis given as attribute or constant input, keeping the dim (which axis
// is checked when the chain runs, against the rank).
bool is_row_mean(const Uses& u, const Node* n) {
  if (!n || !u.is(n, "ReduceMean") || n->inputs.size < 1 || !n->inputs[0]) return false;
  const Attribute* keep = n->attribute(u.m, "keepdims");
  if (keep && keep->int_or(1) != 1) return false;
  if (u.m.opset_version("") >= 18) return n->inputs.size == 2 && n->inputs[1] && is_constant(u.m, n->inputs[1]);
  const Attribute* axes = n->attribute(u.m, "axes");
  return n->inputs.size == 1 && axes && axes->ints.size == 1;
}

// The layer norm pattern from its first ReduceMean (fusion.h); an empty chain when it is not.
FusedChain layer_norm_chain(const Uses& u, Node* mean) {
  FusedChain c;
  if (!is_row_mean(u, mean)) return c;
  const Value* x = mean->inputs[0];
  Node* sub = sole_user(u, mean->outputs[0]);
  if (!sub || !u.is(sub, "Sub") || sub->inputs.size != 2 || sub->inputs[0] != x || sub->inputs[1] != mean->outputs[0]) return c;
  const Value* d = sub->outputs[0];
  if (!u.inner(d, 2)) return c;
  Node* pow = u.users.at(d)[0];
  Node* div = u.users.at(d)[1];
  if (!u.is(pow, "Pow")) std::swap(pow, div);
  if (!binary_with_constant(u, pow, "Pow", d, false)) return c;
  Node* var = sole_user(u, pow->outputs[0]);
  if (!is_row_mean(u, var) || var->inputs[0] != pow->outputs[0]) return c;
  Node* eps = sole_user(u, var->outputs[0]);
  if (!binary_with_constant(u, eps, "Add", var->outputs[0], true)) return c;
  Node* sqrt = sole_user(u, eps->outputs[0]);
  if (!sqrt || !u.is(sqrt, "Sqrt") || sqrt->inputs.size != 1) return c;
  if (sole_user(u, sqrt->outputs[0]) != div || !u.is(div, "Div") || div->inputs.size != 2 || div->inputs[0] != d ||
      div->inputs[1] != sqrt->outputs[0])
    return c;
  c.nodes = {mean, sub, pow, var, eps, sqrt, div};
  Node* mul = sole_user(u, div->outputs[0]);
  if (binary_with_constant(u, mul, "Mul", div->outputs[0], true)) {
    c.nodes.push_back(mul);
    Node* add = sole_user(u, mul->outputs[0]);
    if (binary_with_constant(u, add, "Add", mul->outputs[0], true)) c.nodes.push_back(add);
  }
  c.layer_norm = true;
  return c;
}

// The longest chain starting at n, or one of a single node (not a chain).
FusedChain chain_from(const Uses& u, Node* n) {
  FusedChain c;
  c.nodes.push_back(n);
  const Value* x = n->outputs.size ? n->outputs[0] : nullptr;
  if (u.is(n, "Conv") && n->inputs.size >= 2 && n->inputs[0] && n->inputs[1]) {
    c.conv = n;
    if (u.inner(x, 1) && is_fusable_bn(u, u.only_user(x)) && u.only_user(x)->inputs[0] == x) {
      c.bn = u.only_user(x);
      c.nodes.push_back(c.bn);
      x = c.bn->outputs[0];
    }
    extend_with_act(u, x, c);
  } else if (is_fusable_bn(u, n) && n->inputs[0]) {
    c.bn = n;
    extend_with_act(u, x, c);
  } else if (u.is(n, "ReduceMean")) {
    FusedChain ln = layer_norm_chain(u, n);
    if (ln.layer_norm) return ln;
  } else if (is_fusable_act(u, n) && n->inputs[0]) {
    // Only the gate pattern: a lone activation gains nothing.
    const Value* in = n->inputs[0];
    FusedChain g;
    if (extend_with_act(u, in, g) && g.gate && g.act == n) return g;
  }
  return c;
}

// Ops whose float kernel computes each output element from the elements at the same place (the
// table's binary and unary entries: the registry's chainable elementwise facts), so a chain of
// them can run block by block.
bool is_elementwise(const Uses& u, const Node* n) {
  const OpEntry* e = u.entry(n);
  if (!e || !e->facts.chainable) return false;
  if (e->facts.elementwise == ops::Elementwise::Binary) return n->inputs.size == 2 && n->inputs[0] && n->inputs[1];
  if (e->facts.elementwise == ops::Elementwise::Unary) return n->inputs.size == 1 && n->inputs[0];
  return false;
}

// The longest elementwise chain from order[i]: the following nodes that read its values join
// while they are elementwise and read nothing but the source, constants and the chain's values;
// then the chain is cut after the last node up to which every value but the last has all its
// consumers inside (it runs where its last node is, so what it reads is computed by then).
FusedChain elementwise_chain(const Uses& u, const std::vector<Node*>& order, size_t i,
                             const std::unordered_set<const Node*>& taken, size_t min_nodes = 2) {
  FusedChain c;
  Node* n = order[i];
  if (!is_elementwise(u, n)) return c;
  const Value* src = nullptr;
  for (const Value* v : n->inputs) {
    if (is_constant(u.m, v)) continue;
    if (src && src != v) return c;
    src = v;
  }
  if (!src) return c;
  std::vector<Node*> s{n};
  std::unordered_set<const Value*> made{n->outputs[0]};
  // Consumer slots of the chain's values not seen yet: the scan ends when none is left, or far
  // from the last node that joined (a value read much later stays outside the chain), not at
  // the end of the graph.
  constexpr size_t kWindow = 256;
  size_t last = i;
  auto slots = [&](const Value* v) {
    auto it = u.users.find(v);
    return it == u.users.end() ? size_t{0} : it->second.size();
  };
  size_t pending = slots(n->outputs[0]);
  for (size_t j = i + 1; j < order.size() && j - last <= kWindow && pending > 0 && s.size() < kMaxElementwiseNodes; ++j) {
    Node* m = order[j];
    bool ok = !taken.count(m) && is_elementwise(u, m);
    size_t reads = 0;
    for (const Value* v : m->inputs) {
      reads += made.count(v);
      ok = ok && (v == src || made.count(v) || is_constant(u.m, v));
    }
    if (!reads) continue;
    if (!ok) break;
    pending -= reads;
    last = j;
    s.push_back(m);
    made.insert(m->outputs[0]);
    pending += slots(m->outputs[0]);
  }
  for (size_t k = s.size(); k >= min_nodes; --k) {
    const std::unordered_set<const Node*> in(s.begin(), s.begin() + k);
    bool inside = true;
    for (size_t t = 0; t + 1 < k && inside; ++t) {
      const Value* v = s[t]->outputs[0];
      auto it = u.users.find(v);
      inside = it != u.users.end() && u.inner(v, it->second.size());
      for (size_t w = 0; inside && w < it->second.size(); ++w) inside = in.count(it->second[w]) != 0;
    }
    if (inside) {
      c.nodes.assign(s.begin(), s.begin() + k);
      c.source = src;
      return c;
    }
  }
  return c;
}

// MatMul order[i] followed by an elementwise chain over its output that reads it everywhere
// it is read (the chain from its first consumer).
FusedChain matmul_chain(const Uses& u, const std::vector<Node*>& order, size_t i,
                        const std::unordered_set<const Node*>& taken) {
  Node* mm = order[i];
  FusedChain c;
  if (!u.is(mm, "MatMul") || mm->inputs.size != 2 || !mm->inputs[0] || !mm->inputs[1]) return c;
  const Value* y = mm->outputs[0];
  auto it = u.users.find(y);
  if (it == u.users.end() || !u.inner(y, it->second.size())) return c;
  size_t j = i + 1;
  while (j < order.size() && std::find(it->second.begin(), it->second.end(), order[j]) == it->second.end()) ++j;
  if (j == order.size() || taken.count(order[j])) return c;
  FusedChain e = elementwise_chain(u, order, j, taken, 1);  // the bias Add alone will do
  if (e.source != y) return c;
  for (const Node* user : it->second)
    if (std::find(e.nodes.begin(), e.nodes.end(), user) == e.nodes.end()) return c;
  e.nodes.insert(e.nodes.begin(), mm);
  e.matmul = mm;
  return e;
}

}  // namespace

std::vector<FusedChain> find_chains(const Model& m, Graph* g, const std::vector<Node*>& order) {
  Uses u{m, g, {}, {}};
  std::vector<Value*> captured;
  for (Node* n : order) {
    for (Value* v : n->inputs)
      if (v) u.users[v].push_back(n);
    append_subgraph_captures(n, captured);
  }
  u.captured.insert(captured.begin(), captured.end());
  std::vector<FusedChain> chains;
  std::unordered_set<const Node*> taken;
  for (size_t i = 0; i < order.size(); ++i) {
    Node* n = order[i];
    if (taken.count(n)) continue;
    FusedChain c = chain_from(u, n);
    if (c.nodes.size() < 2) c = elementwise_chain(u, order, i, taken);
    if (c.nodes.size() < 2) c = matmul_chain(u, order, i, taken);
    if (c.nodes.size() < 2) continue;
    bool free = true;
    for (Node* k : c.nodes) free = free && !taken.count(k);
    if (!free) continue;
    for (Node* k : c.nodes) taken.insert(k);
    chains.push_back(std::move(c));
  }
  return chains;
}

}  // namespace ofg::exec
