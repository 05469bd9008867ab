// fuse_conv_batchnorm: BatchNormalization in inference mode after a Conv or ConvTranspose whose
// output it alone reads becomes new weights and bias on that Conv:
//   s = scale / sqrt(var + eps);  W'[oc] = W[oc] * s[oc];  b' = (b - mean) * s + B
// computed in double and stored in the weight's own float type. The original weight and bias are
// never changed (they may be shared): new initializers are made. Float-rounding bounded.
#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// Scales output channel `oc` of a Conv weight [Cout, Cin/g, k...] or ConvTranspose weight
// [Cin, Cout/g, k...] by s[oc].
void scale_weight(std::vector<double>& w, const Tensor* wt, bool transpose, int64_t group, const std::vector<double>& s) {
  int64_t d0 = wt->dims[0], d1 = wt->dims[1];
  int64_t inner = 1;
  for (uint32_t i = 2; i < wt->dims.size; ++i) inner *= wt->dims[i];
  for (int64_t a = 0; a < d0; ++a)
    for (int64_t b = 0; b < d1; ++b) {
      int64_t oc = transpose ? (a / (d0 / group)) * d1 + b : a;
      double f = s[oc];
      double* p = &w[(a * d1 + b) * inner];
      for (int64_t k = 0; k < inner; ++k) p[k] *= f;
    }
}

// float32 weights, the common case, are not computed by the pass: the fused weight is a tensor
// whose recipe scales the old weight's bytes when they are read. Saving streams it straight into
// the file, so the model never holds a second copy of its weights (filling fresh memory with
// them cost more than copying the whole file). Scaled in float: one rounding, like the double
// path.
class ScaleRecipe final : public TensorRecipe {
 public:
  ScaleRecipe(Model& m, const Tensor* src, bool transpose, int64_t group, const std::vector<double>& s)
      : TensorRecipe(&m.arena), model_(&m), src_(src), transpose_(transpose) {
    int64_t inner = 1;
    for (uint32_t i = 2; i < src->dims.size; ++i) inner *= src->dims[i];
    d1_ = static_cast<size_t>(src->dims[1]);
    per_group_ = static_cast<size_t>(src->dims[0] / group);
    run_ = static_cast<size_t>(transpose ? inner : src->dims[1] * inner);  // Conv: all of W[oc] is one channel
    scale_ = m.arena.make_array<float>(s.size());
    for (size_t c = 0; c < s.size(); ++c) scale_[c] = static_cast<float>(s[c]);
  }
  // The old weight is read by nothing else: its pages of the mapped file may go once read.
  void set_source_dead() { source_dead_ = true; }

  void fill(size_t offset, size_t size, uint8_t* dst) const override {
    float* w = reinterpret_cast<float*>(dst);
    // The old weight is read where it is (one pass over the bytes) when its floats are aligned;
    // otherwise (raw_data at an odd file offset, or a weight still to be computed) it is copied
    // into dst first and scaled there.
    const float* from = w;
    const uint8_t* src = src_->recipe ? nullptr : src_->data.data + offset;
    if (src && reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) from = reinterpret_cast<const float*>(src);
    else src_->read(offset, size, dst);
    if (run_ == 0) return;
    const size_t first = offset / sizeof(float), count = size / sizeof(float);
    for (size_t i = 0; i < count;) {  // one multiply per run of weights that share a channel
      const size_t at = first + i, run = at / run_;
      const size_t n = std::min(count - i, (run + 1) * run_ - at);
      kernels::active_table().binary_vs(kernels::BinaryOp::Mul, from + i, scale_[channel(run)], w + i, n);
      i += n;
    }
  }
  void release_sources() const override {
    if (source_dead_) release_loaded_bytes(*model_, src_->data);
  }

 private:
  // Output channel of run r: Conv W[oc] is one run; ConvTranspose W[a][b] (a run each) belongs to
  // channel (a / per_group) * d1 + b.
  size_t channel(size_t r) const { return transpose_ ? (r / d1_ / per_group_) * d1_ + r % d1_ : r; }

  const Model* model_;
  const Tensor* src_;
  bool transpose_;
  bool source_dead_ = false;
  size_t d1_ = 0, per_group_ = 1, run_ = 0;
  float* scale_ = nullptr;
};

RuleMatch match_bn(const RuleCtx& rc, Graph* g, Node* bn) {
  const Model& m = rc.m;
  if (bn->inputs.size != 5 || !bn->outputs[0]) return RuleMatch::decline("BatchNormalization without 5 inputs and an output");
  // Training-mode BN (extra outputs used, or training_mode=1) computes batch statistics.
  for (uint32_t i = 1; i < bn->outputs.size; ++i)
    if (bn->outputs[i] && (bn->outputs[i]->uses.size || bn->outputs[i]->is_graph_output()))
      return RuleMatch::decline("the running mean/variance outputs are read (training)");
  if (attr_int(m, bn, "training_mode", 0) != 0) return RuleMatch::decline("training_mode=1: the statistics are computed from each batch");
  if (attr_int(m, bn, "spatial", 1) != 1) return RuleMatch::decline("per-activation BN (spatial=0)");  // opset < 9
  Value* y = bn->inputs[0];
  Node* conv = producer_if(m, y, "Conv", g);
  bool transpose = false;
  if (!conv) {
    conv = producer_if(m, y, "ConvTranspose", g);
    transpose = conv != nullptr;
  }
  if (!conv || conv->inputs.size < 2) return RuleMatch::decline("the input is not made by a Conv or ConvTranspose of this graph");
  if (!single_use(y))
    return RuleMatch::decline("the Conv output has a second consumer besides BatchNormalization (folding would change it for that reader)");
  if (read_by_custom(m, bn->outputs[0])) return RuleMatch::decline("a custom-domain node reads the BatchNormalization output");
  const Tensor* wt = const_tensor(m, conv->inputs[1]);
  if (!wt || !is_float_type(wt->data_type) || wt->dims.size < 3) return RuleMatch::decline("the Conv weight is not constant (or not a float tensor of rank >= 3)");
  const Tensor* bt = conv->inputs.size > 2 && conv->inputs[2] ? const_tensor(m, conv->inputs[2]) : nullptr;
  if (conv->inputs.size > 2 && conv->inputs[2] && !bt) return RuleMatch::decline("the bias is computed at run time");
  int64_t group = attr_int(m, conv, "group", 1);
  if (group <= 0) return RuleMatch::decline("the Conv group attribute is not positive");
  int64_t cout = transpose ? wt->dims[1] * group : wt->dims[0];
  if (transpose && wt->dims[0] % group) return RuleMatch::decline("group does not divide the weight");
  if (!dense(wt, dtype_size(wt->data_type))) return RuleMatch::decline("the weight's bytes are not all present");
  std::vector<double> w, b, scale, beta, mean, var;
  const Tensor* params[4];
  std::vector<double>* dst[4] = {&scale, &beta, &mean, &var};
  for (int k = 0; k < 4; ++k) {
    params[k] = const_tensor(m, bn->inputs[1 + k]);
    if (!params[k] || !read_doubles(params[k], *dst[k]) || static_cast<int64_t>(dst[k]->size()) != cout)
      return RuleMatch::decline("a BN parameter is not a constant of Cout values");
  }
  if (bt) {
    if (bt->data_type != wt->data_type || !read_doubles(bt, b) || static_cast<int64_t>(b.size()) != cout)
      return RuleMatch::decline("the bias is not Cout values of the weight's type");
  } else {
    b.assign(static_cast<size_t>(cout), 0.0);
  }
  double eps = attr_float(m, bn, "epsilon", 1e-5f);
  std::vector<double> s(static_cast<size_t>(cout));
  for (int64_t c = 0; c < cout; ++c) {
    s[c] = scale[c] / std::sqrt(var[c] + eps);
    b[c] = (b[c] - mean[c]) * s[c] + beta[c];
  }
  if (wt->data_type != kFloat) {
    if (!read_doubles(wt, w)) return RuleMatch::decline("the Conv weight cannot be read as numbers");
    scale_weight(w, wt, transpose, group, s);
  }
  return RuleMatch::rewrite(transpose ? "ConvTranspose + BN -> ConvTranspose" : "Conv + BN -> Conv",
                            [g, bn, conv, wt, transpose, group, cout, s = std::move(s), w = std::move(w),
                             b = std::move(b)](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    Tensor* fused;
    ScaleRecipe* recipe = nullptr;
    std::vector<int64_t> wdims(wt->dims.begin(), wt->dims.end());
    if (wt->data_type == kFloat) {
      // A weight made by an earlier fusion (Conv -> BN -> BN) is read through its own recipe.
      recipe = m.arena.make<ScaleRecipe>(m, wt, transpose, group, s);
      fused = make_computed_tensor(m, kFloat, wdims.data(), wdims.size(), wt->data.size, recipe);
    } else {
      fused = tensor_from_doubles(m, wt->data_type, wdims, w);
    }
    Value* old_weight = conv->inputs[1];
    std::string base = std::string(m.str(old_weight->name));
    Value* nw = add_initializer(g, base + "_bn", fused);
    Value* nb = add_initializer(g, base + "_bn_bias", tensor_from_doubles(m, wt->data_type, {cout}, b));
    if (conv->inputs.size < 3) resize_inputs(conv, 3);
    set_input(conv, 1, nw);
    set_input(conv, 2, nb);
    // The old weight is dead unless shared: let its pages of the mapped file go (peak RSS).
    if (old_weight->uses.size == 0 && !old_weight->is_graph_output()) {
      if (recipe) recipe->set_source_dead();  // once the recipe has read it
      else release_loaded_bytes(m, wt->data);
    }
    // The Conv now writes the BN's output value, so its readers and name are unchanged.
    Value* out = bn->outputs[0];
    drop(ctx, bn);
    take_output(conv, 0, out);
    return 1;
  });
}

// Before opset 7 BN is in inference mode only with is_test set.
RuleMatch match_bn_is_test(const RuleCtx& rc, Graph* g, Node* bn) {
  if (attr_int(rc.m, bn, "is_test", 0) == 0) return RuleMatch::decline("is_test unset: opset < 7 trains");
  return match_bn(rc, g, bn);
}

}  // namespace

OFG_RULE_GROUP(fuse_conv_batchnorm_rules,
  {"conv_batchnorm_is_test", {"BatchNormalization"}, "", 1, 6, match_bn_is_test},
  {"conv_batchnorm", {"BatchNormalization"}, "", 7, kNoOpsetLimit, match_bn});

}  // namespace ofg::passes
