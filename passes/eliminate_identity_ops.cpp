// eliminate_identity_ops: removes nodes whose output provably equals their first input. Exact.
// Identity; Dropout in inference (mask unused, training_mode absent or constant false; before
// opset 7 also is_test set); Cast to the type the input already has; Transpose with the identity
// permutation; Pad whose pads are all 0 (attribute before opset 11, input from 11); x*1, x/1,
// x+0, x-0 where the constant cannot change x's type or shape by broadcasting; Concat whose other
// inputs have no elements along the axis (a KV cache's empty past at prefill). One rule per case.
#include "exec/infer_types.h"
#include "passes/rule.h"
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
bool broadcast_keeps_shape(const RuleCtx& rc, const Value* x, const Tensor* c) {
  if (c->numel() != 1) return false;  // larger constants could tile x
  if (c->dims.size == 0) return true;
  int r = rc.rank(x);
  return r >= 0 && static_cast<int>(c->dims.size) <= r;
}

bool same_elem_type(const Value* x, const Tensor* c) {
  return x->type && x->type->has_elem_type ? x->type->elem_type == c->data_type : true;
}

// The rewrite once input k of n is known to carry n's output.
RuleMatch remove(const RuleCtx& rc, Node* n, int k, const char* what) {
  Value* out = n->outputs[0];
  if (read_by_custom(rc.m, out)) return RuleMatch::decline("a custom-domain node reads the output");
  // bypass keeps graph-output declarations intact: an output's declared type must still hold.
  return RuleMatch::rewrite(what, [n, k, out](PassContext& ctx) -> int64_t { return bypass(ctx, n, n->inputs[k], out) ? 1 : 0; });
}

// The shape every rule needs: a data input and an output.
bool usable(const Node* n) { return n->inputs.size > 0 && n->inputs[0] && n->outputs.size > 0 && n->outputs[0]; }

RuleMatch match_identity(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  return remove(rc, n, 0, "Identity removed");
}

RuleMatch dropout_inference(const RuleCtx& rc, Node* n) {
  if (n->outputs.size > 1 && n->outputs[1] && (n->outputs[1]->uses.size || n->outputs[1]->is_graph_output()))
    return RuleMatch::decline("the Dropout mask output is read");
  if (n->inputs.size > 2 && n->inputs[2]) {
    std::vector<int64_t> mode;
    if (!read_ints(const_tensor(rc.m, n->inputs[2]), mode) || mode.size() != 1 || mode[0] != 0)
      return RuleMatch::decline("training_mode is not a constant false");
  }
  return remove(rc, n, 0, "inference Dropout removed");
}

RuleMatch match_dropout_legacy(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  if (attr_int(rc.m, n, "is_test", 0) == 0) return RuleMatch::decline("is_test unset: opset < 7 trains");
  return dropout_inference(rc, n);
}

RuleMatch match_dropout(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  return dropout_inference(rc, n);
}

RuleMatch match_cast(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  int64_t to = attr_int(rc.m, n, "to", -1);
  // The declared type, else the inferred one (most values of an export declare none).
  const Value* x = n->inputs[0];
  int32_t from = x->type && x->type->has_elem_type ? x->type->elem_type : 0;
  if (from == 0)
    if (const exec::IType* t = rc.types().type_of(x)) from = t->elem;
  if (from == 0 || from != to) return RuleMatch::decline("the Cast changes the type (or the input type is unknown)");
  return remove(rc, n, 0, "same-type Cast removed");
}

RuleMatch match_transpose(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  std::vector<int64_t> perm;
  if (!attr_ints(rc.m, n, "perm", perm)) return RuleMatch::decline("the Transpose has no perm attribute (it reverses the axes)");
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return RuleMatch::decline("perm is not the identity");
  return remove(rc, n, 0, "identity Transpose removed");
}

RuleMatch zero_pads(const RuleCtx& rc, Node* n, const std::vector<int64_t>& pads) {
  for (int64_t p : pads)
    if (p != 0) return RuleMatch::decline("pads are not all 0");
  return remove(rc, n, 0, "zero Pad removed");
}

RuleMatch match_pad2(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  std::vector<int64_t> pads;
  if (!attr_ints(rc.m, n, "pads", pads)) return RuleMatch::decline("the Pad has no pads attribute");
  return zero_pads(rc, n, pads);
}

RuleMatch match_pad11(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  std::vector<int64_t> pads;
  if (n->inputs.size < 2 || !read_ints(const_tensor(rc.m, n->inputs[1]), pads)) return RuleMatch::decline("the pads are not constant");
  return zero_pads(rc, n, pads);
}

RuleMatch match_neutral(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n) || n->inputs.size != 2) return RuleMatch::decline("not a binary op with an output");
  const Model& m = rc.m;
  std::string_view op = m.str(n->op_type);
  // Only float rounding-free cases: x*1, x/1 exactly; x+0 / x-0 are exact except that
  // -0.0 + 0.0 = +0.0, which no comparison or later op distinguishes in practice.
  double neutral = (op == "Mul" || op == "Div") ? 1.0 : 0.0;
  const char* why = neutral == 1.0 ? "no operand is a constant 1 (x * 1, x / 1)" : "no operand is a constant 0 (x + 0, x - 0)";
  for (int k = 0; k < 2; ++k) {
    if (k == 1 && (op == "Div" || op == "Sub")) break;  // 1/x and 0-x are not identities
    int data = (op == "Div" || op == "Sub") ? 0 : 1 - k;
    const Tensor* c = const_tensor(m, n->inputs[data == 0 ? 1 : 0]);
    if (!c || !n->inputs[data] || !all_equal(c, neutral)) continue;
    if (!broadcast_keeps_shape(rc, n->inputs[data], c)) {
      why = "the neutral constant could broadcast x to a larger shape (or x's rank is unknown)";
      continue;
    }
    if (!same_elem_type(n->inputs[data], c)) {
      why = "the neutral constant has another element type than x";
      continue;
    }
    return remove(rc, n, data, "neutral arithmetic removed");
  }
  return RuleMatch::decline(why);
}

// Concat(a, b, ...) where every input but one has a static 0 along the axis: the output is that
// input (the others add nothing, and a valid Concat's inputs agree on every other axis).
RuleMatch match_concat(const RuleCtx& rc, Graph*, Node* n) {
  if (!usable(n)) return RuleMatch::decline("no data input or output");
  int k_kept = -1;
  for (uint32_t k = 0; k < n->inputs.size; ++k) {
    const Value* v = n->inputs[k];
    if (!v) return RuleMatch::decline("an omitted input");
    const exec::IType* t = rc.types().type_of(v);
    int r = t ? t->rank() : -1;
    if (r <= 0) return RuleMatch::decline("an input's rank is unknown");
    int64_t axis = attr_int(rc.m, n, "axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return RuleMatch::decline("the axis is outside an input's rank");
    if (t->dims[static_cast<size_t>(axis)].value == 0) continue;
    if (k_kept >= 0) return RuleMatch::decline("more than one input may have elements along the axis");
    k_kept = static_cast<int>(k);
  }
  if (n->inputs.size > 1 && k_kept < 0) k_kept = 0;  // all empty: any input has the output's shape
  return remove(rc, n, k_kept < 0 ? 0 : k_kept, "Concat of one input with elements removed");
}

}  // namespace

OFG_RULE_GROUP(eliminate_identity_ops_rules,
  {"identity", {"Identity"}, "", 1, kNoOpsetLimit, match_identity},
  {"dropout_is_test", {"Dropout"}, "", 1, 6, match_dropout_legacy},
  {"dropout_inference", {"Dropout"}, "", 7, kNoOpsetLimit, match_dropout},
  {"same_type_cast", {"Cast"}, "", 1, kNoOpsetLimit, match_cast},
  {"identity_transpose", {"Transpose"}, "", 1, kNoOpsetLimit, match_transpose},
  {"zero_pad_attribute", {"Pad"}, "", 1, 10, match_pad2},
  {"zero_pad_input", {"Pad"}, "", 11, kNoOpsetLimit, match_pad11},
  {"neutral_arithmetic", {"Mul", "Div", "Add", "Sub"}, "", 1, kNoOpsetLimit, match_neutral},
  {"concat_of_one", {"Concat"}, "", 1, kNoOpsetLimit, match_concat});

}  // namespace ofg::passes
