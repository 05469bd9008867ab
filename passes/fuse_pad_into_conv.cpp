// fuse_pad_into_conv: a constant-mode Pad with value 0 and non-negative constant pads on the
// spatial dims only, read only by a Conv (explicit padding), becomes part of the Conv's pads.
// Exact: the Conv reads the same zeros.
#include "kernels/spatial.h"
#include "passes/util.h"

namespace ofg::passes {

void run_fuse_pad_into_conv(PassContext& ctx) {
  Model& m = ctx.m;
  int64_t ops = opset(m);
  for_each_op(m, "Conv", [&](Graph* g, Node* conv) {
    if (conv->inputs.size < 2 || !conv->inputs[0]) return;
    Value* padded = conv->inputs[0];
    Node* pad = producer_if(m, padded, "Pad", g);
    if (!pad || !single_use(padded) || !pad->inputs[0]) return;
    if (kernels::parse_auto_pad(attr_string(m, conv, "auto_pad", "NOTSET")) != kernels::AutoPad::kNotSet) return;
    if (attr_string(m, pad, "mode", "constant") != "constant") return;
    std::vector<int64_t> pads;
    if (ops < 11) {
      if (!attr_ints(m, pad, "pads", pads)) return;
      if (attr_float(m, pad, "value", 0.0f) != 0.0f) return;
    } else {
      if (pad->inputs.size < 2 || !read_ints(const_tensor(m, pad->inputs[1]), pads)) return;
      if (pad->inputs.size > 2 && pad->inputs[2]) {
        std::vector<double> value;
        if (!read_doubles(const_tensor(m, pad->inputs[2]), value) || value.size() != 1 || value[0] != 0) return;
      }
      if (pad->inputs.size > 3 && pad->inputs[3]) return;  // axes (opset 18): keep it simple
    }
    if (pads.size() < 4 || pads.size() % 2) return;
    size_t rank = pads.size() / 2, spatial = rank - 2;
    // Batch and channel dims must not be padded; negative pads crop, which Conv cannot do.
    if (pads[0] || pads[1] || pads[rank] || pads[rank + 1]) return;
    for (int64_t p : pads)
      if (p < 0) return;
    std::vector<int64_t> conv_pads(2 * spatial, 0);
    std::vector<int64_t> existing;
    if (attr_ints(m, conv, "pads", existing)) {
      if (existing.size() != conv_pads.size()) return;
      conv_pads = existing;
    }
    for (size_t i = 0; i < spatial; ++i) {
      conv_pads[i] += pads[2 + i];
      conv_pads[spatial + i] += pads[rank + 2 + i];
    }
    set_attr_ints(m, conv, "pads", conv_pads);
    set_input(conv, 0, pad->inputs[0]);
    drop(ctx, pad);
    ++ctx.changes;
  });
}

}  // namespace ofg::passes
