// fuse_conv_relu (opt-in, not in the default pipeline): Conv -> Relu becomes one
// ai.onnxforge.FusedConv node carrying activation="Relu", a hint for converters that fuse
// activations. The op lives in a declared custom domain that our interpreter executes, so the
// result can be verified; a standard Conv never gets the nonstandard attribute.
#include "exec/infer_types.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
constexpr const char* kDomain = "ai.onnxforge";

void import_domain(Model& m) {
  if (m.opset_version(kDomain) > 0) return;
  OpsetId o;
  o.domain = m.intern(kDomain);
  o.version = 1;
  o.has_version = true;
  m.opsets.push(m.arena, o);
}

RuleMatch match_conv_relu(const RuleCtx& rc, Graph* g, Node* relu) {
  const Model& m = rc.m;
  if (relu->inputs.size != 1 || !relu->outputs[0]) return RuleMatch::decline("Relu without its input or output");
  Value* mid = relu->inputs[0];
  Node* conv = producer_if(m, mid, "Conv", g);
  if (!conv || !single_use(mid) || conv->graph != relu->graph) return RuleMatch::decline("the input is not a Conv read only here");
  const exec::IType* t = rc.types().type_of(conv->inputs[0]);
  if (!t || t->elem != kFloat) return RuleMatch::decline("the Conv is not float32");  // the fused kernel computes float32
  return RuleMatch::rewrite("Conv + Relu -> FusedConv", [conv, relu](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    conv->op_type = m.intern("FusedConv");
    conv->domain = m.intern(kDomain);
    set_attr_string(m, conv, "activation", "Relu");
    Value* out = relu->outputs[0];
    drop(ctx, relu);
    take_output(conv, 0, out);
    import_domain(m);
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fuse_conv_relu_rules,
  {"conv_relu_to_fused_conv", {"Relu"}, "", 1, kNoOpsetLimit, match_conv_relu});

}  // namespace ofg::passes
