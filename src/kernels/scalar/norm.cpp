// Reference softmax and layer normalisation (double accumulators).
#include "kernels/internal.h"

#include <limits>

namespace ofg::kernels::scalar {

void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      const float* p = x + o * len * inner + i;
      float* q = y + o * len * inner + i;
      float m = -std::numeric_limits<float>::infinity();
      for (size_t r = 0; r < len; ++r) m = p[r * inner] > m ? p[r * inner] : m;
      double s = 0;
      for (size_t r = 0; r < len; ++r) s += std::exp(static_cast<double>(p[r * inner]) - m);
      if (log) {
        const double ls = std::log(s);
        for (size_t r = 0; r < len; ++r)
          q[r * inner] = static_cast<float>(static_cast<double>(p[r * inner]) - m - ls);
      } else {
        for (size_t r = 0; r < len; ++r)
          q[r * inner] = static_cast<float>(std::exp(static_cast<double>(p[r * inner]) - m) / s);
      }
    }
}

void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows,
                size_t D, float eps, float* mean, float* inv_std) {
  for (size_t r = 0; r < rows; ++r) {
    const float* p = x + r * D;
    float* q = y + r * D;
    double s = 0;
    for (size_t i = 0; i < D; ++i) s += p[i];
    const double mu = s / static_cast<double>(D);
    double v = 0;
    for (size_t i = 0; i < D; ++i) v += (p[i] - mu) * (p[i] - mu);
    const double is = 1.0 / std::sqrt(v / static_cast<double>(D) + eps);
    for (size_t i = 0; i < D; ++i)
      q[i] = static_cast<float>((p[i] - mu) * is * scale[i] + (bias ? bias[i] : 0.f));
    if (mean) mean[r] = static_cast<float>(mu);
    if (inv_std) inv_std[r] = static_cast<float>(is);
  }
}

}  // namespace ofg::kernels::scalar
