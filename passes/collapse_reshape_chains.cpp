// collapse_reshape_chains: a Reshape whose shape is a constant without 0 entries ignores the shape
// of its input (only the element order matters, which Reshape/Flatten/Squeeze/Unsqueeze never
// change), so when its data comes from such an op read by nobody else, that op is skipped:
// Reshape(Flatten(Reshape(x))) -> Reshape(x). Exact.
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool is_reshape_like(const Model& m, const Node* n) {
  return is_op(m, n, "Reshape") || is_op(m, n, "Flatten") || is_op(m, n, "Squeeze") || is_op(m, n, "Unsqueeze");
}
}  // namespace

void run_collapse_reshape_chains(PassContext& ctx) {
  Model& m = ctx.m;
  for_each_op(m, "Reshape", [&](Graph* g, Node* n) {
    if (n->inputs.size != 2 || !n->inputs[0] || !n->inputs[1]) return;
    std::vector<int64_t> shape;
    if (!read_ints(const_tensor(m, n->inputs[1]), shape)) return;
    // A 0 copies a dim of the input (unless allowzero), so the input's shape would matter.
    for (int64_t d : shape)
      if (d == 0) return;
    // Skip every reshape-like producer read only by this chain.
    bool changed = false;
    for (;;) {
      Value* in = n->inputs[0];
      Node* p = in->producer;
      if (!p || p->graph != g || in->initializer || in->is_graph_input || !is_reshape_like(m, p) || !single_use(in)) break;
      if (p->inputs.size == 0 || !p->inputs[0]) break;  // a malformed node without its data input
      set_input(n, 0, p->inputs[0]);
      drop(ctx, p);
      changed = true;
    }
    if (changed) ++ctx.changes;
  });
}

}  // namespace ofg::passes
