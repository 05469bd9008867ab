// fuse_swish: SiLU as exports write it, y = x * Sigmoid(x) (either operand order), becomes
// Swish(x) (alpha 1). Only at opset >= 24, where Swish is a default-domain op; a model at a lower
// opset gets it when the user raises the opset (--target-opset), and lowering turns it back.
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

RuleMatch match_silu(const RuleCtx& rc, Graph*, Node* sig) {
  const Model& m = rc.m;
  if (sig->inputs.size != 1 || !sig->inputs[0] || sig->outputs.size != 1 || !sig->outputs[0])
    return RuleMatch::decline("Sigmoid without its input or output");
  Value* x = sig->inputs[0];
  Node* mul = only_user(sig->outputs[0]);
  if (!is_op(m, mul, "Mul") || mul->inputs.size != 2 || other_input(mul, sig->outputs[0]) != x)
    return RuleMatch::decline("the Sigmoid is not multiplied by its own input");
  return RuleMatch::rewrite("x * Sigmoid(x) -> Swish", [sig, mul, x](PassContext& ctx) -> int64_t {
    fuse_pattern(ctx, {sig, mul}, mul, "Swish", sig, "/Swish", {x});
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fuse_swish_rules, {"silu", {"Sigmoid"}, "", 24, kNoOpsetLimit, match_silu, "Swish"});

}  // namespace ofg::passes
