// fuse_conv_add_mul: Conv(x, W, b) followed by Add(c) or Mul(c), where c is a constant that is
// per output channel ([C,1,...,1], [1,C,1,...,1], or one element) and cannot raise the rank, and the
// Conv output has no other reader, becomes Conv(x, W', b'):
//   Add: b' = b + c;   Mul: W'[oc] = W[oc] * c[oc], b' = b * c.
// A bias computed at run time, or one varying over spatial dims, is left alone. New initializers
// are made; the old ones may be shared. Float-rounding bounded.
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// Per-channel values of c for a Conv output of rank `rank` with `cout` channels, or false.
bool per_channel(const Tensor* c, size_t rank, int64_t cout, std::vector<double>& out) {
  std::vector<double> v;
  if (!read_doubles(c, v) || c->dims.size > rank) return false;
  // Right-aligned broadcasting: c's dim j lines up with output dim j + (rank - c.rank).
  int64_t channel_count = 1;
  for (uint32_t j = 0; j < c->dims.size; ++j) {
    size_t out_dim = j + (rank - c->dims.size);
    int64_t d = c->dims[j];
    if (out_dim == 1) {
      if (d != 1 && d != cout) return false;
      channel_count = d;
    } else if (d != 1) {
      return false;
    }
  }
  out.resize(static_cast<size_t>(cout));
  for (int64_t k = 0; k < cout; ++k) out[k] = channel_count == 1 ? v[0] : v[k];
  return true;
}


RuleMatch match_conv_add_mul(const RuleCtx& rc, Graph* g, Node* op) {
  const Model& m = rc.m;
  bool is_mul = m.str(op->op_type) == "Mul";
  if (op->inputs.size != 2 || !op->outputs[0]) return RuleMatch::decline("not a two-input op with an output");
  if (read_by_custom(m, op->outputs[0])) return RuleMatch::decline("a custom-domain node reads the output");
  const char* why = "no operand is made by a Conv of this graph";
  for (int k = 0; k < 2; ++k) {
    Value* y = op->inputs[k];
    Node* conv = producer_if(m, y, "Conv", g);
    if (!conv || conv->inputs.size < 2) continue;
    const Tensor* c = const_tensor(m, op->inputs[1 - k]);
    if (!c) {
      why = "the operand beside the Conv is not constant";
      continue;
    }
    if (!single_use(y)) {
      why = "the Conv output has a second consumer (folding would change it for that reader)";
      continue;
    }
    // From here on the first Conv operand decides (as the pass did): a failed check declines.
    const Tensor* wt = const_tensor(m, conv->inputs[1]);
    if (!wt || !is_float_type(wt->data_type) || c->data_type != wt->data_type || wt->dims.size < 3)
      return RuleMatch::decline("the weight is not a float constant of the operand's type");
    const Tensor* bt = conv->inputs.size > 2 && conv->inputs[2] ? const_tensor(m, conv->inputs[2]) : nullptr;
    if (conv->inputs.size > 2 && conv->inputs[2] && !bt) return RuleMatch::decline("the bias is computed at run time");
    int64_t cout = wt->dims[0];
    std::vector<double> cv, w, b;
    if (!per_channel(c, wt->dims.size, cout, cv)) return RuleMatch::decline("the operand is not per output channel");
    if (bt) {
      if (!read_doubles(bt, b) || static_cast<int64_t>(b.size()) != cout) return RuleMatch::decline("the bias is not Cout values");
    } else {
      b.assign(static_cast<size_t>(cout), 0.0);
    }
    if (is_mul) {
      if (!read_doubles(wt, w)) return RuleMatch::decline("the Conv weight cannot be read as numbers");
      size_t inner = w.size() / static_cast<size_t>(cout);
      for (int64_t oc = 0; oc < cout; ++oc)
        for (size_t i = 0; i < inner; ++i) w[oc * inner + i] *= cv[oc];
      for (int64_t oc = 0; oc < cout; ++oc) b[oc] *= cv[oc];
    } else {
      for (int64_t oc = 0; oc < cout; ++oc) b[oc] += cv[oc];
    }
    bool has_bias = bt != nullptr;
    return RuleMatch::rewrite(is_mul ? "Conv * c -> Conv weights and bias" : "Conv + c -> Conv bias",
                              [g, op, conv, wt, is_mul, has_bias, cout, w = std::move(w), b = std::move(b)](PassContext& ctx) -> int64_t {
      Model& m = ctx.m;
      std::string base = std::string(m.str(conv->inputs[1]->name));
      if (is_mul) {
        std::vector<int64_t> wdims(wt->dims.begin(), wt->dims.end());
        set_input(conv, 1, add_initializer(g, base + "_scaled", tensor_from_doubles(m, wt->data_type, wdims, w)));
      }
      // With no bias and a Mul, the bias stays zero: no need to add one.
      if (has_bias || !is_mul) {
        if (conv->inputs.size < 3) resize_inputs(conv, 3);
        set_input(conv, 2, add_initializer(g, base + "_bias", tensor_from_doubles(m, wt->data_type, {cout}, b)));
      }
      Value* out = op->outputs[0];
      drop(ctx, op);
      take_output(conv, 0, out);
      return 1;
    });
  }
  return RuleMatch::decline(why);
}

}  // namespace

OFG_RULE_GROUP(fuse_conv_add_mul_rules,
  {"conv_add_mul", {"Add", "Mul"}, "", 1, kNoOpsetLimit, match_conv_add_mul});

}  // namespace ofg::passes
