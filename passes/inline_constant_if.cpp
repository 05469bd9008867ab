// inline_constant_if: an If whose condition is a constant is replaced by the nodes of the branch
// it always takes. Exact. PyTorch writes `squeeze(dim)` as If(dim has size 1) on a shape that
// becomes constant once shapes are known; the If hides its result's shape from inference, so the
// Shape arithmetic after it stays dynamic until the If is gone.
//
// The branch's nodes move into the If's graph in front of it, its initializers with them. Values
// the branch defines are renamed when their name is taken elsewhere in the model (a branch may
// reuse an outer name). The If's outputs keep their names: the node producing a branch output
// writes the If's output instead; a branch output defined outside the branch (a captured value)
// or named twice goes through an Identity, which eliminate_identity_ops then removes.
#include <unordered_map>
#include <unordered_set>

#include "ir/graph_ops.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// Names of every value defined in the model outside `skip` (and its subgraphs).
std::unordered_set<StrId> names_outside(Model& m, const Graph* skip) {
  std::unordered_set<StrId> names;
  for (Graph* g : all_graphs(m)) {
    bool inside = false;
    for (const Graph* p = g; p && !inside; p = p->parent) inside = p == skip;
    if (inside) continue;
    for (const ValueInfo& vi : g->inputs) names.insert(vi.value->name);
    for (Value* v : g->initializers) names.insert(v->name);
    g->for_each_node([&](Node* n) {
      for (Value* v : n->outputs)
        if (v) names.insert(v->name);
    });
  }
  return names;
}

// Moves `v`, defined in the branch, into `to` under a name free in the model.
void adopt_value(Model& m, Value* v, Graph* to, const std::unordered_set<StrId>& taken) {
  if (taken.count(v->name)) v->name = unique_name(m, m.str(v->name));
  if (Tensor* t = v->initializer) {
    remove_initializer(v);
    v->graph = to;
    set_initializer(v, t);  // also renames the tensor when the value was renamed
  }
  v->graph = to;
}

int64_t inline_branch(PassContext& ctx, Node* n, Graph* branch) {
  Model& m = ctx.m;
  Graph* g = n->graph;
  std::unordered_set<StrId> taken = names_outside(m, branch);
  const bool keep = keep_names(ctx);
  if (keep) {
    // optimize.keep_names: a branch value whose name is taken outside would be renamed.
    for (Value* v : branch->initializers)
      if (taken.count(v->name)) return 0;
    for (Node* k = branch->first; k; k = k->next)
      for (Value* v : k->outputs)
        if (v && taken.count(v->name)) return 0;
  }
  for (Value* v : std::vector<Value*>(branch->initializers.begin(), branch->initializers.end()))
    adopt_value(m, v, g, taken);
  for (Node* k = branch->first; k;) {
    Node* next = k->next;
    // Unlink from the branch (remove_node would also drop its input uses) and put it before n.
    if (k->prev) k->prev->next = k->next; else branch->first = k->next;
    if (k->next) k->next->prev = k->prev; else branch->last = k->prev;
    --branch->node_count;
    insert_before(n, k);
    for (Value* v : k->outputs)
      if (v) adopt_value(m, v, g, taken);
    for (Attribute& a : k->attributes) {
      if (a.g) a.g->parent = g;
      for (Graph* s : a.graphs) s->parent = g;
    }
    k = next;
  }
  // The If's outputs, now written by the moved nodes (or by an Identity).
  std::vector<Value*> results;
  for (const ValueInfo& vi : branch->outputs) results.push_back(vi.value);
  branch->outputs.clear();
  for (Value* v : results) --v->graph_output_count;
  std::unordered_map<Value*, Value*> taken_by;  // a branch result -> the If output that took it over
  for (uint32_t i = 0; i < n->outputs.size; ++i) {
    Value* out = n->outputs[i];
    if (!out) continue;
    Value* v = results[i];
    auto it = taken_by.find(v);
    if (it != taken_by.end()) v = it->second;
    // Under keep_names a branch result keeps its name: an Identity writes the If's output.
    bool movable = !keep && v->producer && v->graph == g && v->producer->graph == g && !v->is_graph_output() &&
                   !v->is_graph_input && !v->initializer && it == taken_by.end();
    if (movable) {
      replace_all_uses(v, out);
      take_output(v->producer, v->producer_output, out);
      v->producer = nullptr;
      taken_by[v] = out;
    } else {
      Node* id = new_node(g, m.intern("Identity"), kNoStr, 1, 1);
      id->name = node_name(m, n, "inlined");
      set_input(id, 0, v);
      n->outputs[i] = nullptr;
      set_output(id, 0, out);
      insert_before(n, id);
      ++ctx.added;
    }
  }
  // The branch's value_info declarations, but for the results now named by the If's outputs.
  for (const ValueInfo& vi : branch->value_infos)
    if (!taken_by.count(vi.value)) g->value_infos.push(m.arena, vi);
  // The If with its other branch (whose nodes release the outer values they read).
  drop_with_subgraphs(ctx, n);
  if (g->parent) recompute_captures(g);
  return 1;
}

RuleMatch match_if(const RuleCtx& rc, Graph*, Node* n) {
  const Model& m = rc.m;
  std::vector<int64_t> cond;
  if (n->inputs.size < 1 || !read_ints(const_tensor(m, n->inputs[0]), cond) || cond.size() != 1)
    return RuleMatch::decline("the condition is not a constant");
  const Attribute* a = n->attribute(m, cond[0] ? "then_branch" : "else_branch");
  Graph* branch = a ? a->g : nullptr;
  if (!branch) return RuleMatch::decline("the branch taken is missing");
  if (branch->outputs.size != n->outputs.size) return RuleMatch::decline("the branch has another output count than the If");
  if (branch->inputs.size != 0) return RuleMatch::decline("the branch declares inputs");
  for (const ValueInfo& vi : branch->outputs)
    if (!vi.value) return RuleMatch::decline("a branch output is undefined");
  return RuleMatch::rewrite(cond[0] ? "constant If inlined (then branch)" : "constant If inlined (else branch)",
                            [n, branch](PassContext& ctx) { return inline_branch(ctx, n, branch); });
}

}  // namespace

OFG_RULE_GROUP(inline_constant_if_rules, {"constant_if", {"If"}, "", 1, kNoOpsetLimit, match_if});

}  // namespace ofg::passes
