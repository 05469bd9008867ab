// Assorted ops that have no family of their own: Einsum, GridSample, AffineGrid, LpPool,
// MaxUnpool, Col2Im, CenterCropPad, CumProd, Unique, Compress, ReverseSequence, Det, Shrink,
// Swish, the window generators. Slow paths in double precision: these appear rarely and on small
// tensors, exactness against the reference matters more than speed.
#include <map>
#include <numeric>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<double> f64_of(const RTensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = get_f64(t, static_cast<int64_t>(i));
  return v;
}

RTensor tensor_of(const std::vector<double>& v, int32_t dt, Shape s) {
  RTensor t = RTensor::alloc(dt, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) set_f64(t, static_cast<int64_t>(i), v[i]);
  return t;
}

// Copies element `src_i` of a to element `dst_i` of b (same dtype, any type).
inline void copy_elem(const RTensor& a, int64_t src_i, RTensor& b, int64_t dst_i) {
  size_t es = a.elem_size();
  std::memcpy(b.ptr + static_cast<size_t>(dst_i) * es, a.ptr + static_cast<size_t>(src_i) * es, es);
}

// ------------------------------------------------------------------ Einsum

void op_einsum(OpCtx& c) {
  std::string eq;
  for (char ch : c.attr_s("equation", "")) if (ch != ' ') eq.push_back(ch);
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  size_t arrow = eq.find("->");
  if (arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  {
    size_t p = 0;
    for (;;) {
      size_t q = lhs.find(',', p);
      terms.push_back(lhs.substr(p, q == std::string::npos ? std::string::npos : q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
  }
  if (terms.size() != c.n_in()) c.error("equation has " + std::to_string(terms.size()) + " operands, node has " + std::to_string(c.n_in()));
  // Labels: letters keep their code; ellipsis axes become codes 200+k (k counted from the left
  // of the broadcast ellipsis block).
  size_t ell_rank = 0;
  std::vector<std::vector<int>> labels(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string& t = terms[k];
    size_t letters = 0;
    for (char ch : t) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
    if (static_cast<size_t>(c.t(k).rank()) < letters) c.error("operand " + std::to_string(k) + " has fewer axes than '" + t + "'");
    for (size_t i = 0; i < t.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(t[i])) && t.compare(i, 3, "...") != 0) c.error("bad term '" + t + "'");
      else if (t[i] == '.') i += 2;
    if (t.find("...") != std::string::npos) ell_rank = std::max(ell_rank, static_cast<size_t>(c.t(k).rank()) - letters);
  }
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string& t = terms[k];
    size_t letters = 0;
    for (char ch : t) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
    size_t here = static_cast<size_t>(c.t(k).rank()) - letters;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '.') {
        for (size_t e = 0; e < here; ++e) labels[k].push_back(200 + static_cast<int>(ell_rank - here + e));
        i += 2;
      } else {
        labels[k].push_back(t[i]);
      }
    }
    if (labels[k].size() != static_cast<size_t>(c.t(k).rank())) c.error("operand " + std::to_string(k) + " rank does not match '" + t + "'");
  }
  std::map<int, int64_t> size;
  std::map<int, int> count;
  for (size_t k = 0; k < terms.size(); ++k)
    for (size_t i = 0; i < labels[k].size(); ++i) {
      int l = labels[k][i];
      int64_t d = c.t(k).shape[i];
      ++count[l];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) size[l] = d;
      else if (d != 1 && d != it->second) c.error("dimension mismatch for an einsum label");
    }
  std::vector<int> out;
  if (explicit_out) {
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(rhs[i])) && rhs.compare(i, 3, "...") != 0) c.error("bad output '" + rhs + "'");
      if (rhs[i] != '.' && !size.count(rhs[i])) c.error("output label not in any operand: '" + rhs + "'");
      if (rhs[i] == '.') {
        for (size_t e = 0; e < ell_rank; ++e) out.push_back(200 + static_cast<int>(e));
        i += 2;
      } else {
        out.push_back(rhs[i]);
      }
    }
  } else {
    for (size_t e = 0; e < ell_rank; ++e) out.push_back(200 + static_cast<int>(e));
    for (auto& kv : count)
      if (kv.first < 200 && kv.second == 1) out.push_back(kv.first);
  }
  std::vector<int> all = out;
  for (auto& kv : size)
    if (std::find(all.begin(), all.end(), kv.first) == all.end()) all.push_back(kv.first);
  std::map<int, size_t> pos;
  for (size_t i = 0; i < all.size(); ++i) pos[all[i]] = i;
  std::vector<int64_t> dims(all.size());
  for (size_t i = 0; i < all.size(); ++i) dims[i] = size[all[i]];
  // Per operand, stride of each loop variable (0 when absent or broadcast).
  std::vector<std::vector<int64_t>> st(terms.size(), std::vector<int64_t>(all.size(), 0));
  std::vector<std::vector<double>> vals(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const RTensor& t = c.t(k);
    vals[k] = f64_of(t);
    auto s = strides_of(t.shape);
    for (size_t i = 0; i < labels[k].size(); ++i)
      if (t.shape[i] != 1) st[k][pos[labels[k][i]]] += s[i];
  }
  Shape oshape;
  for (int l : out) oshape.push_back(size[l]);
  int64_t onum = shape_numel(oshape), inner = 1;
  for (size_t i = out.size(); i < all.size(); ++i) inner = checked_mul(inner, dims[i]);
  std::vector<double> res(scratch_elems(onum), 0.0);
  std::vector<int64_t> idx(all.size(), 0);
  int64_t total = checked_mul(onum, inner);
  std::vector<int64_t> off(terms.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    double p = 1;
    for (size_t k = 0; k < terms.size(); ++k) p *= vals[k][static_cast<size_t>(off[k])];
    res[static_cast<size_t>(n / inner)] += p;
    for (size_t d = all.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) {
        for (size_t k = 0; k < terms.size(); ++k) off[k] += st[k][d];
        break;
      }
      for (size_t k = 0; k < terms.size(); ++k) off[k] -= st[k][d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
  c.set(0, tensor_of(res, c.t(0).dtype, oshape));
}

// ------------------------------------------------------------------ GridSample / AffineGrid

double gs_reflect(double x, double lo, double hi) {
  double rng = hi - lo;
  if (rng <= 0) return lo;
  if (x < lo) {
    double dx = lo - x;
    int64_t n = saturate_cast<int64_t>(dx / rng);
    double r = dx - static_cast<double>(n) * rng;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double dx = x - hi;
    int64_t n = saturate_cast<int64_t>(dx / rng);
    double r = dx - static_cast<double>(n) * rng;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void op_grid_sample(OpCtx& c) {
  const RTensor& xt = c.t(0);
  const RTensor& gt = c.t(1);
  int r = xt.rank() - 2;
  if (r < 1 || gt.rank() != r + 2 || gt.shape.back() != r || gt.shape[0] != xt.shape[0])
    c.error("grid " + shape_str(gt.shape) + " does not match the input " + shape_str(xt.shape));
  std::string mode = c.attr_s("mode", c.opset >= 20 ? "linear" : "bilinear");
  if (mode == "bilinear") mode = "linear";
  if (mode == "bicubic") mode = "cubic";
  std::string pad = c.attr_s("padding_mode", "zeros");
  bool align = c.attr_i("align_corners", 0) != 0;
  int64_t N = xt.shape[0], C = xt.shape[1];
  Shape in(xt.shape.begin() + 2, xt.shape.end());
  Shape outsp(gt.shape.begin() + 1, gt.shape.end() - 1);
  int64_t in_n = shape_numel(in), out_n = shape_numel(outsp);
  if (in_n == 0 && N * C * out_n != 0) c.error("cannot sample an empty input " + shape_str(xt.shape));
  std::vector<double> x = f64_of(xt), g = f64_of(gt);
  Shape oshape{N, C};
  for (int64_t d : outsp) oshape.push_back(d);
  std::vector<double> y(scratch_elems(checked_mul(checked_mul(N, C), out_n)), 0.0);
  auto ist = strides_of(in);
  std::vector<double> lo(r), hi(r);
  for (int a = 0; a < r; ++a) {
    lo[a] = align ? 0 : -0.5;
    hi[a] = align ? static_cast<double>(in[a] - 1) : static_cast<double>(in[a]) - 0.5;
  }
  // Value of integer position p (spatial axes in input order), padding rules applied.
  auto pixel = [&](const double* img, std::vector<int64_t>& p) -> double {
    int64_t off = 0;
    for (int a = 0; a < r; ++a) {
      int64_t v = p[a];
      if (v < 0 || v >= in[a]) {
        if (pad == "zeros") return 0;
        if (pad == "border") v = std::min(std::max<int64_t>(v, 0), in[a] - 1);
        else {
          v = static_cast<int64_t>(gs_reflect(static_cast<double>(v), lo[a], hi[a]));
          v = std::min(std::max<int64_t>(v, 0), in[a] - 1);
        }
      }
      off += v * ist[a];
    }
    return img[off];
  };
  std::vector<double> coord(r);
  std::vector<int64_t> p(r), base(r);
  std::vector<std::vector<double>> w(r);
  int taps = mode == "cubic" ? 4 : 2;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < out_n; ++o) {
      const double* gp = g.data() + static_cast<size_t>((n * out_n + o) * r);
      for (int a = 0; a < r; ++a) {
        // The grid's last axis lists x (innermost spatial axis) first.
        double v = gp[r - 1 - a];
        double s = static_cast<double>(in[a]);
        double u = align ? (v + 1) / 2 * (s - 1) : ((v + 1) * s - 1) / 2;
        if (mode != "cubic") {
          if (pad == "border") u = std::min(std::max(u, 0.0), s - 1);
          else if (pad == "reflection") u = std::min(std::max(gs_reflect(u, lo[a], hi[a]), 0.0), s - 1);
        }
        // Far outside (or NaN) samples only padding: bounded so that the integer positions
        // derived below cannot overflow.
        if (!(u > -1e15)) u = -1e15;
        if (u > 1e15) u = 1e15;
        coord[a] = u;
      }
      for (int64_t ch = 0; ch < C; ++ch) {
        const double* img = x.data() + static_cast<size_t>((n * C + ch) * in_n);
        double val = 0;
        if (mode == "nearest") {
          for (int a = 0; a < r; ++a) p[a] = static_cast<int64_t>(std::nearbyint(coord[a]));
          val = pixel(img, p);
        } else {
          for (int a = 0; a < r; ++a) {
            double f = std::floor(coord[a]), t = coord[a] - f;
            w[a].assign(taps, 0.0);
            if (taps == 2) {
              base[a] = static_cast<int64_t>(f);
              w[a][0] = 1 - t;
              w[a][1] = t;
            } else {
              base[a] = static_cast<int64_t>(f) - 1;
              const double A = -0.75;
              auto k = [&](double d) {
                d = std::fabs(d);
                if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
                if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
                return 0.0;
              };
              for (int q = 0; q < 4; ++q) w[a][q] = k(t + 1 - q);
            }
          }
          int64_t combos = 1;
          for (int a = 0; a < r; ++a) combos *= taps;
          for (int64_t m = 0; m < combos; ++m) {
            int64_t rem = m;
            double wt = 1;
            for (int a = r; a-- > 0;) {
              int q = static_cast<int>(rem % taps);
              rem /= taps;
              p[a] = base[a] + q;
              wt *= w[a][q];
            }
            if (wt != 0) val += wt * pixel(img, p);
          }
        }
        y[static_cast<size_t>((n * C + ch) * out_n + o)] = val;
      }
    }
  c.set(0, tensor_of(y, xt.dtype, oshape));
}

void op_affine_grid(OpCtx& c) {
  const RTensor& th = c.t(0);
  std::vector<int64_t> sz = to_i64_vec(c.t(1));
  bool align = c.attr_i("align_corners", 0) != 0;
  int r = static_cast<int>(sz.size()) - 2;
  if (r != 2 && r != 3) c.error("size must have 4 or 5 entries");
  int64_t N = sz[0];
  for (int64_t v : sz) c.size_value(v, "a size");
  if (th.shape != Shape{N, r, r + 1}) c.error("theta must have shape " + shape_str({N, r, r + 1}) + ", got " + shape_str(th.shape));
  std::vector<double> t = f64_of(th);
  Shape sp(sz.begin() + 2, sz.end());
  int64_t num = shape_numel(sp);
  std::vector<double> y(scratch_elems(checked_mul(checked_mul(N, num), r)));
  auto lin = [&](int64_t i, int64_t n) {
    if (align) return n == 1 ? 0.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
    return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
  };
  auto st = strides_of(sp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < num; ++o) {
      // Base coordinates ordered x (innermost axis), y, [z], then 1.
      std::vector<double> b(r + 1, 1.0);
      for (int a = 0; a < r; ++a) {
        int64_t ia = (o / st[a]) % sp[a];
        b[r - 1 - a] = lin(ia, sp[a]);
      }
      for (int k = 0; k < r; ++k) {
        double s = 0;
        for (int j = 0; j <= r; ++j) s += t[static_cast<size_t>((n * r + k) * (r + 1) + j)] * b[j];
        y[static_cast<size_t>((n * num + o) * r + k)] = s;
      }
    }
  Shape os{N};
  for (int64_t d : sp) os.push_back(d);
  os.push_back(r);
  c.set(0, tensor_of(y, th.dtype, os));
}

// ------------------------------------------------------------------ pooling family extras

void op_lp_pool(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 3, 64);
  int r = xt.rank() - 2;
  std::vector<int64_t> k = axis_attr(c, "kernel_shape", r, 0, 1, 1 << 30);
  std::vector<int64_t> s = axis_attr(c, "strides", r, 1, 1, 1 << 30), d = axis_attr(c, "dilations", r, 1, 1, 1 << 30);
  std::vector<int64_t> pads = axis_attr(c, "pads", 2 * r, 0, 0, 1 << 30);
  double p = static_cast<double>(c.attr_i("p", 2));
  bool ceil_mode = c.attr_i("ceil_mode", 0) != 0;
  std::string ap = c.attr_s("auto_pad", "NOTSET");
  Shape in(xt.shape.begin() + 2, xt.shape.end()), out(r);
  for (int a = 0; a < r; ++a) {
    int64_t eff = (k[a] - 1) * d[a] + 1;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      out[a] = (in[a] + s[a] - 1) / s[a];
      int64_t total = std::max<int64_t>(0, (out[a] - 1) * s[a] + eff - in[a]);
      pads[a] = ap == "SAME_LOWER" ? (total + 1) / 2 : total / 2;
      pads[a + r] = total - pads[a];
    } else {
      if (ap == "VALID") pads[a] = pads[a + r] = 0;
      int64_t span = in[a] + pads[a] + pads[a + r] - eff;
      out[a] = span < 0 ? 0 : (ceil_mode ? (span + s[a] - 1) / s[a] : span / s[a]) + 1;
    }
  }
  int64_t NC = xt.shape[0] * xt.shape[1], in_n = shape_numel(in), out_n = shape_numel(out);
  std::vector<double> x = f64_of(xt), y(scratch_elems(checked_mul(NC, out_n)), 0.0);
  auto ist = strides_of(in), ost = strides_of(out), kst = strides_of(k);
  int64_t kn = shape_numel(k);
  for (int64_t nc = 0; nc < NC; ++nc)
    for (int64_t o = 0; o < out_n; ++o) {
      double acc = 0;
      for (int64_t q = 0; q < kn; ++q) {
        int64_t off = 0;
        bool ok = true;
        for (int a = 0; a < r && ok; ++a) {
          int64_t oa = (o / ost[a]) % out[a], qa = (q / kst[a]) % k[a];
          int64_t ia = oa * s[a] - pads[a] + qa * d[a];
          if (ia < 0 || ia >= in[a]) ok = false;
          off += ia * ist[a];
        }
        if (ok) acc += std::pow(std::fabs(x[static_cast<size_t>(nc * in_n + off)]), p);
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
  auto kst = strides_of(blk), bst = strides_of(nb), ist = strides_of(img);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t q = 0; q < kn; ++q)
        for (int64_t l = 0; l < L; ++l) {
          int64_t off = 0;
          bool ok = true;
          for (int a = 0; a < r && ok; ++a) {
            int64_t ia = ((l / bst[a]) % nb[a]) * s[a] - pads[a] + ((q / kst[a]) % blk[a]) * d[a];
            if (ia < 0 || ia >= img[a]) ok = false;
            off += ia * ist[a];
          }
          if (ok) y[static_cast<size_t>((n * C + ch) * in_n + off)] += x[static_cast<size_t>(((n * C + ch) * kn + q) * L + l)];
        }
  Shape os{N, C};
  for (int64_t v : img) os.push_back(v);
  c.set(0, tensor_of(y, xt.dtype, os));
}

void op_center_crop_pad(OpCtx& c) {
  const RTensor& xt = c.t(0);
  std::vector<int64_t> target = to_i64_vec(c.t(1));
  int r = xt.rank();
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty())
    for (int i = 0; i < r; ++i) axes.push_back(i);
  if (axes.size() != target.size()) c.error("shape must have one entry per axis");
  Shape os = xt.shape;
  // Per axis: offset of the output origin in input coordinates (negative when padding).
  std::vector<int64_t> shift(r, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = norm_axis(c, axes[k], r);
    int64_t in = xt.shape[a], t = c.size_value(target[k], "a target dim");
    os[a] = t;
    shift[a] = in >= t ? (in - t) / 2 : -((t - in) / 2);
  }
  RTensor y = RTensor::alloc(xt.dtype, os);
  auto ost = strides_of(os), ist = strides_of(xt.shape);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t off = 0;
    bool ok = true;
    for (int a = 0; a < r && ok; ++a) {
      int64_t ia = (o / ost[a]) % os[a] + shift[a];
      if (ia < 0 || ia >= xt.shape[a]) ok = false;
      off += ia * ist[a];
    }
    if (ok) copy_elem(xt, off, y, o);
  }
  c.set(0, y);
}

// ------------------------------------------------------------------ data selection

void op_cumprod(OpCtx& c) {
  const RTensor& xt = c.t(0);
  int64_t axis = norm_axis(c, get_i64(c.t_numel(1, 1), 0), xt.rank());
  bool excl = c.attr_i("exclusive", 0) != 0, rev = c.attr_i("reverse", 0) != 0;
  std::vector<double> x = f64_of(xt), y(x.size());
  int64_t len = xt.shape[axis], inner = 1, outer = 1;
  for (int i = 0; i < axis; ++i) outer *= xt.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < xt.rank(); ++i) inner *= xt.shape[i];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t e = 0; e < inner; ++e) {
      double acc = 1;
      for (int64_t q = 0; q < len; ++q) {
        int64_t j = rev ? len - 1 - q : q;
        size_t at = static_cast<size_t>((o * len + j) * inner + e);
        if (excl) {
          y[at] = acc;
          acc *= x[at];
        } else {
          acc *= x[at];
          y[at] = acc;
        }
      }
    }
  c.set(0, tensor_of(y, xt.dtype, xt.shape));
}

void op_unique(OpCtx& c) {
  const RTensor& xt = c.t(0);
  bool sorted = c.attr_i("sorted", 1) != 0;
  bool has_axis = c.has_attr("axis");
  RTensor x = xt;
  int64_t axis = 0;
  if (!has_axis) x = xt.reshaped({xt.numel()});
  else axis = norm_axis(c, c.attr_i("axis", 0), c.t_rank(0, 1, 64).rank());
  int64_t len = x.shape[axis], outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < x.rank(); ++i) inner *= x.shape[i];
  std::vector<double> v = f64_of(x);
  // Slice j along the axis, as a vector of values in row-major order.
  auto slice = [&](int64_t j) {
    std::vector<double> s(static_cast<size_t>(outer * inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t e = 0; e < inner; ++e) s[static_cast<size_t>(o * inner + e)] = v[static_cast<size_t>((o * len + j) * inner + e)];
    return s;
  };
  std::vector<std::vector<double>> sl(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j) sl[static_cast<size_t>(j)] = slice(j);
  std::vector<int64_t> firsts;  // first occurrence of each unique slice, in order of appearance
  std::vector<int64_t> inv(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j) {
    int64_t found = -1;
    for (size_t u = 0; u < firsts.size(); ++u)
      if (sl[static_cast<size_t>(firsts[u])] == sl[static_cast<size_t>(j)]) { found = static_cast<int64_t>(u); break; }
    if (found < 0) {
      found = static_cast<int64_t>(firsts.size());
      firsts.push_back(j);
    }
    inv[static_cast<size_t>(j)] = found;
  }
  std::vector<int64_t> order(firsts.size());
  std::iota(order.begin(), order.end(), 0);
  if (sorted)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return sl[static_cast<size_t>(firsts[a])] < sl[static_cast<size_t>(firsts[b])];
    });
  std::vector<int64_t> rank_of(order.size());
  for (size_t k = 0; k < order.size(); ++k) rank_of[static_cast<size_t>(order[k])] = static_cast<int64_t>(k);
  int64_t U = static_cast<int64_t>(order.size());
  Shape ys = x.shape;
  ys[axis] = U;
  RTensor y = RTensor::alloc(x.dtype, ys);
  for (int64_t k = 0; k < U; ++k) {
    int64_t j = firsts[static_cast<size_t>(order[k])];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t e = 0; e < inner; ++e) copy_elem(x, (o * len + j) * inner + e, y, (o * U + k) * inner + e);
  }
  std::vector<int64_t> ind(static_cast<size_t>(U)), invo(static_cast<size_t>(len)), cnt(static_cast<size_t>(U), 0);
  for (int64_t k = 0; k < U; ++k) ind[static_cast<size_t>(k)] = firsts[static_cast<size_t>(order[k])];
  for (int64_t j = 0; j < len; ++j) {
    invo[static_cast<size_t>(j)] = rank_of[static_cast<size_t>(inv[static_cast<size_t>(j)])];
    ++cnt[static_cast<size_t>(invo[static_cast<size_t>(j)])];
  }
  c.set(0, y);
  if (c.wants(1)) c.set(1, make_i64(ind, {U}));
  if (c.wants(2)) c.set(2, make_i64(invo, {len}));
  if (c.wants(3)) c.set(3, make_i64(cnt, {U}));
}

void op_compress(OpCtx& c) {
  const RTensor& xt = c.t(0);
  const RTensor& cond = c.t(1);
  RTensor x = xt;
  int64_t axis = 0;
  if (!c.has_attr("axis")) x = xt.reshaped({xt.numel()});
  else axis = norm_axis(c, c.attr_i("axis", 0), c.t_rank(0, 1, 64).rank());
  int64_t len = x.shape[axis], outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < x.rank(); ++i) inner *= x.shape[i];
  std::vector<int64_t> keep;
  for (int64_t j = 0; j < std::min(len, cond.numel()); ++j)
    if (get_i64(cond, j) != 0) keep.push_back(j);
  Shape ys = x.shape;
  ys[axis] = static_cast<int64_t>(keep.size());
  RTensor y = RTensor::alloc(x.dtype, ys);
  int64_t K = static_cast<int64_t>(keep.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t e = 0; e < inner; ++e) copy_elem(x, (o * len + keep[static_cast<size_t>(k)]) * inner + e, y, (o * K + k) * inner + e);
  c.set(0, y);
}

void op_reverse_sequence(OpCtx& c) {
  const RTensor& xt = c.t(0);
  std::vector<int64_t> lens = to_i64_vec(c.t(1));
  int64_t ta = c.attr_i("time_axis", 0), ba = c.attr_i("batch_axis", 1);
  if (xt.rank() < 2 || (ta != 0 && ta != 1) || (ba != 0 && ba != 1) || ta == ba)
    c.error("time_axis and batch_axis must be 0 and 1 (either order) of an input of rank >= 2");
  if (static_cast<int64_t>(lens.size()) != xt.shape[ba]) c.error("sequence_lens must have one value per batch entry");
  for (int64_t& l : lens) l = std::clamp<int64_t>(l, 0, xt.shape[ta]);
  RTensor y = xt.clone();
  auto st = strides_of(xt.shape);
  for (int64_t i = 0; i < xt.numel(); ++i) {
    int64_t t = (i / st[ta]) % xt.shape[ta], b = (i / st[ba]) % xt.shape[ba];
    int64_t L = lens[static_cast<size_t>(b)];
    if (t < L) copy_elem(xt, i + (L - 1 - 2 * t) * st[ta], y, i);
  }
  c.set(0, y);
}

// ------------------------------------------------------------------ math

void op_det(OpCtx& c) {
  const RTensor& xt = c.t(0);
  int r = xt.rank();
  if (r < 2 || xt.shape[r - 1] != xt.shape[r - 2]) c.error("input must be (..., M, M)");
  int64_t M = xt.shape[r - 1], batch = xt.numel() / std::max<int64_t>(1, M * M);
  std::vector<double> x = f64_of(xt), y(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> a(x.begin() + b * M * M, x.begin() + (b + 1) * M * M);
    double det = 1;
    // Gaussian elimination with partial pivoting.
    for (int64_t k = 0; k < M; ++k) {
      int64_t piv = k;
      for (int64_t i = k + 1; i < M; ++i)
        if (std::fabs(a[i * M + k]) > std::fabs(a[piv * M + k])) piv = i;
      if (a[piv * M + k] == 0) { det = 0; break; }
      if (piv != k) {
        for (int64_t j = 0; j < M; ++j) std::swap(a[k * M + j], a[piv * M + j]);
        det = -det;
      }
      det *= a[k * M + k];
      for (int64_t i = k + 1; i < M; ++i) {
        double f = a[i * M + k] / a[k * M + k];
        for (int64_t j = k; j < M; ++j) a[i * M + j] -= f * a[k * M + j];
      }
    }
    y[static_cast<size_t>(b)] = det;
  }
  c.set(0, tensor_of(y, xt.dtype, Shape(xt.shape.begin(), xt.shape.end() - 2)));
}

void op_shrink(OpCtx& c) {
  const RTensor& xt = c.t(0);
  double l = c.attr_f("lambd", 0.5f), b = c.attr_f("bias", 0.f);
  std::vector<double> x = f64_of(xt);
  for (double& v : x) v = v < -l ? v + b : (v > l ? v - b : 0.0);
  c.set(0, tensor_of(x, xt.dtype, xt.shape));
}

void op_swish(OpCtx& c) {
  const RTensor& xt = c.t(0);
  double alpha = c.attr_f("alpha", 1.f);
  std::vector<double> x = f64_of(xt);
  for (double& v : x) v = v / (1 + std::exp(-alpha * v));
  c.set(0, tensor_of(x, xt.dtype, xt.shape));
}

void window(OpCtx& c, int kind) {
  int64_t n = c.size_value(get_i64(c.t_numel(0, 1), 0), "size");
  bool periodic = c.attr_i("periodic", 1) != 0;
  int32_t dt = static_cast<int32_t>(c.attr_i("output_datatype", kFloat));
  double N = static_cast<double>(periodic ? n : n - 1);
  std::vector<double> y(scratch_elems(n));
  for (int64_t i = 0; i < n; ++i) {
    double t = 2 * kPi * static_cast<double>(i) / N;
    double v;
    if (kind == 0) v = 0.5 - 0.5 * std::cos(t);
    else if (kind == 1) v = 25.0 / 46.0 - (1 - 25.0 / 46.0) * std::cos(t);
    else v = 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
    y[static_cast<size_t>(i)] = v;
  }
  c.set(0, tensor_of(y, dt, {n}));
}
void op_hann(OpCtx& c) { window(c, 0); }
void op_hamming(OpCtx& c) { window(c, 1); }
void op_blackman(OpCtx& c) { window(c, 2); }

// ------------------------------------------------------------------ detection

void op_nms(OpCtx& c) {
  const RTensor& boxes = c.t_rank(0, 3);
  const RTensor& scores = c.t_rank(1, 3);
  int64_t max_out = c.has(2) ? get_i64(c.t_numel(2, 1), 0) : 0;
  double iou_th = c.has(3) ? get_f64(c.t_numel(3, 1), 0) : 0.0;
  bool has_st = c.has(4);
  double score_th = has_st ? get_f64(c.t_numel(4, 1), 0) : 0.0;
  bool center = c.attr_i("center_point_box", 0) != 0;
  int64_t B = scores.shape[0], C = scores.shape[1], S = scores.shape[2];
  c.t_dims(0, {B, S, 4});
  std::vector<int64_t> sel;
  auto corners = [&](int64_t b, int64_t i, double* o) {
    double v[4];
    for (int k = 0; k < 4; ++k) v[k] = get_f64(boxes, (b * S + i) * 4 + k);
    if (center) {
      // [x_center, y_center, width, height] -> y1, x1, y2, x2
      o[0] = v[1] - v[3] / 2; o[1] = v[0] - v[2] / 2; o[2] = v[1] + v[3] / 2; o[3] = v[0] + v[2] / 2;
    } else {
      // Corners may come in either order.
      o[0] = std::min(v[0], v[2]); o[1] = std::min(v[1], v[3]); o[2] = std::max(v[0], v[2]); o[3] = std::max(v[1], v[3]);
    }
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t cl = 0; cl < C; ++cl) {
      if (max_out <= 0) continue;
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < S; ++i)
        if (!has_st || get_f64(scores, (b * C + cl) * S + i) > score_th) cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t x, int64_t y) {
        return get_f64(scores, (b * C + cl) * S + x) > get_f64(scores, (b * C + cl) * S + y);
      });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        double bi[4];
        corners(b, i, bi);
        bool drop = false;
        for (int64_t k : kept) {
          double bk[4];
          corners(b, k, bk);
          double ih = std::max(0.0, std::min(bi[2], bk[2]) - std::max(bi[0], bk[0]));
          double iw = std::max(0.0, std::min(bi[3], bk[3]) - std::max(bi[1], bk[1]));
          double inter = ih * iw;
          double uni = (bi[2] - bi[0]) * (bi[3] - bi[1]) + (bk[2] - bk[0]) * (bk[3] - bk[1]) - inter;
          if (inter > 0 && uni > 0 && inter / uni > iou_th) { drop = true; break; }
        }
        if (!drop) kept.push_back(i);
      }
      for (int64_t k : kept) {
        sel.push_back(b);
        sel.push_back(cl);
        sel.push_back(k);
      }
    }
  c.set(0, make_i64(sel, {static_cast<int64_t>(sel.size() / 3), 3}));
}

void op_roi_align(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 4);
  const RTensor& rois = c.t_rank(1, 2);
  std::vector<int64_t> bidx = to_i64_vec(c.t_dims(2, {rois.shape[0]}));
  if (rois.shape[1] != 4) c.error("rois must have shape [R, 4], got " + shape_str(rois.shape));
  for (int64_t b : bidx)
    if (b < 0 || b >= xt.shape[0]) c.error("batch index " + std::to_string(b) + " is out of range [0, " + std::to_string(xt.shape[0]) + ")");
  std::string mode = c.attr_s("mode", "avg");
  int64_t oh = c.attr_i("output_height", 1), ow = c.attr_i("output_width", 1);
  int64_t ratio = c.attr_i("sampling_ratio", 0);
  double scale = c.attr_f("spatial_scale", 1.f);
  bool half = c.attr_s("coordinate_transformation_mode", c.opset >= 16 ? "half_pixel" : "output_half_pixel") == "half_pixel";
  int64_t C = xt.shape[1], H = xt.shape[2], W = xt.shape[3], R = rois.shape[0];
  c.size_value(oh, "output_height", 1 << 30);
  c.size_value(ow, "output_width", 1 << 30);
  c.size_value(ratio, "sampling_ratio", 1 << 16);
  std::vector<double> x = f64_of(xt);
  std::vector<double> y(scratch_elems(checked_mul(checked_mul(R, C), checked_mul(oh, ow))), 0.0);
  double off = half ? 0.5 : 0.0;
  for (int64_t n = 0; n < R; ++n) {
    double x1 = get_f64(rois, n * 4) * scale - off, y1 = get_f64(rois, n * 4 + 1) * scale - off;
    double x2 = get_f64(rois, n * 4 + 2) * scale - off, y2 = get_f64(rois, n * 4 + 3) * scale - off;
    double rw = x2 - x1, rh = y2 - y1;
    if (!half) { rw = std::max(rw, 1.0); rh = std::max(rh, 1.0); }
    double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
    // A huge or NaN region would make the sample grid unbounded: capped like sampling_ratio.
    int64_t gh = ratio > 0 ? ratio : std::clamp<int64_t>(saturate_cast<int64_t>(std::ceil(rh / static_cast<double>(oh))), 0, 1 << 16);
    int64_t gw = ratio > 0 ? ratio : std::clamp<int64_t>(saturate_cast<int64_t>(std::ceil(rw / static_cast<double>(ow))), 0, 1 << 16);
    double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
    int64_t b = bidx[static_cast<size_t>(n)];
    for (int64_t ch = 0; ch < C; ++ch) {
      const double* img = x.data() + static_cast<size_t>((b * C + ch) * H * W);
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double yy = y1 + ph * bh + (iy + 0.5) * bh / static_cast<double>(gh);
              double xx = x1 + pw * bw + (ix + 0.5) * bw / static_cast<double>(gw);
              double v = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0;
              if (H > 0 && W > 0 && !(yy < -1.0 || yy > H || xx < -1.0 || xx > W)) {
                yy = std::max(yy, 0.0);
                xx = std::max(xx, 0.0);
                int64_t yl = saturate_cast<int64_t>(yy), xl = saturate_cast<int64_t>(xx), yhi, xhi;
                if (yl >= H - 1) { yhi = yl = H - 1; yy = static_cast<double>(yl); } else { yhi = yl + 1; }
                if (xl >= W - 1) { xhi = xl = W - 1; xx = static_cast<double>(xl); } else { xhi = xl + 1; }
                double ly = yy - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
                w1 = hy * hx; w2 = hy * lx; w3 = ly * hx; w4 = ly * lx;
                v1 = img[yl * W + xl]; v2 = img[yl * W + xhi]; v3 = img[yhi * W + xl]; v4 = img[yhi * W + xhi];
                v = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
              }
              if (mode == "max") {
                // The max mode takes the largest weighted corner (the reference kernels' rule).
                double m = std::max(std::max(w1 * v1, w2 * v2), std::max(w3 * v3, w4 * v4));
                acc = first ? m : std::max(acc, m);
                first = false;
              } else {
                acc += v;
              }
            }
          y[static_cast<size_t>(((n * C + ch) * oh + ph) * ow + pw)] = mode == "max" ? acc : acc / count;
        }
    }
  }
  c.set(0, tensor_of(y, xt.dtype, {R, C, oh, ow}));
}

}  // namespace

void register_more_ops(Registry& r) {
  r.add("Einsum", op_einsum, 12).traits(kMayGrow);
  r.add("GridSample", op_grid_sample, 16);
  r.add("AffineGrid", op_affine_grid, 20);
  r.add("LpPool", op_lp_pool, 2).infer(rules::rule_pool);
  r.add("MaxUnpool", op_max_unpool, 9);
  r.add("Col2Im", op_col2im, 18);
  r.add("CenterCropPad", op_center_crop_pad, 18);
  r.add("CumProd", op_cumprod, 1);
  r.add("Unique", op_unique, 11);
  r.add("Compress", op_compress, 9);
  r.add("ReverseSequence", op_reverse_sequence, 10);
  r.add("Det", op_det, 11);
  r.add("Shrink", op_shrink, 9);
  r.add("Swish", op_swish, 1);
  r.add("HannWindow", op_hann, 17);
  r.add("HammingWindow", op_hamming, 17);
  r.add("BlackmanWindow", op_blackman, 17);
  r.add("NonMaxSuppression", op_nms, 10);
  r.add("RoiAlign", op_roi_align, 10);
}

}  // namespace ofg::exec
