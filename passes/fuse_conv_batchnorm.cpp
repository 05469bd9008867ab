// fuse_conv_batchnorm: BatchNormalization in inference mode after a Conv or ConvTranspose whose
// output it alone reads becomes new weights and bias on that Conv:
//   s = scale / sqrt(var + eps);  W'[oc] = W[oc] * s[oc];  b' = (b - mean) * s + B
// computed in double and stored in the weight's own float type. The original weight and bias are
// never changed (they may be shared): new initializers are made. Float-rounding bounded.
#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"
#include "onnx/mapped_file.h"
#include "passes/parallel.h"
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

// float32 weights, the common case, are scaled in float straight into the new tensor: no double
// copy of what can be the largest tensors of the model (one rounding, like the double path).
// The new tensor is made during the graph walk; its bytes are filled afterwards, all weights
// together on several threads (filling fresh memory is bound by page faults).
struct ScaleJob {
  const uint8_t* src;  // the old weight, possibly unaligned
  float* dst;
  size_t run;          // consecutive weights that share one output channel
  size_t runs;
  int64_t d1, per_group;  // ConvTranspose: W[a][b] is channel (a / per_group) * d1 + b
  bool transpose;
  std::vector<float> scale;
  Bytes dead_source;  // the old weight's loaded bytes when nothing else reads them
};

// Fills runs [r0, r1) of a job: each run is copied, then scaled in place while still in cache.
void fill_runs(const ScaleJob& j, size_t r0, size_t r1) {
  for (size_t r = r0; r < r1; ++r) {
    int64_t ri = static_cast<int64_t>(r);
    int64_t oc = j.transpose ? (ri / j.d1 / j.per_group) * j.d1 + ri % j.d1 : ri;
    float* at = j.dst + r * j.run;
    std::memcpy(at, j.src + r * j.run * sizeof(float), j.run * sizeof(float));
    kernels::active_table().binary_vs(kernels::BinaryOp::Mul, at, j.scale[oc], at, j.run);
  }
}

Tensor* scaled_float_weight(Model& m, const Tensor* wt, bool transpose, int64_t group, const std::vector<double>& s,
                            std::vector<ScaleJob>& jobs) {
  std::vector<int64_t> dims(wt->dims.begin(), wt->dims.end());
  Tensor* out = make_tensor(m, kFloat, dims.data(), dims.size(), nullptr, 0);
  size_t n = static_cast<size_t>(wt->numel());
  float* dst = static_cast<float*>(m.arena.allocate(n * sizeof(float) + 1, 64));
  int64_t d0 = wt->dims[0], d1 = wt->dims[1];
  int64_t inner = 1;
  for (uint32_t i = 2; i < wt->dims.size; ++i) inner *= wt->dims[i];
  ScaleJob j;
  j.src = wt->data.data;
  j.dst = dst;
  j.run = static_cast<size_t>(transpose ? inner : d1 * inner);  // Conv: all of W[oc] is one channel
  j.runs = j.run ? n / j.run : 0;
  j.d1 = d1;
  j.per_group = d0 / group;
  j.transpose = transpose;
  j.scale.assign(s.begin(), s.end());
  jobs.push_back(std::move(j));
  out->data = Bytes{reinterpret_cast<const uint8_t*>(dst), n * sizeof(float)};
  return out;
}

// Fills every pending job, in pieces of about 256 KiB spread over the pass's threads, about
// 4 MiB at a time (or one weight): the pages of old weights nothing reads any more are let go after each batch,
// so old and new weights are not all in memory at once (peak RSS).
void fill_all(const PassContext& ctx, std::vector<ScaleJob>& jobs) {
  struct Piece {
    const ScaleJob* job;
    size_t r0, r1;
  };
  constexpr size_t kPiece = size_t(256) << 10, kBatch = size_t(4) << 20;
  size_t first = 0;
  while (first < jobs.size()) {
    std::vector<Piece> pieces;
    size_t bytes = 0, end = first;
    for (; end < jobs.size() && (end == first || bytes < kBatch); ++end) {
      const ScaleJob& j = jobs[end];
      size_t per_piece = std::max<size_t>(1, kPiece / (j.run * sizeof(float) + 1));
      for (size_t r = 0; r < j.runs; r += per_piece) pieces.push_back({&j, r, std::min(j.runs, r + per_piece)});
      bytes += j.runs * j.run * sizeof(float);
    }
    unsigned threads = pieces.size() > 4 ? pass_threads(ctx) : 1;  // small tensors: no thread start-up
    parallel_for(pieces.size(), threads, [&](size_t i) { fill_runs(*pieces[i].job, pieces[i].r0, pieces[i].r1); });
    for (size_t k = first; k < end; ++k) release_loaded_bytes(ctx.m, jobs[k].dead_source);
    first = end;
  }
  jobs.clear();
}

}  // namespace

void run_fuse_conv_batchnorm(PassContext& ctx) {
  Model& m = ctx.m;
  std::vector<ScaleJob> jobs;
  for (Graph* g : all_graphs(m)) {
    g->for_each_node([&](Node* bn) {
      if (!is_op(m, bn, "BatchNormalization") || bn->inputs.size != 5 || !bn->outputs[0]) return;
      // Training-mode BN (extra outputs used, or training_mode=1) computes batch statistics.
      for (uint32_t i = 1; i < bn->outputs.size; ++i)
        if (bn->outputs[i] && (bn->outputs[i]->uses.size || bn->outputs[i]->is_graph_output())) return;
      if (attr_i(m, bn, "training_mode", 0) != 0) return;
      if (attr_i(m, bn, "spatial", 1) != 1) return;  // opset < 9 per-activation BN
      if (opset(m) < 7 && attr_i(m, bn, "is_test", 0) == 0) return;
      Value* y = bn->inputs[0];
      Node* conv = producer_if(m, y, "Conv");
      bool transpose = false;
      if (!conv) {
        conv = producer_if(m, y, "ConvTranspose");
        transpose = conv != nullptr;
      }
      if (!conv || !single_use(y) || conv->inputs.size < 2 || read_by_custom(m, bn->outputs[0])) return;
      const Tensor* wt = const_tensor(m, conv->inputs[1]);
      if (!wt || !is_float_type(wt->data_type) || wt->dims.size < 3) return;
      // A weight made by an earlier fusion of this walk (Conv -> BN -> BN) must be filled first.
      for (const ScaleJob& j : jobs)
        if (reinterpret_cast<const uint8_t*>(j.dst) == wt->data.data) {
          fill_all(ctx, jobs);
          break;
        }
      const Tensor* bt = conv->inputs.size > 2 && conv->inputs[2] ? const_tensor(m, conv->inputs[2]) : nullptr;
      if (conv->inputs.size > 2 && conv->inputs[2] && !bt) return;  // bias computed at run time
      int64_t group = attr_i(m, conv, "group", 1);
      if (group <= 0) return;
      int64_t cout = transpose ? wt->dims[1] * group : wt->dims[0];
      if (transpose && wt->dims[0] % group) return;
      if (!dense(wt, dtype_size(wt->data_type))) return;
      std::vector<double> w, b, scale, beta, mean, var;
      const Tensor* params[4];
      std::vector<double>* dst[4] = {&scale, &beta, &mean, &var};
      for (int k = 0; k < 4; ++k) {
        params[k] = const_tensor(m, bn->inputs[1 + k]);
        if (!params[k] || !read_doubles(params[k], *dst[k]) || static_cast<int64_t>(dst[k]->size()) != cout) return;
      }
      if (bt) {
        if (bt->data_type != wt->data_type || !read_doubles(bt, b) || static_cast<int64_t>(b.size()) != cout) return;
      } else {
        b.assign(static_cast<size_t>(cout), 0.0);
      }
      double eps = attr_f(m, bn, "epsilon", 1e-5f);
      std::vector<double> s(static_cast<size_t>(cout));
      for (int64_t c = 0; c < cout; ++c) {
        s[c] = scale[c] / std::sqrt(var[c] + eps);
        b[c] = (b[c] - mean[c]) * s[c] + beta[c];
      }
      Tensor* fused;
      if (wt->data_type == kFloat) {
        fused = scaled_float_weight(m, wt, transpose, group, s, jobs);
      } else {
        if (!read_doubles(wt, w)) return;
        scale_weight(w, wt, transpose, group, s);
        std::vector<int64_t> wdims(wt->dims.begin(), wt->dims.end());
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
        if (wt->data_type == kFloat) jobs.back().dead_source = wt->data;  // once the job has read it
        else release_loaded_bytes(m, wt->data);
      }
      // The Conv now writes the BN's output value, so its readers and name are unchanged.
      Value* out = bn->outputs[0];
      drop(ctx, bn);
      take_output(conv, 0, out);
      ++ctx.changes;
    });
  }
  fill_all(ctx, jobs);
}

}  // namespace ofg::passes
