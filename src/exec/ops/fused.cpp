// ai.onnxforge.FusedConv: a standard Conv followed by the activation named in its `activation`
// attribute ("Relu", "LeakyRelu" with `alpha`, "Clip" with `min`/`max`). The opt-in pass
// fuse_conv_relu emits it; executing it here keeps such models verifiable.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_fused_conv(OpCtx& c) {
  // The default-domain Conv reads only its own attributes, so it runs on this node unchanged.
  const OpEntry* conv = Registry::instance().find("", "Conv", 11);
  if (!conv) c.error("no Conv kernel");
  conv->fn(c);
  std::string act = c.attr_s("activation", "");
  RTensor& y = c.out[0].t;
  if (y.dtype != kFloat) c.error("FusedConv computes float32 only");
  float* p = y.data<float>();
  int64_t n = y.numel();
  if (act == "Relu") {
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] > 0.f ? p[i] : 0.f;
  } else if (act == "LeakyRelu") {
    float alpha = c.attr_f("alpha", 0.01f);
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] >= 0.f ? p[i] : alpha * p[i];
  } else if (act == "Clip") {
    float lo = c.attr_f("min", -3.402823466e38f), hi = c.attr_f("max", 3.402823466e38f);
    for (int64_t i = 0; i < n; ++i) p[i] = std::min(std::max(p[i], lo), hi);
  } else if (!act.empty()) {
    c.error("unknown activation '" + act + "'");
  }
}

}  // namespace

void register_fused_ops(Registry& r) {
  r.add("FusedConv", op_fused_conv, 1, 1 << 30, true, "ai.onnxforge").infer(rules::rule_conv);
}

}  // namespace ofg::exec
