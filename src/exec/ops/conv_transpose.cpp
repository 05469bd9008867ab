#include "exec/ops/conv_transpose.h"

#include <algorithm>

#include "exec/tensor.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/spatial3.h"

namespace ofg::exec {
namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

void fill_bias(const ConvTransposeGeometry& g, const float* bias, float* y) {
  const int64_t out_sp = product(g.out);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t co = 0; co < g.C_out; ++co)
      std::fill(y + (n * g.C_out + co) * out_sp, y + (n * g.C_out + co + 1) * out_sp, bias ? bias[co] : 0.f);
}

// Floor of a / b for b > 0.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The input positions i in [0, in) whose output position i * stride + offset lies in [0, out).
void valid_range(int64_t in, int64_t stride, int64_t offset, int64_t out, int64_t& lo, int64_t& hi) {
  lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  hi = std::min(in, floor_div(out - 1 - offset, stride) + 1);
  if (hi < lo) hi = lo;
}

// Columns of the GEMM kept at once: past this many floats the input rows are taken in chunks.
constexpr int64_t kMaxColumnFloats = int64_t{1} << 22;

}  // namespace

void conv_transpose_reference(const ConvTransposeGeometry& g, const float* x, const float* w, const float* bias,
                              float* y) {
  const size_t r = g.in.size();
  const int64_t in_sp = product(g.in), out_sp = product(g.out), k_sp = product(g.kernel);
  const int64_t Cig = g.C_in / g.group, Cog = g.C_out / g.group;
  std::vector<int64_t> ist(r, 1), ost(r, 1), kst(r, 1);
  for (size_t i = r; i-- > 1;) {
    ist[i - 1] = ist[i] * g.in[i];
    ost[i - 1] = ost[i] * g.out[i];
    kst[i - 1] = kst[i] * g.kernel[i];
  }
  fill_bias(g, bias, y);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < g.group; ++grp)
      for (int64_t ci = 0; ci < Cig; ++ci)
        for (int64_t ip = 0; ip < in_sp; ++ip) {
          const float xv = x[(n * g.C_in + grp * Cig + ci) * in_sp + ip];
          for (int64_t kp = 0; kp < k_sp; ++kp) {
            int64_t o = 0;
            bool inside = true;
            for (size_t i = 0; i < r && inside; ++i) {
              int64_t iv = (ip / ist[i]) % g.in[i], kv = (kp / kst[i]) % g.kernel[i];
              int64_t ov = iv * g.stride[i] + kv * g.dilation[i] - g.pad_begin[i];
              inside = ov >= 0 && ov < g.out[i];
              o += ov * ost[i];
            }
            if (!inside) continue;
            for (int64_t co = 0; co < Cog; ++co)
              y[(n * g.C_out + grp * Cog + co) * out_sp + o] += xv * w[((grp * Cig + ci) * Cog + co) * k_sp + kp];
          }
        }
}

bool conv_transpose_gemm(const ConvTransposeGeometry& g, const float* x, const float* w, const float* bias, float* y) {
  const size_t r = g.in.size();
  if (r < 1 || r > 3) return false;
  // Seen as 3-D: leading axes of size 1 for the missing ones.
  // (References to the members, not a structured binding: the lambdas below capture them, which
  // C++17 allows for references but not for bindings.)
  const kernels::Spatial3<int64_t> geo = kernels::spatial3<int64_t>(g, r);
  const auto &in = geo.in, &k = geo.kernel, &out = geo.out, &s = geo.stride, &d = geo.dilation, &p = geo.pad_begin;
  fill_bias(g, bias, y);
  const int64_t in_sp = in[0] * in[1] * in[2], out_sp = out[0] * out[1] * out[2], k_sp = k[0] * k[1] * k[2];
  const int64_t Cig = g.C_in / g.group, Cog = g.C_out / g.group;
  const int64_t M = Cog * k_sp;  // GEMM rows: one per output channel and kernel tap
  if (in_sp == 0 || out_sp == 0 || M == 0 || Cig == 0) return true;
  // The GEMM's columns are input positions; they are taken a number of whole input rows (all axes
  // but the last) at a time so the column buffer stays bounded.
  const int64_t rows = in[0] * in[1], row_len = in[2];
  const int64_t rows_per_chunk = std::max<int64_t>(1, std::min(rows, kMaxColumnFloats / std::max<int64_t>(1, M * row_len)));
  // Scatter of one chunk: column entry (co, tap, input position) adds to output position
  // input * stride + tap * dilation - pad on every axis. Output channels [c0, c1) of group grp.
  auto scatter = [&](int64_t n, int64_t grp, int64_t r0, int64_t r1, const float* pc, int64_t c0, int64_t c1) {
    const int64_t ncols = (r1 - r0) * row_len;
    for (int64_t co = c0; co < c1; ++co) {
      float* yc = y + (n * g.C_out + grp * Cog + co) * out_sp;
      for (int64_t kp = 0; kp < k_sp; ++kp) {
        const int64_t kd = kp / (k[1] * k[2]), kh = (kp / k[2]) % k[1], kw = kp % k[2];
        const int64_t off_w = kw * d[2] - p[2];
        int64_t lo, hi;
        valid_range(row_len, s[2], off_w, out[2], lo, hi);
        if (lo == hi) continue;
        const float* crow = pc + (co * k_sp + kp) * ncols;
        for (int64_t rr = r0; rr < r1; ++rr) {
          const int64_t od = (rr / in[1]) * s[0] + kd * d[0] - p[0];
          const int64_t oh = (rr % in[1]) * s[1] + kh * d[1] - p[1];
          if (od < 0 || od >= out[0] || oh < 0 || oh >= out[1]) continue;
          // y index of input column iw: base + iw * stride (inside the row for iw in [lo, hi)).
          const int64_t base = (od * out[1] + oh) * out[2] + off_w;
          const float* c = crow + (rr - r0) * row_len;
          if (s[2] == 1) {
            float* yrow = yc + base + lo;
            for (int64_t iw = lo; iw < hi; ++iw) yrow[iw - lo] += c[iw];
          } else {
            for (int64_t iw = lo; iw < hi; ++iw) yc[base + iw * s[2]] += c[iw];
          }
        }
      }
    }
  };
  // One image and group: GEMM then scatter, chunk by chunk. With one group on several threads the
  // GEMM splits itself and the scatter's output channels are shared (each writes its own planes).
  const bool split_scatter = g.N * g.group == 1 && Cog > 1 && kernels::threads() > 1;
  auto run_group = [&](int64_t n, int64_t grp) {
    RTensor cols = RTensor::alloc_uninit(kFloat, {M, rows_per_chunk * row_len});
    float* pc = cols.data<float>();
    // W_g is [Cig, Cog * k_sp] row-major: its transpose is the GEMM's A.
    const float* wg = w + grp * Cig * M;
    for (int64_t r0 = 0; r0 < rows; r0 += rows_per_chunk) {
      const int64_t r1 = std::min(rows, r0 + rows_per_chunk), ncols = (r1 - r0) * row_len;
      const float* xg = x + (n * g.C_in + grp * Cig) * in_sp + r0 * row_len;
      kernels::sgemm(true, false, static_cast<size_t>(M), static_cast<size_t>(ncols), static_cast<size_t>(Cig), 1.f,
                     wg, static_cast<size_t>(M), xg, static_cast<size_t>(in_sp), 0.f, pc, static_cast<size_t>(ncols));
      if (split_scatter)
        kernels::parallel_ranges(static_cast<size_t>(Cog), 1, kernels::plane_grain(static_cast<size_t>(k_sp * ncols)),
                                 [&](size_t c0, size_t c1) {
                                   scatter(n, grp, r0, r1, pc, static_cast<int64_t>(c0), static_cast<int64_t>(c1));
                                 });
      else
        scatter(n, grp, r0, r1, pc, 0, Cog);
    }
  };
  // Images and groups write disjoint output channels: threads take whole ones.
  const size_t units = static_cast<size_t>(g.N * g.group);
  kernels::parallel_ranges(units, 1, kernels::plane_grain(static_cast<size_t>(M * in_sp * std::max<int64_t>(Cig, 1))),
                           [&](size_t u0, size_t u1) {
                             for (size_t u = u0; u < u1; ++u)
                               run_group(static_cast<int64_t>(u) / g.group, static_cast<int64_t>(u) % g.group);
                           });
  return true;
}

}  // namespace ofg::exec
