// cleanup_attention: transformer exports wrap the attention heads in Reshape/Expand steps that,
// once shape chains are simplified, often reshape a tensor to the shape it already has (the
// head split of a single-head layer, the Expand of a mask to its own shape). Type inference
// proves such a step is a no-op when its input and output have the same rank and every dim is
// the same static size or the same symbolic name; the step is then removed. Class 2 because it
// trusts inference about symbolic names.
#include "exec/infer_types.h"
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
}  // namespace

void run_cleanup_attention(PassContext& ctx) {
  Model& m = ctx.m;
  const exec::TypeInference& ti = ctx.inferred_types();
  for (Graph* g : all_graphs(m)) {
    g->for_each_node([&](Node* n) {
      if (!n->alive || !(is_op(m, n, "Reshape") || is_op(m, n, "Expand")) || n->inputs.size < 2 || !n->inputs[0]) return;
      Value* in = n->inputs[0];
      Value* out = n->outputs[0];
      if (!out || read_by_custom(m, out)) return;
      if (!same_shape(ti.type_of(in), ti.type_of(out))) return;
      // Reshape with allowzero=1 and a 0 entry would still mean the same shape: no special case.
      if (bypass(ctx, n, in, out)) ++ctx.changes;
    });
  }
}

}  // namespace ofg::passes
