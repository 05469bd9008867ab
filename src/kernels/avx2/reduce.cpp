// AVX2 reductions (sum, mean, max, min), softmax and layer norm; other reduce ops use the scalar
// reference. Float accumulators in 4 independent vectors (the scalar oracle uses double).
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vmath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ofg::kernels::avx2 {

namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

float sum_contig(const float* x, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(x + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(x + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(x + i + 24));
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
  float s = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; ++i) s += x[i];
  return s;
}

// Max (or min) with NaN propagation: a separate NaN mask, since vmaxps drops NaN operands.
float minmax_contig(const float* x, size_t n, bool is_max) {
  const float init = is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  __m256 m = _mm256_set1_ps(init), nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    m = is_max ? _mm256_max_ps(m, v) : _mm256_min_ps(m, v);
    nan = _mm256_or_ps(nan, v_isnan(v));
  }
  if (_mm256_movemask_ps(nan)) return std::numeric_limits<float>::quiet_NaN();
  alignas(32) float t[8];
  _mm256_store_ps(t, m);
  float r = init;
  for (float v : t) r = is_max ? (v > r ? v : r) : (v < r ? v : r);
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    r = is_max ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
  }
  return r;
}

}  // namespace

void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  if (!(op == ReduceOp::Sum || op == ReduceOp::Mean || op == ReduceOp::Max || op == ReduceOp::Min) || len == 0) {
    scalar::reduce(op, x, y, outer, len, inner);
    return;
  }
  const bool is_max = op == ReduceOp::Max;
  const float scale = op == ReduceOp::Mean ? 1.f / static_cast<float>(len) : 1.f;
  if (inner == 1) {
    for (size_t o = 0; o < outer; ++o) {
      const float* p = x + o * len;
      y[o] = (op == ReduceOp::Sum || op == ReduceOp::Mean) ? sum_contig(p, len) * scale
                                                           : minmax_contig(p, len, is_max);
    }
    return;
  }
  // Strided case: walk the len rows and combine them into 8-wide slices of the output.
  for (size_t o = 0; o < outer; ++o) {
    const float* p = x + o * len * inner;
    float* q = y + o * inner;
    size_t i = 0;
    for (; i + 8 <= inner; i += 8) {
      __m256 acc = _mm256_loadu_ps(p + i), nan = v_isnan(acc);
      for (size_t r = 1; r < len; ++r) {
        const __m256 v = _mm256_loadu_ps(p + r * inner + i);
        if (op == ReduceOp::Sum || op == ReduceOp::Mean) acc = _mm256_add_ps(acc, v);
        else {
          acc = is_max ? _mm256_max_ps(acc, v) : _mm256_min_ps(acc, v);
          nan = _mm256_or_ps(nan, v_isnan(v));
        }
      }
      if (op == ReduceOp::Mean) acc = _mm256_mul_ps(acc, _mm256_set1_ps(scale));
      if (op == ReduceOp::Max || op == ReduceOp::Min)
        acc = _mm256_blendv_ps(acc, _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN()), nan);
      _mm256_storeu_ps(q + i, acc);
    }
    for (size_t c = i; c < inner; ++c) {
      float m = p[c];
      bool nan = std::isnan(m);
      for (size_t r = 1; r < len; ++r) {
        const float v = p[r * inner + c];
        nan |= std::isnan(v);
        if (op == ReduceOp::Sum || op == ReduceOp::Mean) m += v;
        else m = is_max ? (v > m ? v : m) : (v < m ? v : m);
      }
      if (op == ReduceOp::Mean) m *= scale;
      if (nan && (op == ReduceOp::Max || op == ReduceOp::Min)) m = std::numeric_limits<float>::quiet_NaN();
      q[c] = m;
    }
  }
}

void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  if (inner != 1 || len == 0) {
    scalar::softmax(x, y, outer, len, inner, log);
    return;
  }
  for (size_t o = 0; o < outer; ++o) {
    const float* p = x + o * len;
    float* q = y + o * len;
    float m = -std::numeric_limits<float>::infinity();
    {
      __m256 vm = _mm256_set1_ps(m);
      size_t i = 0;
      for (; i + 8 <= len; i += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(p + i));
      alignas(32) float t[8];
      _mm256_store_ps(t, vm);
      for (float v : t) m = v > m ? v : m;
      for (; i < len; ++i) m = p[i] > m ? p[i] : m;
    }
    const __m256 vm = _mm256_set1_ps(m);
    __m256 vs = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
      const __m256 e = v_exp(_mm256_sub_ps(_mm256_loadu_ps(p + i), vm));
      if (!log) _mm256_storeu_ps(q + i, e);
      vs = _mm256_add_ps(vs, e);
    }
    float s = hsum(vs);
    for (; i < len; ++i) {
      alignas(32) float t[8] = {p[i] - m};
      _mm256_store_ps(t, v_exp(_mm256_load_ps(t)));
      if (!log) q[i] = t[0];
      s += t[0];
    }
    if (log) {
      const float ls = std::log(s) + m;
      const __m256 vl = _mm256_set1_ps(ls);
      size_t j = 0;
      for (; j + 8 <= len; j += 8) _mm256_storeu_ps(q + j, _mm256_sub_ps(_mm256_loadu_ps(p + j), vl));
      for (; j < len; ++j) q[j] = p[j] - ls;
    } else {
      const float inv = 1.f / s;
      const __m256 vi = _mm256_set1_ps(inv);
      size_t j = 0;
      for (; j + 8 <= len; j += 8) _mm256_storeu_ps(q + j, _mm256_mul_ps(_mm256_loadu_ps(q + j), vi));
      for (; j < len; ++j) q[j] *= inv;
    }
  }
}

void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows,
                size_t D, float eps, float* mean, float* inv_std) {
  for (size_t r = 0; r < rows; ++r) {
    const float* p = x + r * D;
    float* q = y + r * D;
    const float mu0 = sum_contig(p, D) / static_cast<float>(D);
    // Two passes (mean, then squared deviations): no cancellation for large offsets. The second
    // pass also sums the deviations and corrects the mean by their average (the corrected
    // two-pass algorithm): the float sum of the first pass is off by a few ulps, which a row of
    // equal values (variance 0, so the output is deviation / sqrt(eps)) would turn into outputs
    // of 1e-4 where the exact result is 0.
    const __m256 vmu0 = _mm256_set1_ps(mu0);
    __m256 vv = _mm256_setzero_ps(), vs = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= D; i += 8) {
      const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(p + i), vmu0);
      vs = _mm256_add_ps(vs, d);
      vv = _mm256_fmadd_ps(d, d, vv);
    }
    float var = hsum(vv), dev = hsum(vs);
    for (; i < D; ++i) {
      dev += p[i] - mu0;
      var += (p[i] - mu0) * (p[i] - mu0);
    }
    const float shift = dev / static_cast<float>(D);
    const float mu = mu0 + shift;
    var = std::max(0.f, var - dev * shift);
    const __m256 vmu = _mm256_set1_ps(mu);
    const float is = 1.f / std::sqrt(var / static_cast<float>(D) + eps);
    const __m256 vis = _mm256_set1_ps(is);
    i = 0;
    for (; i + 8 <= D; i += 8) {
      const __m256 n = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p + i), vmu), vis);
      const __m256 b = bias ? _mm256_loadu_ps(bias + i) : _mm256_setzero_ps();
      _mm256_storeu_ps(q + i, _mm256_fmadd_ps(n, _mm256_loadu_ps(scale + i), b));
    }
    for (; i < D; ++i) q[i] = (p[i] - mu) * is * scale[i] + (bias ? bias[i] : 0.f);
    if (mean) mean[r] = mu;
    if (inv_std) inv_std[r] = is;
  }
}

}  // namespace ofg::kernels::avx2
