// fold_reciprocal_mul: x * (1 / y) becomes x / y (either Mul operand order), one node instead of
// two. PyTorch exports rsqrt and reciprocal this way (the RMS norm's h * (1 / Sqrt(v + eps))).
// Float-bounded: x / y rounds once where x * (1 / y) rounds twice; zeros, infinities and NaN give
// the same results both ways (0 * inf and 0 / 0 are NaN, x * 0 and x / inf are 0). Only for
// float tensors (1 / y on integers truncates), a 1 of one element that does not raise the rank,
// and a reciprocal read by nothing but the Mul.
#include "exec/infer_types.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// A constant of one element equal to 1.
bool is_one(const Model& m, const Value* v, int& rank) {
  const Tensor* t = const_tensor(m, v);
  std::vector<double> d;
  if (!t || !read_doubles(t, d) || d.size() != 1 || d[0] != 1.0) return false;
  rank = static_cast<int>(t->dims.size);
  return true;
}

RuleMatch match_reciprocal_mul(const RuleCtx& rc, Graph*, Node* div) {
  const Model& m = rc.m;
  if (div->inputs.size != 2 || !div->inputs[0] || !div->inputs[1] || div->outputs.size != 1 || !div->outputs[0])
    return RuleMatch::decline("Div without two inputs and an output");
  int one_rank = 0;
  if (!is_one(m, div->inputs[0], one_rank)) return RuleMatch::decline("the dividend is not a constant 1");
  Value* y = div->inputs[1];
  const exec::IType* yt = rc.types().type_of(y);
  if (!yt || !is_float_type(yt->elem)) return RuleMatch::decline("not a float division (or its type is unknown)");
  if (one_rank > 0 && (!yt->ranked || static_cast<int>(yt->dims.size()) < one_rank))
    return RuleMatch::decline("the constant 1 may have a higher rank than y (x / y would change the output shape)");
  Node* mul = only_user(div->outputs[0]);
  if (!is_op(m, mul, "Mul") || mul->inputs.size != 2) return RuleMatch::decline("the reciprocal is not read by one Mul only");
  Value* x = other_input(mul, div->outputs[0]);
  if (!x || x == div->outputs[0]) return RuleMatch::decline("the Mul squares the reciprocal");
  return RuleMatch::rewrite("x * (1 / y) -> x / y", [div, mul, x, y](PassContext& ctx) -> int64_t {
    fuse_pattern(ctx, {div, mul}, mul, "Div", mul, "/div", {x, y});
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fold_reciprocal_mul_rules, {"reciprocal_mul", {"Div"}, "", 1, kNoOpsetLimit, match_reciprocal_mul});

}  // namespace ofg::passes
