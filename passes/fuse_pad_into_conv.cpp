// fuse_pad_into_conv: a constant-mode Pad with value 0 and non-negative constant pads on the
// spatial dims only, read only by a Conv (explicit padding), becomes part of the Conv's pads.
// Exact: the Conv reads the same zeros. Pad-2 keeps pads and value in attributes, Pad-11 on in
// inputs: two rules, one per opset range.
#include "kernels/spatial.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// The Pad feeding conv's data, or null with `why` set.
Node* pad_of(const Model& m, Graph* g, Node* conv, const char*& why) {
  why = "the data input is not a Pad read only by this Conv";
  if (conv->inputs.size < 2 || !conv->inputs[0]) return nullptr;
  Value* padded = conv->inputs[0];
  Node* pad = producer_if(m, padded, "Pad", g);
  if (!pad || !single_use(padded) || !pad->inputs[0]) return nullptr;
  if (kernels::parse_auto_pad(attr_string(m, conv, "auto_pad", "NOTSET")) != kernels::AutoPad::kNotSet) {
    why = "the Conv uses auto_pad";
    return nullptr;
  }
  if (attr_string(m, pad, "mode", "constant") != "constant") {
    why = "the Pad is not constant mode";
    return nullptr;
  }
  return pad;
}

// The common part once the Pad's pads are known.
RuleMatch fold(const Model& m, Node* conv, Node* pad, const std::vector<int64_t>& pads) {
  if (pads.size() < 4 || pads.size() % 2) return RuleMatch::decline("the Pad pads fewer than 2 dims");
  size_t rank = pads.size() / 2, spatial = rank - 2;
  // Batch and channel dims must not be padded; negative pads crop, which Conv cannot do.
  if (pads[0] || pads[1] || pads[rank] || pads[rank + 1]) return RuleMatch::decline("the Pad pads batch or channel");
  for (int64_t p : pads)
    if (p < 0) return RuleMatch::decline("the Pad crops");
  std::vector<int64_t> conv_pads(2 * spatial, 0);
  std::vector<int64_t> existing;
  if (attr_ints(m, conv, "pads", existing)) {
    if (existing.size() != conv_pads.size()) return RuleMatch::decline("the Conv's pads have another rank");
    conv_pads = existing;
  }
  for (size_t i = 0; i < spatial; ++i) {
    conv_pads[i] += pads[2 + i];
    conv_pads[spatial + i] += pads[rank + 2 + i];
  }
  return RuleMatch::rewrite("Pad -> Conv.pads", [conv, pad, conv_pads](PassContext& ctx) -> int64_t {
    set_attr_ints(ctx.m, conv, "pads", conv_pads);
    set_input(conv, 0, pad->inputs[0]);
    drop(ctx, pad);
    return 1;
  });
}

RuleMatch match_pad2(const RuleCtx& rc, Graph* g, Node* conv) {
  const char* why;
  Node* pad = pad_of(rc.m, g, conv, why);
  if (!pad) return RuleMatch::decline(why);
  std::vector<int64_t> pads;
  if (!attr_ints(rc.m, pad, "pads", pads)) return RuleMatch::decline("the Pad has no pads");
  if (attr_float(rc.m, pad, "value", 0.0f) != 0.0f) return RuleMatch::decline("the Pad value is not 0");
  return fold(rc.m, conv, pad, pads);
}

RuleMatch match_pad11(const RuleCtx& rc, Graph* g, Node* conv) {
  const Model& m = rc.m;
  const char* why;
  Node* pad = pad_of(m, g, conv, why);
  if (!pad) return RuleMatch::decline(why);
  std::vector<int64_t> pads;
  if (pad->inputs.size < 2 || !read_ints(const_tensor(m, pad->inputs[1]), pads))
    return RuleMatch::decline("the pads are not constant");
  if (pad->inputs.size > 2 && pad->inputs[2]) {
    std::vector<double> value;
    if (!read_doubles(const_tensor(m, pad->inputs[2]), value) || value.size() != 1 || value[0] != 0)
      return RuleMatch::decline("the Pad value is not a constant 0");
  }
  if (pad->inputs.size > 3 && pad->inputs[3]) return RuleMatch::decline("the Pad has an axes input (the opset 18 form is not folded)");  // opset 18: keep it simple
  return fold(m, conv, pad, pads);
}

}  // namespace

OFG_RULE_GROUP(fuse_pad_into_conv_rules,
  {"pad2_into_conv", {"Conv"}, "", 1, 10, match_pad2},
  {"pad11_into_conv", {"Conv"}, "", 11, kNoOpsetLimit, match_pad11});

}  // namespace ofg::passes
