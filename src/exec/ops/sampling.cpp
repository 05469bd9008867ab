// Sampling at computed coordinates: GridSample and AffineGrid, in double precision (float32 images
// are read and written as they are).
#include <type_traits>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"
#include "kernels/parallel.h"

namespace ofg::exec {
namespace {

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
  // float32 images are read and written as they are (copies in double cost more than sampling:
  // each is a fresh allocation the kernel maps page by page); other types through double.
  const bool f32 = xt.dtype == kFloat;
  std::vector<double> x = f32 ? std::vector<double>() : f64_of(xt), g = f64_of(gt);
  Shape oshape{N, C};
  for (int64_t d : outsp) oshape.push_back(d);
  const int64_t y_n = checked_mul(checked_mul(N, C), out_n);
  std::vector<double> y(f32 ? 0 : scratch_elems(y_n), 0.0);
  RTensor yf = f32 ? RTensor::alloc_uninit(kFloat, oshape) : RTensor();
  auto ist = strides_of(in);
  std::vector<double> lo(r), hi(r);
  for (int a = 0; a < r; ++a) {
    lo[a] = align ? 0 : -0.5;
    hi[a] = align ? static_cast<double>(in[a] - 1) : static_cast<double>(in[a]) - 0.5;
  }
  const bool nearest = mode == "nearest", cubic = mode == "cubic";
  const bool zeros = pad == "zeros", border = pad == "border";
  // Offset in a channel's image of integer position p (spatial axes in input order), padding
  // rules applied; -1 for a position that reads the zero padding.
  auto offset_of = [&](const std::vector<int64_t>& p) -> int64_t {
    int64_t off = 0;
    for (int a = 0; a < r; ++a) {
      int64_t v = p[a];
      if (v < 0 || v >= in[a]) {
        if (zeros) return -1;
        if (border) v = std::min(std::max<int64_t>(v, 0), in[a] - 1);
        else {
          v = static_cast<int64_t>(gs_reflect(static_cast<double>(v), lo[a], hi[a]));
          v = std::min(std::max<int64_t>(v, 0), in[a] - 1);
        }
      }
      off += v * ist[a];
    }
    return off;
  };
  const bool reflection = pad == "reflection";
  const int taps = cubic ? 4 : 2;
  int64_t combos = 1;
  for (int a = 0; a < r; ++a) combos *= nearest ? 1 : taps;
  // The (offset, weight) pairs one output location reads are the same for every channel: they are
  // worked out for a block of locations first, then each channel's image is sampled over the
  // block, so that the output is written contiguously and one image stays in cache at a time.
  struct Read {
    int64_t off;
    double wt;
  };
  const int64_t block = std::max<int64_t>(16, 1024 / combos);
  const int64_t blocks = out_n == 0 ? 0 : (out_n + block - 1) / block;
  auto sample_block = [&](size_t task) {
    const int64_t n = static_cast<int64_t>(task) / blocks, o0 = static_cast<int64_t>(task) % blocks * block;
    const int64_t o1 = std::min(out_n, o0 + block);
    std::vector<Read> reads(static_cast<size_t>((o1 - o0) * combos));
    std::vector<int> count(static_cast<size_t>(o1 - o0));
    std::vector<double> coord(r);
    std::vector<int64_t> p(r), base(r);
    std::vector<std::vector<double>> w(r, std::vector<double>(taps));
    for (int64_t o = o0; o < o1; ++o) {
      const double* gp = g.data() + static_cast<size_t>((n * out_n + o) * r);
      for (int a = 0; a < r; ++a) {
        // The grid's last axis lists x (innermost spatial axis) first.
        double v = gp[r - 1 - a];
        double s = static_cast<double>(in[a]);
        double u = align ? (v + 1) / 2 * (s - 1) : ((v + 1) * s - 1) / 2;
        if (!cubic) {
          if (border) u = std::min(std::max(u, 0.0), s - 1);
          else if (reflection) u = std::min(std::max(gs_reflect(u, lo[a], hi[a]), 0.0), s - 1);
        }
        // Far outside (or NaN) samples only padding: bounded so that the integer positions
        // derived below cannot overflow.
        if (!(u > -1e15)) u = -1e15;
        if (u > 1e15) u = 1e15;
        coord[a] = u;
      }
      Read* out = reads.data() + (o - o0) * combos;
      int k = 0;
      // A read of the zero padding (offset -1) or with weight 0 adds nothing and is not kept.
      if (nearest) {
        for (int a = 0; a < r; ++a) p[a] = static_cast<int64_t>(std::nearbyint(coord[a]));
        const int64_t off = offset_of(p);
        if (off >= 0) out[k++] = {off, 1.0};
      } else {
        for (int a = 0; a < r; ++a) {
          double f = std::floor(coord[a]), t = coord[a] - f;
          if (taps == 2) {
            base[a] = static_cast<int64_t>(f);
            w[a][0] = 1 - t;
            w[a][1] = t;
          } else {
            base[a] = static_cast<int64_t>(f) - 1;
            const double A = -0.75;
            auto kern = [&](double d) {
              d = std::fabs(d);
              if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
              if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
              return 0.0;
            };
            for (int q = 0; q < 4; ++q) w[a][q] = kern(t + 1 - q);
          }
        }
        for (int64_t m = 0; m < combos; ++m) {
          int64_t rem = m;
          double wt = 1;
          for (int a = r; a-- > 0;) {
            int q = static_cast<int>(rem % taps);
            rem /= taps;
            p[a] = base[a] + q;
            wt *= w[a][q];
          }
          if (wt == 0) continue;
          const int64_t off = offset_of(p);
          if (off >= 0) out[k++] = {off, wt};
        }
      }
      count[static_cast<size_t>(o - o0)] = k;
    }
    // One channel over the block; the taps are summed in the order they were listed (so any
    // block size gives the same bits), four at a time where a location reads four.
    auto sample = [&](const auto* img, auto* dst) {
      for (int64_t o = o0; o < o1; ++o) {
        const Read* rd = reads.data() + (o - o0) * combos;
        const int k = count[static_cast<size_t>(o - o0)];
        double val = 0;
        if (k == 4) {
          val += rd[0].wt * img[rd[0].off];
          val += rd[1].wt * img[rd[1].off];
          val += rd[2].wt * img[rd[2].off];
          val += rd[3].wt * img[rd[3].off];
        } else {
          for (int q = 0; q < k; ++q) val += rd[q].wt * img[rd[q].off];
        }
        dst[o] = static_cast<std::remove_pointer_t<decltype(dst)>>(val);
      }
    };
    for (int64_t ch = 0; ch < C; ++ch) {
      const int64_t img_at = (n * C + ch) * in_n, y_at = (n * C + ch) * out_n;
      if (f32) sample(xt.data<float>() + img_at, yf.data<float>() + y_at);
      else sample(x.data() + img_at, y.data() + y_at);
    }
  };
  const size_t tasks = static_cast<size_t>(N * blocks);
  const size_t work = static_cast<size_t>(checked_mul(checked_mul(N * C, out_n), combos));
  if (tasks > 1 && work >= kernels::parallel_work())
    kernels::parallel_for(tasks, sample_block);
  else
    for (size_t t = 0; t < tasks; ++t) sample_block(t);
  if (f32) {
    c.set(0, yf);
    return;
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

}  // namespace

void register_sampling_ops(Registry& r) {
  r.add("GridSample", op_grid_sample, 16).no_rule();
  r.add("AffineGrid", op_affine_grid, 20).no_rule();
}

}  // namespace ofg::exec
