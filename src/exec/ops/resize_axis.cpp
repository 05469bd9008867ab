#include "exec/ops/resize_axis.h"

#include <algorithm>

namespace ofg::exec {

void resize_axis_f32(const float* x, float* y, int64_t outer, int64_t in, int64_t inner, const std::vector<int64_t>& first,
                     const std::vector<int64_t>& idx, const std::vector<double>& weights) {
  const int64_t out = static_cast<int64_t>(first.size()) - 1;
  const std::vector<float> w(weights.begin(), weights.end());
  if (inner == 1) {
    // The last axis: each output is a short dot product of one input row (two taps for linear).
    for (int64_t a = 0; a < outer; ++a) {
      const float* row = x + a * in;
      float* dst = y + a * out;
      for (int64_t o = 0; o < out; ++o) {
        float acc = 0.f;
        for (int64_t k = first[o]; k < first[o + 1]; ++k)
          if (w[static_cast<size_t>(k)] != 0) acc += w[static_cast<size_t>(k)] * row[idx[k]];
        dst[o] = acc;
      }
    }
    return;
  }
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t o = 0; o < out; ++o) {
      float* dst = y + (a * out + o) * inner;
      std::fill(dst, dst + inner, 0.f);
      for (int64_t k = first[o]; k < first[o + 1]; ++k) {
        const float wk = w[static_cast<size_t>(k)];
        if (wk == 0) continue;
        const float* src = x + (a * in + idx[k]) * inner;
        for (int64_t e = 0; e < inner; ++e) dst[e] += wk * src[e];
      }
    }
}

}  // namespace ofg::exec
