// fuse_gelu: the erf form of GELU as exports write it,
//   y = (x * (Erf(x / sqrt(2)) + 1)) * 0.5      (also x * 0.7071.. in place of the division,
//                                                 and the 0.5 applied to x first)
// becomes Gelu(x). Only at opset >= 20 (the rule's range), where Gelu is a default-domain op;
// below that the pattern is left alone rather than emitting an op the model's opset lacks.
#include <cmath>

#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool scalar_is(const Model& m, const Value* v, double want, double tol = 1e-4) {
  std::vector<double> d;
  return read_doubles(const_tensor(m, v), d) && d.size() == 1 && std::fabs(d[0] - want) <= tol * std::fabs(want);
}
// An op of the pattern with its two inputs (a malformed node may have fewer: never matched).
bool is_binary(const Model& m, const Node* n, std::string_view op) {
  return is_op(m, n, op) && n->inputs.size == 2 && n->outputs.size >= 1 && n->outputs[0];
}

RuleMatch match_gelu(const RuleCtx& rc, Graph* g, Node* erf) {
  const Model& m = rc.m;
  const double r2 = std::sqrt(2.0);
  if (erf->inputs.size == 0 || !erf->inputs[0] || erf->outputs.size == 0 || !erf->outputs[0])
    return RuleMatch::decline("Erf without its input or output");
  Node* scale = erf->inputs[0]->producer;
  if (!scale || !scale->alive || scale->graph != g || !single_use(erf->inputs[0]))
    return RuleMatch::decline("the input is not a node of this graph read only here");
  Value* x = nullptr;
  if (is_binary(m, scale, "Div") && scalar_is(m, scale->inputs[1], r2)) x = scale->inputs[0];
  else if (is_binary(m, scale, "Mul") && scalar_is(m, scale->inputs[1], 1 / r2)) x = scale->inputs[0];
  else if (is_binary(m, scale, "Mul") && scalar_is(m, scale->inputs[0], 1 / r2)) x = scale->inputs[1];
  if (!x) return RuleMatch::decline("the input is not x / sqrt(2) or x * (1 / sqrt(2))");
  Node* plus = only_user(erf->outputs[0]);
  if (!is_binary(m, plus, "Add") || !scalar_is(m, other_input(plus, erf->outputs[0]), 1.0))
    return RuleMatch::decline("Erf is not followed by + 1");
  Node* mul = only_user(plus->outputs[0]);
  if (!is_binary(m, mul, "Mul")) return RuleMatch::decline("erf + 1 is not followed by a Mul");
  Value* xs = other_input(mul, plus->outputs[0]);
  std::vector<Node*> pattern{scale, erf, plus, mul};
  Node* last = nullptr;
  if (xs == x) {
    // (x * (erf + 1)) * 0.5
    Node* half = only_user(mul->outputs[0]);
    if (!is_binary(m, half, "Mul") || !scalar_is(m, other_input(half, mul->outputs[0]), 0.5))
      return RuleMatch::decline("the product is not multiplied by 0.5 (GELU's final half)");
    pattern.push_back(half);
    last = half;
  } else {
    // (x * 0.5) * (erf + 1), the 0.5 product read by this Mul only
    Node* half = xs->producer;
    if (!is_binary(m, half, "Mul") || half->graph != g || !single_use(xs) || other_input(half, x) == nullptr)
      return RuleMatch::decline("the other factor is not x * 0.5");
    if (!((half->inputs[0] == x && scalar_is(m, half->inputs[1], 0.5)) ||
          (half->inputs[1] == x && scalar_is(m, half->inputs[0], 0.5))))
      return RuleMatch::decline("the other factor is not x * 0.5");
    pattern.push_back(half);
    last = mul;
  }
  return RuleMatch::rewrite("erf GELU -> Gelu", [erf, x, last, pattern](PassContext& ctx) -> int64_t {
    fuse_pattern(ctx, pattern, last, "Gelu", erf, "/Gelu", {x});
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fuse_gelu_rules,
  {"erf_gelu", {"Erf"}, "", 20, kNoOpsetLimit, match_gelu, "Gelu"});

}  // namespace ofg::passes
