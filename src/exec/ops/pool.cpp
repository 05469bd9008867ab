// Pooling family extras: LpPool, MaxUnpool, Col2Im (slow paths in double precision; the hot
// pooling ops are in nn.cpp).
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

// ------------------------------------------------------------------ pooling family extras

void op_lp_pool(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 3, 64);
  int r = xt.rank() - 2;
  std::vector<int64_t> k = axis_attr(c, "kernel_shape", r, 0, 1, 1 << 30);
  std::vector<int64_t> s = axis_attr(c, "strides", r, 1, 1, 1 << 30), d = axis_attr(c, "dilations", r, 1, 1, 1 << 30);
  std::vector<int64_t> pads = axis_attr(c, "pads", 2 * r, 0, 0, 1 << 30);
  double p = static_cast<double>(c.attr_i("p", 2));
  bool ceil_mode = c.attr_i("ceil_mode", 0) != 0;
  Shape in(xt.shape.begin() + 2, xt.shape.end());
  Shape out = spatial_out_dims(c, in, k, s, d, pads, ceil_mode);
  int64_t NC = xt.shape[0] * xt.shape[1], in_n = shape_numel(in), out_n = shape_numel(out);
  std::vector<double> x = f64_of(xt), y(scratch_elems(checked_mul(NC, out_n)), 0.0);
  WindowReader window(in, out, k, s, d, pads);
  int64_t kn = shape_numel(k);
  for (int64_t nc = 0; nc < NC; ++nc)
    for (int64_t o = 0; o < out_n; ++o) {
      double acc = 0;
      for (int64_t q = 0; q < kn; ++q) {
        int64_t off;
        if (window.at(o, q, off)) acc += std::pow(std::fabs(x[static_cast<size_t>(nc * in_n + off)]), p);
      }
      y[static_cast<size_t>(nc * out_n + o)] = std::pow(acc, 1.0 / p);
    }
  Shape os{xt.shape[0], xt.shape[1]};
  for (int64_t v : out) os.push_back(v);
  c.set(0, tensor_of(y, xt.dtype, os));
}

void op_max_unpool(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 3, 64);
  std::vector<int64_t> idx = to_i64_vec(c.t_dims(1, xt.shape));
  int r = xt.rank() - 2;
  std::vector<int64_t> k = axis_attr(c, "kernel_shape", r, 0, 1, 1 << 30), s = axis_attr(c, "strides", r, 1, 1, 1 << 30);
  std::vector<int64_t> pads = axis_attr(c, "pads", 2 * r, 0, 0, 1 << 30);
  // Indices address the shape a MaxPool of these attributes came from; a larger requested
  // output_shape holds that tensor in its leading corner.
  Shape inferred{xt.shape[0], xt.shape[1]};
  for (int a = 0; a < r; ++a)
    inferred.push_back(c.size_value(checked_add(checked_mul(xt.shape[a + 2] - 1, s[a]), k[a] - pads[a] - pads[a + r]), "an output dim"));
  Shape os = c.has(2) ? to_i64_vec(c.t(2)) : inferred;
  if (os.size() != inferred.size()) c.error("output_shape has the wrong rank");
  RTensor y = RTensor::alloc(xt.dtype, os);
  int64_t yn = shape_numel(inferred);
  auto ist = strides_of(inferred), ost = strides_of(os);
  for (int64_t i = 0; i < xt.numel(); ++i) {
    int64_t j = idx[static_cast<size_t>(i)];
    if (j < 0 || j >= yn) c.error("index out of range");
    int64_t o = 0;
    for (size_t a = 0; a < inferred.size(); ++a) {
      int64_t ia = (j / ist[a]) % inferred[a];
      if (ia >= os[a]) { o = -1; break; }
      o += ia * ost[a];
    }
    if (o >= 0) copy_elem(xt, i, y, o);
  }
  c.set(0, y);
}

void op_col2im(OpCtx& c) {
  const RTensor& xt = c.t(0);
  c.t_rank(0, 3);
  std::vector<int64_t> img = to_i64_vec(c.t_rank(1, 1)), blk = to_i64_vec(c.t_rank(2, 1));
  int r = static_cast<int>(img.size());
  if (blk.size() != img.size() || r < 1) c.error("image_shape and block_shape must have the same length >= 1");
  for (int a = 0; a < r; ++a) {
    c.size_value(img[a], "an image dim", 1 << 30);
    if (blk[a] < 1 || blk[a] > (1 << 30)) c.error("block_shape values must be positive");
  }
  std::vector<int64_t> d = axis_attr(c, "dilations", r, 1, 1, 1 << 30), s = axis_attr(c, "strides", r, 1, 1, 1 << 30);
  std::vector<int64_t> pads = axis_attr(c, "pads", 2 * r, 0, 0, 1 << 30);
  int64_t N = xt.shape[0], kn = shape_numel(blk), C = xt.shape[1] / kn, L = xt.shape[2];
  if (C * kn != xt.shape[1]) c.error("input channels " + std::to_string(xt.shape[1]) + " are not a multiple of the block size");
  std::vector<int64_t> nb(r);
  for (int a = 0; a < r; ++a) {
    int64_t span = img[a] + pads[a] + pads[a + r] - ((blk[a] - 1) * d[a] + 1);
    if (span < 0) c.error("the block is larger than the padded image");
    nb[a] = span / s[a] + 1;
  }
  if (shape_numel(nb) != L) c.error("number of blocks does not match the input");
  std::vector<double> x = f64_of(xt);
  int64_t in_n = shape_numel(img);
  std::vector<double> y(scratch_elems(checked_mul(checked_mul(N, C), in_n)), 0.0);
  WindowReader window(img, nb, blk, s, d, pads);  // block l is the window's output position
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t q = 0; q < kn; ++q)
        for (int64_t l = 0; l < L; ++l) {
          int64_t off;
          if (window.at(l, q, off)) y[static_cast<size_t>((n * C + ch) * in_n + off)] += x[static_cast<size_t>(((n * C + ch) * kn + q) * L + l)];
        }
  Shape os{N, C};
  for (int64_t v : img) os.push_back(v);
  c.set(0, tensor_of(y, xt.dtype, os));
}

}  // namespace

void register_pool_ops(Registry& r) {
  r.add("LpPool", op_lp_pool, 2).infer(rules::rule_pool);
  r.add("MaxUnpool", op_max_unpool, 9).no_rule();
  r.add("Col2Im", op_col2im, 18).no_rule();
}

}  // namespace ofg::exec
