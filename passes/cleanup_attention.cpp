// cleanup_attention: transformer exports wrap the attention heads in Reshape/Expand steps that,
// once shape chains are simplified, often reshape a tensor to the shape it already has (the
// head split of a single-head layer, the Expand of a mask to its own shape). Type inference
// proves such a step is a no-op when its input and output have the same rank and every dim is
// the same static size or the same symbolic name; the step is then removed. Grouped-query
// repeat_kv (Unsqueeze -> Expand -> Reshape, passes/repeat_kv.h) becomes one Gather of the kv
// heads along axis 1 with the indices [0]*r + [1]*r + ...: the same copy in one node, at any
// opset (fuse_attention reads K and V through it). An Expand whose only readers are elementwise
// ops that broadcast anyway (a padding mask expanded to [batch, 1, q, k], turned into -inf/0 by
// Cast/Sub/Where and added to a causal mask of that full shape) is removed: every value between
// it and the ops whose output shape it does not change is computed at x's smaller shape, with the
// same numbers. Class 2 because it trusts inference about symbolic names.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exec/infer_types.h"
#include "ir/attributes.h"
#include "passes/repeat_kv.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool same_shape(const exec::IType* a, const exec::IType* b) {
  if (!a || !b || !a->ranked || !b->ranked || a->dims.size() != b->dims.size()) return false;
  for (size_t i = 0; i < a->dims.size(); ++i) {
    const exec::IDim& x = a->dims[i];
    const exec::IDim& y = b->dims[i];
    if (x.is_static() && y.is_static() && x.value == y.value) continue;
    if (x.is_symbolic() && y.is_symbolic() && x.sym == y.sym) continue;
    return false;
  }
  return true;
}

RuleMatch match_same_shape(const RuleCtx& rc, Graph*, Node* n) {
  if (n->inputs.size < 2 || !n->inputs[0]) return RuleMatch::decline("the node has no data or no shape input");
  Value* in = n->inputs[0];
  Value* out = n->outputs[0];
  if (!out || read_by_custom(rc.m, out)) return RuleMatch::decline("no output, or a custom-domain node reads it");
  const exec::TypeInference& ti = rc.types();
  if (!same_shape(ti.type_of(in), ti.type_of(out))) return RuleMatch::decline("type inference does not prove the output shape equals the input shape");
  // Reshape with allowzero=1 and a 0 entry would still mean the same shape: no special case.
  return RuleMatch::rewrite("shape-keeping step removed", [n, in, out](PassContext& ctx) -> int64_t {
    return bypass(ctx, n, in, out) ? 1 : 0;
  });
}

RuleMatch match_repeat_kv(const RuleCtx& rc, Graph* g, Node* reshape) {
  int64_t r = 0;
  Value* kv = reshape->outputs.size == 1 ? expanded_repeat_source(rc, g, reshape->outputs[0], r) : nullptr;
  if (!kv) return RuleMatch::decline("not repeat_kv (Unsqueeze(2) -> Expand -> Reshape merging the kv heads)");
  Node* expand = reshape->inputs[0]->producer;
  Node* unsq = expand->inputs[0]->producer;
  if (only_user(reshape->inputs[0]) != reshape || only_user(expand->inputs[0]) != expand)
    return RuleMatch::decline("a step of repeat_kv is read elsewhere");
  int64_t hk = rc.types().type_of(kv)->dims[1].value;
  return RuleMatch::rewrite("repeat_kv as one Gather", [g, kv, unsq, expand, reshape, hk, r](PassContext& ctx) -> int64_t {
    Model& mm = ctx.m;
    std::vector<int64_t> idx(static_cast<size_t>(hk * r));
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(i) / r;
    Value* indices = add_initializer(g, std::string(mm.str(kv->name)) + "_repeat_heads",
                                     tensor_from_ints(mm, {hk * r}, idx));
    Node* gather = fuse_pattern(ctx, {unsq, expand, reshape}, reshape, "Gather", reshape, "/repeat_kv", {kv, indices});
    set_attr_int(mm, gather, "axis", 1);
    return 1;
  });
}

// Elementwise ops whose inputs broadcast together (from opset 8, Max/Min included; Where from 9).
bool broadcasting_elementwise(std::string_view op) {
  static const char* const kOps[] = {"Cast", "Neg", "Not", "Abs", "Sigmoid", "Relu", "Exp", "Log", "Sqrt", "Reciprocal",
                                     "Tanh", "Erf", "Floor", "Ceil", "Sign", "IsNaN", "IsInf", "Add", "Sub", "Mul",
                                     "Div", "Pow", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
                                     "Or", "Xor", "Max", "Min", "Where"};
  for (const char* k : kOps)
    if (op == k) return true;
  return false;
}

// Multidirectional broadcast of shapes whose dims are all static or symbolic; false when two
// dims cannot be proved to broadcast (two different symbols, or different sizes above 1).
bool broadcast_dims(const std::vector<std::vector<exec::IDim>>& shapes, std::vector<exec::IDim>& out) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  out.assign(rank, exec::IDim{1, kNoStr});
  for (const auto& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      exec::IDim& o = out[rank - s.size() + i];
      const exec::IDim& d = s[i];
      if (!d.is_static() && !d.is_symbolic()) return false;
      if (d.is_static() && d.value == 1) continue;
      if (o.is_static() && o.value == 1) o = d;
      else if (!(o.is_static() == d.is_static() && o.value == d.value && o.sym == d.sym)) return false;
    }
  return true;
}

bool same_dims(const std::vector<exec::IDim>& a, const exec::IType* b) {
  if (!b || !b->ranked || a.size() != b->dims.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const exec::IDim& y = b->dims[i];
    if (!(a[i].is_static() == y.is_static() && a[i].value == y.value && (y.is_static() || a[i].sym == y.sym))) return false;
  }
  return true;
}

RuleMatch match_expand_absorbed(const RuleCtx& rc, Graph* g, Node* expand) {
  const Model& m = rc.m;
  if (expand->inputs.size != 2 || !expand->inputs[0] || !expand->outputs[0]) return RuleMatch::decline("not an Expand of a value");
  Value* x = expand->inputs[0];
  Value* out = expand->outputs[0];
  if (out->is_graph_output() || out->uses.size == 0) return RuleMatch::decline("the expanded value is a graph output or unread");
  const exec::TypeInference& ti = rc.types();
  const exec::IType* xt = ti.type_of(x);
  if (!xt || !xt->ranked) return RuleMatch::decline("x's shape is unknown");
  // The shapes the values downstream take without the Expand, for those that change.
  std::map<const Value*, std::vector<exec::IDim>> smaller{{out, xt->dims}};
  size_t open = out->uses.size;  // reads of changed values not yet seen
  bool absorbed = false;
  for (Node* n = expand->next; n && open > 0; n = n->next) {
    if (!n->alive) continue;
    std::vector<std::vector<exec::IDim>> shapes;
    bool reads = false;
    for (Value* in : n->inputs) {
      auto it = in ? smaller.find(in) : smaller.end();
      if (it != smaller.end()) {
        reads = true;
        --open;  // this input slot is one of the value's uses
        shapes.push_back(it->second);
      } else if (in) {
        const exec::IType* t = ti.type_of(in);
        if (!t || !t->ranked) return RuleMatch::decline("an operand beside the expanded value has an unknown shape");
        shapes.push_back(t->dims);
      }
    }
    if (!reads) continue;
    if (!is_default(m, n) || !broadcasting_elementwise(m.str(n->op_type)) || n->outputs.size != 1 || !n->outputs[0])
      return RuleMatch::decline("the expanded value reaches an op that is not a broadcasting elementwise op");
    std::vector<exec::IDim> shape;
    if (!broadcast_dims(shapes, shape)) return RuleMatch::decline("inference cannot prove how the operands broadcast");
    Value* y = n->outputs[0];
    if (same_dims(shape, ti.type_of(y))) {
      absorbed = true;
      continue;
    }
    if (y->is_graph_output()) return RuleMatch::decline("a value whose shape would shrink is a graph output");
    smaller.emplace(y, shape);
    open += y->uses.size;
  }
  if (open > 0) return RuleMatch::decline("the expanded value is read outside this graph's later nodes");
  if (!absorbed) return RuleMatch::decline("no op downstream broadcasts to the expanded shape anyway");
  return RuleMatch::rewrite("Expand absorbed by broadcasting downstream", [expand, x, out](PassContext& ctx) -> int64_t {
    return bypass(ctx, expand, x, out) ? 1 : 0;
  });
}

}  // namespace

OFG_RULE_GROUP(cleanup_attention_rules,
  {"remove_same_shape_step", {"Reshape", "Expand"}, "", 1, kNoOpsetLimit, match_same_shape},
  {"repeat_kv_as_gather", {"Reshape"}, "", 1, kNoOpsetLimit, match_repeat_kv},
  {"expand_absorbed_by_broadcast", {"Expand"}, "", 9, kNoOpsetLimit, match_expand_absorbed});

}  // namespace ofg::passes
