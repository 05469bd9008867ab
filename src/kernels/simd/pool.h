// Max and average pooling for every SIMD table (ISA struct: simd/gemm_blocked.h, plus
// nan_mask(v) (all ones where v is NaN), or_mask(a, b) and select(mask, yes, no)).
// A window's maximum or sum is separable: first over the window's rows, taken for every input
// column at once (W columns per vector), then over the window's columns of that row. That turns
// kH*kW bounds-checked loads per output into kH vector loads per W input columns plus (max) kW
// vector loads per W outputs, whatever the stride; average pooling's column pass is per output.
// Max: any NaN in a window makes the output NaN, as in the scalar reference. Average: the row
// sums are float (the reference sums in double), the column sums double; the divisor follows the
// reference (count_include_pad, ceil-mode windows clipped to the padded input).
#pragma once

#include "kernels/internal.h"
#include "kernels/parallel.h"
#include "kernels/simd/phase_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ofg::kernels::simd {

// The maximum of three vectors, NaN wherever any of them is NaN (the unrolled 3-tap steps).
template <class Isa>
inline typename Isa::V max3_nan(typename Isa::V a, typename Isa::V b, typename Isa::V c,
                                typename Isa::V qnan) {
  const auto nan = Isa::or_mask(Isa::or_mask(Isa::nan_mask(a), Isa::nan_mask(b)), Isa::nan_mask(c));
  return Isa::select(nan, qnan, Isa::max(c, Isa::max(b, a)));
}

template <class Isa>
void max_pool2d(const Pool2DParams& p, const float* x, float* y) {
  using V = typename Isa::V;
  constexpr ptrdiff_t VW = static_cast<ptrdiff_t>(Isa::W);
  // The row pointers of a window live on the stack; taller windows are left to the reference.
  constexpr size_t kMaxRows = 64;
  if (p.kH > kMaxRows) {
    scalar::max_pool2d(p, x, y);
    return;
  }
  const ptrdiff_t W = static_cast<ptrdiff_t>(p.W);
  const float ninf = -std::numeric_limits<float>::infinity();
  const V qnan = Isa::set1(std::numeric_limits<float>::quiet_NaN());
  // The column pass reads the row of column maxima padded with -inf (which never wins) and split
  // into stride phases: phase ph holds padded columns ph, ph + s, ..., so tap kw of outputs
  // ow..ow+W-1 is one contiguous run of phase (kw * dil) % s and the outputs go W at a time.
  const size_t sw = p.stride_w, Wo = p.W_out, reach = (p.kW - 1) * p.dil_w;
  const size_t Q = (Wo + Isa::W - 1) / Isa::W * Isa::W + reach / sw + 1;
  const ptrdiff_t pl = static_cast<ptrdiff_t>(p.pad_left), s = static_cast<ptrdiff_t>(sw);
  std::vector<size_t> tap(p.kW);
  for (size_t kw = 0; kw < p.kW; ++kw) tap[kw] = (kw * p.dil_w) % sw * Q + kw * p.dil_w / sw;
  // Planes are split between threads; each part has its own rows in its thread's scratch.
  const size_t planes = Wo > 0 ? p.N * p.C : 0;
  const size_t plane_work = p.H * p.W * p.kH + p.H_out * Wo * p.kW;
  parallel_ranges(planes, 1, plane_grain(plane_work), [&](size_t nc_lo, size_t nc_hi) {
    // Slots 0 and 1 are free here (pooling calls no other kernel). With stride 1 the row pass
    // writes straight into the padded row.
    float* phases = detail::scratch(1, std::max(sw * Q, p.pad_left + p.W + Isa::W));
    float* colmax = sw == 1 ? phases + p.pad_left : detail::scratch(0, p.W + Isa::W);
    for (size_t nc = nc_lo; nc < nc_hi; ++nc) {
      const float* plane = x + nc * p.H * p.W;
      float* out = y + nc * p.H_out * Wo;
      for (size_t oh = 0; oh < p.H_out; ++oh) {
        // Rows of this window that are inside the input.
        const float* rows[kMaxRows];
        size_t nrows = 0;
        for (size_t kh = 0; kh < p.kH; ++kh) {
          const ptrdiff_t ih = window_tap(oh, p.stride_h, kh, p.dil_h, p.pad_top);
          if (inside(ih, p.H)) rows[nrows++] = plane + ih * W;
        }
        float* orow = out + oh * Wo;
        if (nrows == 0) {
          std::fill(orow, orow + Wo, ninf);
          continue;
        }
        // A vector of column maxima at iw; the last one overlaps the one before when W is not a
        // multiple of the vector width (the same values are written twice) instead of a scalar tail.
        // NaNs are tracked on every load: a pass over the plane first to see whether it has any
        // (to skip the tracking) took a sixth of the time of SqueezeNet's 3x3 stride-2 pools.
        auto column_max = [&](ptrdiff_t iw) {
          // 3-row windows unrolled (the common 3x3 pools): SqueezeNet's first pool 0.167 -> 0.147
          // ms with the column taps' loop below unrolled as well (AVX2, pinned, alternated).
          if (nrows == 3) {
            Isa::store(colmax + iw, max3_nan<Isa>(Isa::load(rows[0] + iw), Isa::load(rows[1] + iw),
                                                  Isa::load(rows[2] + iw), qnan));
            return;
          }
          V m = Isa::load(rows[0] + iw);
          V nan = Isa::nan_mask(m);
          for (size_t r = 1; r < nrows; ++r) {
            const V v = Isa::load(rows[r] + iw);
            m = Isa::max(v, m);
            nan = Isa::or_mask(nan, Isa::nan_mask(v));
          }
          Isa::store(colmax + iw, Isa::select(nan, qnan, m));
        };
        ptrdiff_t iw = 0;
        if (W >= VW) {
          for (; iw + VW <= W; iw += VW) column_max(iw);
          if (iw < W) column_max(W - VW);
          iw = W;
        }
        for (; iw < W; ++iw) {
          float m = rows[0][iw];
          for (size_t r = 1; r < nrows && !std::isnan(m); ++r) {
            const float v = rows[r][iw];
            if (v > m || std::isnan(v)) m = v;
          }
          colmax[iw] = m;
        }
        if (sw == 1) {
          std::fill(phases, phases + p.pad_left, ninf);
          if (p.pad_left + p.W < Q) std::fill(phases + p.pad_left + p.W, phases + Q, ninf);
        } else {
          if (sw == 2) copy_phases2<Isa>(colmax, W, pl, phases, phases + Q, static_cast<ptrdiff_t>(Q), ninf);
          else
            for (size_t ph = 0; ph < sw; ++ph)
              copy_phase(colmax, W, pl, s, static_cast<ptrdiff_t>(ph), phases + ph * Q, static_cast<ptrdiff_t>(Q), ninf);
        }
        for (size_t ow = 0; ow < Wo; ow += Isa::W) {
          if (p.kW == 3) {  // (unrolled as the rows; max with the -inf start is the identity but for NaN)
            const V r = max3_nan<Isa>(Isa::load(phases + tap[0] + ow), Isa::load(phases + tap[1] + ow),
                                      Isa::load(phases + tap[2] + ow), qnan);
            if (ow + Isa::W <= Wo) Isa::store(orow + ow, r);
            else Isa::store_lanes(orow + ow, r, 0, Wo - ow);
            continue;
          }
          V m = Isa::set1(ninf);
          V nan = Isa::nan_mask(m);
          for (size_t kw = 0; kw < p.kW; ++kw) {
            const V v = Isa::load(phases + tap[kw] + ow);
            m = Isa::max(v, m);
            nan = Isa::or_mask(nan, Isa::nan_mask(v));
          }
          const V r = Isa::select(nan, qnan, m);
          if (ow + Isa::W <= Wo) Isa::store(orow + ow, r);
          else Isa::store_lanes(orow + ow, r, 0, Wo - ow);
        }
      }
    }
  });
}

template <class Isa>
void avg_pool2d(const Pool2DParams& p, const float* x, float* y) {
  using V = typename Isa::V;
  constexpr ptrdiff_t VW = static_cast<ptrdiff_t>(Isa::W);
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H), W = static_cast<ptrdiff_t>(p.W);
  const ptrdiff_t kH = static_cast<ptrdiff_t>(p.kH), kW = static_cast<ptrdiff_t>(p.kW);
  const ptrdiff_t pt = static_cast<ptrdiff_t>(p.pad_top), pl = static_cast<ptrdiff_t>(p.pad_left);
  const ptrdiff_t pb = static_cast<ptrdiff_t>(p.pad_bottom), pr = static_cast<ptrdiff_t>(p.pad_right);
  const size_t plane_work = p.H * p.W * p.kH + p.H_out * p.W_out * p.kW;
  parallel_ranges(p.N * p.C, 1, plane_grain(plane_work), [&](size_t nc_lo, size_t nc_hi) {
    // One row of column sums; slots 0 and 1 are free here (pooling calls no other kernel).
    float* colsum = detail::scratch(0, p.W + Isa::W);
    // Strided: the column sums split into stride phases as max pooling splits its column maxima,
    // so the outputs whose window lies inside the row go W at a time as with stride 1 (DenseNet's
    // 2x2 stride-2 transitions went one output at a time).
    const size_t sw = p.stride_w;
    const size_t Q = (p.W_out + Isa::W - 1) / Isa::W * Isa::W + (p.kW - 1) / sw + 1;
    float* phases = sw > 1 ? detail::scratch(1, sw * Q) : nullptr;
    for (size_t nc = nc_lo; nc < nc_hi; ++nc) {
      const float* plane = x + nc * p.H * p.W;
      float* out = y + nc * p.H_out * p.W_out;
      for (size_t oh = 0; oh < p.H_out; ++oh) {
        const ptrdiff_t h0 = static_cast<ptrdiff_t>(oh * p.stride_h) - pt, h1 = h0 + kH;
        const ptrdiff_t hs = std::max<ptrdiff_t>(h0, 0), he = std::min(h1, H);
        float* orow = out + oh * p.W_out;
        if (hs >= he) {  // the window's rows are all padding: the reference's sum is 0
          std::fill(orow, orow + p.W_out, 0.f);
          continue;
        }
        ptrdiff_t iw = 0;
        for (; iw + VW <= W; iw += VW) {
          V s = Isa::load(plane + hs * W + iw);
          for (ptrdiff_t ih = hs + 1; ih < he; ++ih) s = Isa::add(s, Isa::load(plane + ih * W + iw));
          Isa::store(colsum + iw, s);
        }
        for (; iw < W; ++iw) {
          float s = plane[hs * W + iw];
          for (ptrdiff_t ih = hs + 1; ih < he; ++ih) s += plane[ih * W + iw];
          colsum[iw] = s;
        }
        const ptrdiff_t rows_counted =
            p.count_include_pad ? std::min(h1, H + pb) - std::max(h0, -pt) : he - hs;
        // Stride 1: the outputs whose window lies inside the row share one count and sum kW
        // column sums, W outputs at a time (in float; the edges below sum in double).
        size_t ow_lo = p.W_out, ow_hi = p.W_out;
        if (p.stride_w == 1 && W + pl >= kW) {
          ow_lo = std::min(static_cast<size_t>(pl), p.W_out);
          ow_hi = std::max(ow_lo, std::min(static_cast<size_t>(W + pl - kW + 1), p.W_out));
          const V count = Isa::set1(static_cast<float>(rows_counted * kW));
          size_t ow = ow_lo;
          for (; ow + Isa::W <= ow_hi; ow += Isa::W) {
            const float* c = colsum + (static_cast<ptrdiff_t>(ow) - pl);
            V s = Isa::load(c);
            for (ptrdiff_t k = 1; k < kW; ++k) s = Isa::add(s, Isa::load(c + k));
            Isa::store(orow + ow, Isa::div(s, count));
          }
          ow_hi = ow;  // the tail goes through the per-output loop
        } else if (sw > 1 && W + pl >= kW) {
          // Outputs [ow_lo, ow_hi) read columns ow * sw - pl .. + kW - 1, all inside the row; tap k
          // of W consecutive outputs is one run of phase k % sw (the row padded by pl on the left).
          ow_lo = std::min((static_cast<size_t>(pl) + sw - 1) / sw, p.W_out);
          ow_hi = std::max(ow_lo, std::min(static_cast<size_t>(W + pl - kW) / sw + 1, p.W_out));
          if (ow_hi - ow_lo >= Isa::W) {
            const ptrdiff_t q = static_cast<ptrdiff_t>(Q);
            if (sw == 2) copy_phases2<Isa>(colsum, W, pl, phases, phases + Q, q, 0.f);
            else
              for (size_t ph = 0; ph < sw; ++ph)
                copy_phase(colsum, W, pl, static_cast<ptrdiff_t>(sw), static_cast<ptrdiff_t>(ph), phases + ph * Q, q, 0.f);
            const V count = Isa::set1(static_cast<float>(rows_counted * kW));
            auto outputs = [&](size_t ow) {
              V s = Isa::load(phases + ow);
              for (ptrdiff_t k = 1; k < kW; ++k)
                s = Isa::add(s, Isa::load(phases + static_cast<size_t>(k) % sw * Q + static_cast<size_t>(k) / sw + ow));
              Isa::store(orow + ow, Isa::div(s, count));
            };
            size_t ow = ow_lo;
            for (; ow + Isa::W <= ow_hi; ow += Isa::W) outputs(ow);
            // The rest as one vector ending at ow_hi, over outputs already written (the same values).
            if (ow < ow_hi) outputs(ow_hi - Isa::W);
          } else {
            ow_lo = ow_hi = p.W_out;
          }
        }
        for (size_t ow = 0; ow < p.W_out; ++ow) {
          if (ow == ow_lo && ow_hi > ow_lo) {
            ow = ow_hi - 1;
            continue;
          }
          const ptrdiff_t w0 = static_cast<ptrdiff_t>(ow * p.stride_w) - pl, w1 = w0 + kW;
          const ptrdiff_t ws = std::max<ptrdiff_t>(w0, 0), we = std::min(w1, W);
          double s = 0;
          for (ptrdiff_t c = ws; c < we; ++c) s += colsum[c];
          const ptrdiff_t cols_counted =
              p.count_include_pad ? std::min(w1, W + pr) - std::max(w0, -pl) : std::max<ptrdiff_t>(we - ws, 0);
          const ptrdiff_t count = rows_counted * cols_counted;
          orow[ow] = count > 0 ? static_cast<float>(s / static_cast<double>(count)) : 0.f;
        }
      }
    }
  });
}

}  // namespace ofg::kernels::simd
