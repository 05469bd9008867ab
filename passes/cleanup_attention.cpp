// cleanup_attention: transformer exports wrap the attention heads in Reshape/Expand steps that,
// once shape chains are simplified, often reshape a tensor to the shape it already has (the
// head split of a single-head layer, the Expand of a mask to its own shape). Type inference
// proves such a step is a no-op when its input and output have the same rank and every dim is
// the same static size or the same symbolic name; the step is then removed. Grouped-query
// repeat_kv (Unsqueeze -> Expand -> Reshape, passes/repeat_kv.h) becomes one Gather of the kv
// heads along axis 1 with the indices [0]*r + [1]*r + ...: the same copy in one node, at any
// opset (fuse_attention reads K and V through it). Class 2 because it trusts inference about
// symbolic names.
#include <string>
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

}  // namespace

OFG_RULE_GROUP(cleanup_attention_rules,
  {"remove_same_shape_step", {"Reshape", "Expand"}, "", 1, kNoOpsetLimit, match_same_shape},
  {"repeat_kv_as_gather", {"Reshape"}, "", 1, kNoOpsetLimit, match_repeat_kv});

}  // namespace ofg::passes
