// eliminate_redundant_transposes: Transpose(Transpose(x, p1), p2) is Transpose(x, p1 then p2);
// when that is the identity both go (2 -> 0), otherwise one Transpose remains (a chain of 3 -> 1).
// A Transpose of a constant read by nobody else becomes a pre-transposed constant. Exact.
// The first Transpose is only absorbed when the second is its single reader (otherwise it stays
// for its other readers and nothing is gained).
#include "passes/util.h"

namespace ofg::passes {

namespace {

bool get_perm(PassContext& ctx, Node* t, std::vector<int64_t>& perm) {
  if (attr_ints(ctx.m, t, "perm", perm)) return true;
  // No perm: reverse the dimensions, which needs the rank.
  int r = inferred_rank(ctx, t->inputs[0]);
  if (r < 0) return false;
  perm.resize(r);
  for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
  return true;
}

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

void run_eliminate_redundant_transposes(PassContext& ctx) {
  Model& m = ctx.m;
  for_each_op(m, "Transpose", [&](Graph* g, Node* n) {
    if (n->inputs.size != 1 || !n->inputs[0] || !n->outputs[0]) return;
    if (read_by_custom(m, n->outputs[0])) return;
    Value* in = n->inputs[0];
    std::vector<int64_t> p2;
    if (!get_perm(ctx, n, p2)) return;
    if (Node* first = producer_if(m, in, "Transpose", g)) {
      std::vector<int64_t> p1;
      if (!single_use(in) || !first->inputs[0] || !get_perm(ctx, first, p1) || p1.size() != p2.size() ||
          !valid_perm(p1, p1.size()) || !valid_perm(p2, p2.size()))
        return;
      // out[i] = mid[p2[i]] = x[p1[p2[i]]]
      std::vector<int64_t> composed(p2.size());
      for (size_t i = 0; i < p2.size(); ++i) composed[i] = p1[p2[i]];
      Value* x = first->inputs[0];
      if (is_identity(composed)) {
        Value* out = n->outputs[0];
        if (!out->is_graph_output()) {
          replace_all_uses(out, x);
          drop(ctx, n);
          drop(ctx, first);
          ++ctx.changes;
        }
        return;
      }
      set_input(n, 0, x);
      set_attr_ints(m, n, "perm", composed);
      drop(ctx, first);
      ++ctx.changes;
      return;
    }
    // Transpose of a constant that nobody else reads: store it transposed.
    const Tensor* c = const_tensor(m, in);
    if (c && in->uses.size == 1 && !in->is_graph_output() && !n->outputs[0]->is_graph_output()) {
      Tensor* t = transpose_tensor(m, c, p2);
      if (!t) return;
      Value* folded = add_initializer(g, std::string(m.str(in->name)) + "_transposed", t);
      replace_all_uses(n->outputs[0], folded);
      drop(ctx, n);
      ++ctx.changes;
    }
  });
}

}  // namespace ofg::passes
