// eliminate_common_subexpressions: two default-domain nodes with the same op, the same inputs and
// equal attributes compute the same outputs; the later one is removed and its readers read the
// earlier one's outputs. Exact. Random ops, nodes with subgraphs and nodes whose outputs are
// graph outputs (their names must stay) are left alone.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "kernels/kernels.h"
#include "ops/registry.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// Two nodes drawing random numbers (always, or in training mode) are never one node.
bool nondeterministic(std::string_view op) {
  return ops::Registry::instance().traits("", op) & (ops::kRandom | ops::kRandomInTraining);
}

template <class T>
void put(std::string& k, const T& v) {
  k.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_tensor(std::string& k, const Tensor* t) {
  put(k, t->data_type);
  put(k, t->dims.size);
  for (int64_t d : t->dims) put(k, d);
  put(k, t->data.size);
  k.append(reinterpret_cast<const char*>(t->bytes().data), t->data.size);
}

// A byte string equal for two nodes exactly when they compute the same thing; false when the node
// cannot be keyed (subgraph or unusual attribute).
bool node_key(const Model& m, Node* n, std::string& k) {
  k.clear();
  put(k, n->op_type);
  put(k, n->inputs.size);
  put(k, n->outputs.size);
  for (Value* v : n->inputs) put(k, v);
  // Attributes in name order, so their order in the file does not matter.
  std::vector<const Attribute*> attrs;
  for (const Attribute& a : n->attributes) attrs.push_back(&a);
  std::sort(attrs.begin(), attrs.end(), [&](const Attribute* a, const Attribute* b) { return m.str(a->name) < m.str(b->name); });
  for (const Attribute* a : attrs) {
    if (a->g || a->graphs.size || a->tensors.size || a->ref_attr_name != kNoStr || a->extra.size) return false;
    if (a->t && (a->t->storage == Tensor::kExternal || a->t->data_type == kString)) return false;
    put(k, a->name);
    put(k, a->type);
    put(k, a->present);
    if (a->present & Attribute::kF) put(k, a->f);
    if (a->present & Attribute::kI) put(k, a->i);
    if (a->present & Attribute::kS) { put(k, a->s.size); k.append(a->s.view()); }
    if (a->t) put_tensor(k, a->t);
    put(k, a->floats.size);
    for (float f : a->floats) put(k, f);
    put(k, a->ints.size);
    for (int64_t i : a->ints) put(k, i);
    put(k, a->strings.size);
    for (const Bytes& s : a->strings) { put(k, s.size); k.append(s.view()); }
  }
  return true;
}

}  // namespace

void run_eliminate_common_subexpressions(PassContext& ctx) {
  Model& m = ctx.m;
  for (Graph* g : all_graphs(m)) {
    std::unordered_map<std::string, Node*> seen;
    std::string key;
    g->for_each_node([&](Node* n) {
      if (!is_default(m, n) || !node_key(m, n, key)) return;
      auto it = seen.find(key);
      if (it == seen.end()) {
        seen.emplace(key, n);
        return;
      }
      // Asked only of a node that repeats another (the key holds the op, so both draw random
      // numbers or neither): the registry lookup per node cost more than the rest of the walk.
      if (nondeterministic(m.str(n->op_type))) return;
      Node* first = it->second;
      for (Value* v : n->outputs)
        if (v && (v->is_graph_output() || read_by_custom(m, v))) return;
      for (uint32_t i = 0; i < n->outputs.size; ++i) {
        if (!n->outputs[i]) continue;
        if (!first->outputs[i]) return;  // the earlier node did not produce this optional output
      }
      for (uint32_t i = 0; i < n->outputs.size; ++i)
        if (n->outputs[i]) replace_all_uses(n->outputs[i], first->outputs[i]);
      drop(ctx, n);
      ++ctx.changes;
    });
  }
}

}  // namespace ofg::passes
