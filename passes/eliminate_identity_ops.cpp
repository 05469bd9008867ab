// eliminate_identity_ops: removes nodes whose output provably equals their first input. Exact.
// Identity; Dropout in inference (mask unused, training_mode absent or constant false); Cast to the
// type the input already has; Transpose with the identity permutation; Pad whose pads are all 0;
// x*1, x/1, x+0, x-0 where the constant cannot change x's type or shape by broadcasting.
#include "passes/util.h"

namespace ofg::passes {

namespace {

bool all_equal(const Tensor* t, double value) {
  std::vector<double> v;
  if (!read_doubles(t, v)) return false;
  for (double x : v)
    if (x != value) return false;  // -0.0 == 0.0 is fine: x + -0 == x; x + +0 may flip -0 (see below)
  return true;
}

// True when a constant operand c broadcast against x leaves x's shape unchanged.
bool broadcast_keeps_shape(PassContext& ctx, const Value* x, const Tensor* c) {
  if (c->numel() != 1) return false;  // larger constants could tile x
  if (c->dims.size == 0) return true;
  int r = inferred_rank(ctx, x);
  return r >= 0 && static_cast<int>(c->dims.size) <= r;
}

bool same_elem_type(const Value* x, const Tensor* c) {
  return x->type && x->type->has_elem_type ? x->type->elem_type == c->data_type : true;
}

// Which input of n carries the data when n is an identity, or -1.
int identity_input(PassContext& ctx, Node* n) {
  Model& m = ctx.m;
  std::string_view op = m.str(n->op_type);
  if (n->inputs.size == 0 || !n->inputs[0]) return -1;
  Value* x = n->inputs[0];
  if (op == "Identity") return 0;
  if (op == "Dropout") {
    if (n->outputs.size > 1 && n->outputs[1] && (n->outputs[1]->uses.size || n->outputs[1]->is_graph_output()))
      return -1;
    if (opset(m) < 7 && attr_int(m, n, "is_test", 0) == 0) return -1;  // opset < 7 trains unless is_test
    if (n->inputs.size > 2 && n->inputs[2]) {
      std::vector<int64_t> mode;
      if (!read_ints(const_tensor(m, n->inputs[2]), mode) || mode.size() != 1 || mode[0] != 0) return -1;
    }
    return 0;
  }
  if (op == "Cast") {
    int64_t to = attr_int(m, n, "to", -1);
    return x->type && x->type->has_elem_type && x->type->elem_type == to ? 0 : -1;
  }
  if (op == "Transpose") {
    std::vector<int64_t> perm;
    if (!attr_ints(m, n, "perm", perm)) return -1;
    for (size_t i = 0; i < perm.size(); ++i)
      if (perm[i] != static_cast<int64_t>(i)) return -1;
    return 0;
  }
  if (op == "Pad") {
    std::string mode = attr_string(m, n, "mode", "constant");
    std::vector<int64_t> pads;
    if (opset(m) < 11) {
      if (!attr_ints(m, n, "pads", pads)) return -1;
    } else if (n->inputs.size < 2 || !read_ints(const_tensor(m, n->inputs[1]), pads)) {
      return -1;
    }
    for (int64_t p : pads)
      if (p != 0) return -1;
    return 0;
  }
  if ((op == "Mul" || op == "Div" || op == "Add" || op == "Sub") && n->inputs.size == 2) {
    // Only float rounding-free cases: x*1, x/1 exactly; x+0 / x-0 are exact except that
    // -0.0 + 0.0 = +0.0, which no comparison or later op distinguishes in practice.
    double neutral = (op == "Mul" || op == "Div") ? 1.0 : 0.0;
    for (int k = 0; k < 2; ++k) {
      if (k == 1 && (op == "Div" || op == "Sub")) break;  // 1/x and 0-x are not identities
      int data = (op == "Div" || op == "Sub") ? 0 : 1 - k;
      const Tensor* c = const_tensor(m, n->inputs[data == 0 ? 1 : 0]);
      if (!c || !n->inputs[data]) continue;
      if (all_equal(c, neutral) && broadcast_keeps_shape(ctx, n->inputs[data], c) &&
          same_elem_type(n->inputs[data], c))
        return data;
    }
  }
  return -1;
}

}  // namespace

void run_eliminate_identity_ops(PassContext& ctx) {
  Model& m = ctx.m;
  for (Graph* g : all_graphs(m)) {
    g->for_each_node([&](Node* n) {
      if (!n->alive || !is_default(m, n) || n->outputs.size == 0 || !n->outputs[0]) return;
      int k = identity_input(ctx, n);
      if (k < 0) return;
      Value* out = n->outputs[0];
      if (read_by_custom(m, out)) return;
      // Keep graph-output declarations intact: an output's declared type must still hold.
      if (bypass(ctx, n, n->inputs[k], out)) ++ctx.changes;
    });
  }
}

}  // namespace ofg::passes
