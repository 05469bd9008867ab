// cleanup_attention: transformer exports wrap the attention heads in Reshape/Expand steps that,
// once shape chains are simplified, often reshape a tensor to the shape it already has (the
// head split of a single-head layer, the Expand of a mask to its own shape). Type inference
// proves such a step is a no-op when its input and output have the same rank and every dim is
// the same static size or the same symbolic name; the step is then removed. Class 2 because it
// trusts inference about symbolic names.
#include "exec/infer_types.h"
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

}  // namespace

OFG_RULE_GROUP(cleanup_attention_rules,
  {"remove_same_shape_step", {"Reshape", "Expand"}, "", 1, kNoOpsetLimit, match_same_shape});

}  // namespace ofg::passes
