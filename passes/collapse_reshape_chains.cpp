// collapse_reshape_chains: a Reshape whose shape is a constant without 0 entries ignores the shape
// of its input (only the element order matters, which Reshape/Flatten/Squeeze/Unsqueeze never
// change), so when its data comes from such an op read by nobody else, that op is skipped:
// Reshape(Flatten(Reshape(x))) -> Reshape(x). Exact.
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool is_reshape_like(const Model& m, const Node* n) {
  return is_op(m, n, "Reshape") || is_op(m, n, "Flatten") || is_op(m, n, "Squeeze") || is_op(m, n, "Unsqueeze");
}

// The reshape-like producer of n's data that can be skipped, or null.
Node* skippable(const Model& m, Graph* g, Node* n) {
  Value* in = n->inputs[0];
  Node* p = in->producer;
  if (!p || p->graph != g || in->initializer || in->is_graph_input || !is_reshape_like(m, p) || !single_use(in)) return nullptr;
  if (p->inputs.size == 0 || !p->inputs[0]) return nullptr;  // a malformed node without its data input
  return p;
}

RuleMatch match_reshape_chain(const RuleCtx& rc, Graph* g, Node* n) {
  const Model& m = rc.m;
  if (n->inputs.size != 2 || !n->inputs[0] || !n->inputs[1]) return RuleMatch::decline("Reshape without data and shape");
  std::vector<int64_t> shape;
  if (!read_ints(const_tensor(m, n->inputs[1]), shape)) return RuleMatch::decline("the shape is not constant");
  // A 0 copies a dim of the input (unless allowzero), so the input's shape would matter.
  for (int64_t d : shape)
    if (d == 0) return RuleMatch::decline("the shape has a 0 entry");
  if (!skippable(m, g, n)) return RuleMatch::decline("the data is not a reshape-like op read only here");
  // Skip every reshape-like producer read only by this chain (one rewrite).
  return RuleMatch::rewrite("reshape chain -> one Reshape", [g, n](PassContext& ctx) -> int64_t {
    while (Node* p = skippable(ctx.m, g, n)) {
      set_input(n, 0, p->inputs[0]);
      drop(ctx, p);
    }
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(collapse_reshape_chains_rules,
  {"collapse_reshape_chain", {"Reshape"}, "", 1, kNoOpsetLimit, match_reshape_chain});

}  // namespace ofg::passes
