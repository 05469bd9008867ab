#include "exec/ops/resize_axis.h"

#include <algorithm>

#include "kernels/parallel.h"

namespace ofg::exec {

void resize_axis_f32(const float* x, float* y, int64_t outer, int64_t in, int64_t inner, const std::vector<int64_t>& first,
                     const std::vector<int64_t>& idx, const std::vector<double>& weights) {
  const int64_t out = static_cast<int64_t>(first.size()) - 1;
  const std::vector<float> w(weights.begin(), weights.end());
  // Taps per output (about; the split only needs the size of a part's work).
  const size_t taps = static_cast<size_t>(out > 0 ? (idx.size() + static_cast<size_t>(out) - 1) / static_cast<size_t>(out) : 1);
  // The outputs are split between the run's threads: every output is computed by one task, in
  // the same order as on one thread, so the results do not depend on the thread count.
  bool two_taps = inner == 1 && out > 0 && idx.size() == 2 * static_cast<size_t>(out);
  for (int64_t o = 0; o <= out && two_taps; ++o) two_taps = first[static_cast<size_t>(o)] == 2 * o;
  if (two_taps) {
    // The last axis with two taps per output (linear; first[o] == 2 * o): the taps laid out per
    // output, so the loop reads no offsets; the same sum as below (zero weights skipped).
    std::vector<int64_t> i0(static_cast<size_t>(out)), i1(i0.size());
    std::vector<float> w0(i0.size()), w1(i0.size());
    for (size_t o = 0; o < i0.size(); ++o) {
      i0[o] = idx[2 * o], i1[o] = idx[2 * o + 1];
      w0[o] = w[2 * o], w1[o] = w[2 * o + 1];
    }
    kernels::parallel_ranges(static_cast<size_t>(outer), 1, kernels::plane_grain(static_cast<size_t>(out) * 2),
                             [&](size_t lo, size_t hi) {
      for (auto a = static_cast<int64_t>(lo); a < static_cast<int64_t>(hi); ++a) {
        const float* row = x + a * in;
        float* dst = y + a * out;
        for (size_t o = 0; o < i0.size(); ++o) {
          float acc = 0.f;
          if (w0[o] != 0) acc += w0[o] * row[i0[o]];
          if (w1[o] != 0) acc += w1[o] * row[i1[o]];
          dst[o] = acc;
        }
      }
    });
    return;
  }
  if (inner == 1) {
    // The last axis: each output is a short dot product of one input row (two taps for linear).
    kernels::parallel_ranges(static_cast<size_t>(outer), 1, kernels::plane_grain(static_cast<size_t>(out) * taps),
                             [&](size_t lo, size_t hi) {
      for (auto a = static_cast<int64_t>(lo); a < static_cast<int64_t>(hi); ++a) {
        const float* row = x + a * in;
        float* dst = y + a * out;
        for (int64_t o = 0; o < out; ++o) {
          float acc = 0.f;
          for (int64_t k = first[o]; k < first[o + 1]; ++k)
            if (w[static_cast<size_t>(k)] != 0) acc += w[static_cast<size_t>(k)] * row[idx[k]];
          dst[o] = acc;
        }
      }
    });
    return;
  }
  // One task item is one output row of inner elements: (a, o) for a < outer, o < out.
  kernels::parallel_ranges(static_cast<size_t>(outer * out), 1, kernels::plane_grain(static_cast<size_t>(inner) * taps),
                           [&](size_t lo, size_t hi) {
    for (auto t = static_cast<int64_t>(lo); t < static_cast<int64_t>(hi); ++t) {
      const int64_t a = t / out, o = t % out;
      float* dst = y + t * inner;
      std::fill(dst, dst + inner, 0.f);
      for (int64_t k = first[o]; k < first[o + 1]; ++k) {
        const float wk = w[static_cast<size_t>(k)];
        if (wk == 0) continue;
        const float* src = x + (a * in + idx[k]) * inner;
        // Blocks of 16: -O2 vectorizes a loop of fixed length (not one of unknown length); the
        // same multiply and add per element either way.
        int64_t e = 0;
        for (; e + 16 <= inner; e += 16) {
          float t[16];  // all loads before the stores: the compiler need not prove dst and src apart
          for (int j = 0; j < 16; ++j) t[j] = dst[e + j] + wk * src[e + j];
          for (int j = 0; j < 16; ++j) dst[e + j] = t[j];
        }
        for (; e < inner; ++e) dst[e] += wk * src[e];
      }
    }
  });
}

}  // namespace ofg::exec
