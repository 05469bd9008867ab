// fuse_conv_relu (opt-in, not in the default pipeline): Conv -> Relu becomes one
// ai.onnxforge.FusedConv node carrying activation="Relu", a hint for converters that fuse
// activations. The op lives in a declared custom domain that our interpreter executes, so the
// result can be verified; a standard Conv never gets the nonstandard attribute.
#include "exec/infer_types.h"
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

}  // namespace

void run_fuse_conv_relu(PassContext& ctx) {
  Model& m = ctx.m;
  const exec::TypeInference& ti = ctx.inferred_types();
  for_each_op(m, "Relu", [&](Graph* g, Node* relu) {
    if (relu->inputs.size != 1 || !relu->outputs[0]) return;
    Value* mid = relu->inputs[0];
    Node* conv = producer_if(m, mid, "Conv", g);
    if (!conv || !single_use(mid) || conv->graph != relu->graph) return;
    const exec::IType* t = ti.type_of(conv->inputs[0]);
    if (!t || t->elem != kFloat) return;  // the fused kernel computes float32
    conv->op_type = m.intern("FusedConv");
    conv->domain = m.intern(kDomain);
    set_attr_string(m, conv, "activation", "Relu");
    Value* out = relu->outputs[0];
    drop(ctx, relu);
    take_output(conv, 0, out);
    import_domain(m);
    ++ctx.changes;
  });
}

}  // namespace ofg::passes
