// Reductions (sum, mean, max, min), softmax and layer norm written once over an ISA's vector type
// V (see vmath.h); other reduce ops use the scalar reference. Float accumulators in 4 independent
// vectors (the scalar oracle uses double).
#pragma once

#include "kernels/internal.h"
#include "kernels/simd/vmath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ofg::kernels::simd {

template <class V>
float sum_contig(const float* x, size_t n) {
  using F = typename V::F;
  constexpr size_t L = V::kLanes;
  F a0 = V::zero(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a0 = V::add(a0, V::load(x + i));
    a1 = V::add(a1, V::load(x + i + L));
    a2 = V::add(a2, V::load(x + i + 2 * L));
    a3 = V::add(a3, V::load(x + i + 3 * L));
  }
  for (; i + L <= n; i += L) a0 = V::add(a0, V::load(x + i));
  float s = V::hsum(V::add(V::add(a0, a1), V::add(a2, a3)));
  for (; i < n; ++i) s += x[i];
  return s;
}

static inline float pick(bool is_max, float m, float v) { return is_max ? (v > m ? v : m) : (v < m ? v : m); }

// Max (or min) with NaN propagation: a separate NaN mask, since vector max/min differ per ISA on
// NaN operands.
template <class V>
float minmax_contig(const float* x, size_t n, bool is_max) {
  constexpr size_t L = V::kLanes;
  const float init = is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  typename V::F m = V::set1(init);
  typename V::M nan = V::lt(m, m);  // all false
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const typename V::F v = V::load(x + i);
    m = is_max ? V::max(m, v) : V::min(m, v);
    nan = V::mask_or(nan, v_isnan<V>(v));
  }
  if (V::any(nan)) return std::numeric_limits<float>::quiet_NaN();
  float t[L];
  V::store(t, m);
  float r = init;
  for (float v : t) r = pick(is_max, r, v);
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    r = pick(is_max, r, x[i]);
  }
  return r;
}

template <class V>
void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  using F = typename V::F;
  constexpr size_t L = V::kLanes;
  if (!(op == ReduceOp::Sum || op == ReduceOp::Mean || op == ReduceOp::Max || op == ReduceOp::Min) || len == 0) {
    scalar::reduce(op, x, y, outer, len, inner);
    return;
  }
  const bool is_max = op == ReduceOp::Max, is_sum = op == ReduceOp::Sum || op == ReduceOp::Mean;
  const float scale = op == ReduceOp::Mean ? 1.f / static_cast<float>(len) : 1.f;
  if (inner == 1) {
    for (size_t o = 0; o < outer; ++o) {
      const float* p = x + o * len;
      y[o] = is_sum ? sum_contig<V>(p, len) * scale : minmax_contig<V>(p, len, is_max);
    }
    return;
  }
  // Strided case: walk the len rows and combine them into L-wide slices of the output.
  for (size_t o = 0; o < outer; ++o) {
    const float* p = x + o * len * inner;
    float* q = y + o * inner;
    size_t i = 0;
    for (; i + L <= inner; i += L) {
      F acc = V::load(p + i);
      typename V::M nan = v_isnan<V>(acc);
      for (size_t r = 1; r < len; ++r) {
        const F v = V::load(p + r * inner + i);
        if (is_sum) acc = V::add(acc, v);
        else {
          acc = is_max ? V::max(acc, v) : V::min(acc, v);
          nan = V::mask_or(nan, v_isnan<V>(v));
        }
      }
      if (op == ReduceOp::Mean) acc = V::mul(acc, V::set1(scale));
      if (!is_sum) acc = V::select(nan, V::set1(std::numeric_limits<float>::quiet_NaN()), acc);
      V::store(q + i, acc);
    }
    for (size_t c = i; c < inner; ++c) {
      float m = p[c];
      bool nan = std::isnan(m);
      for (size_t r = 1; r < len; ++r) {
        const float v = p[r * inner + c];
        nan |= std::isnan(v);
        m = is_sum ? m + v : pick(is_max, m, v);
      }
      if (op == ReduceOp::Mean) m *= scale;
      if (nan && !is_sum) m = std::numeric_limits<float>::quiet_NaN();
      q[c] = m;
    }
  }
}

template <class V>
void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  using F = typename V::F;
  constexpr size_t L = V::kLanes;
  if (inner != 1 || len == 0) {
    scalar::softmax(x, y, outer, len, inner, log);
    return;
  }
  for (size_t o = 0; o < outer; ++o) {
    const float* p = x + o * len;
    float* q = y + o * len;
    float m = -std::numeric_limits<float>::infinity();
    {
      F vm = V::set1(m);
      size_t i = 0;
      for (; i + L <= len; i += L) vm = V::max(vm, V::load(p + i));
      float t[L];
      V::store(t, vm);
      for (float v : t) m = v > m ? v : m;
      for (; i < len; ++i) m = p[i] > m ? p[i] : m;
    }
    const F vm = V::set1(m);
    F vs = V::zero();
    size_t i = 0;
    for (; i + L <= len; i += L) {
      const F e = v_exp<V>(V::sub(V::load(p + i), vm));
      if (!log) V::store(q + i, e);
      vs = V::add(vs, e);
    }
    float s = V::hsum(vs);
    for (; i < len; ++i) {
      // The same vector exp for the tail lanes.
      float t[L] = {p[i] - m};
      V::store(t, v_exp<V>(V::load(t)));
      if (!log) q[i] = t[0];
      s += t[0];
    }
    if (log) {
      const float ls = std::log(s) + m;
      const F vl = V::set1(ls);
      size_t j = 0;
      for (; j + L <= len; j += L) V::store(q + j, V::sub(V::load(p + j), vl));
      for (; j < len; ++j) q[j] = p[j] - ls;
    } else {
      const float inv = 1.f / s;
      const F vi = V::set1(inv);
      size_t j = 0;
      for (; j + L <= len; j += L) V::store(q + j, V::mul(V::load(q + j), vi));
      for (; j < len; ++j) q[j] *= inv;
    }
  }
}

template <class V>
void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows, size_t D,
                float eps, float* mean, float* inv_std) {
  using F = typename V::F;
  constexpr size_t L = V::kLanes;
  for (size_t r = 0; r < rows; ++r) {
    const float* p = x + r * D;
    float* q = y + r * D;
    const float mu0 = sum_contig<V>(p, D) / static_cast<float>(D);
    // Two passes (mean, then squared deviations): no cancellation for large offsets. The second
    // pass also sums the deviations and corrects the mean by their average (the corrected
    // two-pass algorithm): the float sum of the first pass is off by a few ulps, which a row of
    // equal values (variance 0, so the output is deviation / sqrt(eps)) would turn into outputs
    // of 1e-4 where the exact result is 0.
    const F vmu0 = V::set1(mu0);
    F vv = V::zero(), vs = V::zero();
    size_t i = 0;
    for (; i + L <= D; i += L) {
      const F d = V::sub(V::load(p + i), vmu0);
      vs = V::add(vs, d);
      vv = V::fma(d, d, vv);
    }
    float var = V::hsum(vv), dev = V::hsum(vs);
    for (; i < D; ++i) {
      dev += p[i] - mu0;
      var += (p[i] - mu0) * (p[i] - mu0);
    }
    const float shift = dev / static_cast<float>(D);
    const float mu = mu0 + shift;
    var = std::max(0.f, var - dev * shift);
    const F vmu = V::set1(mu);
    const float is = 1.f / std::sqrt(var / static_cast<float>(D) + eps);
    const F vis = V::set1(is);
    i = 0;
    for (; i + L <= D; i += L) {
      const F n = V::mul(V::sub(V::load(p + i), vmu), vis);
      const F b = bias ? V::load(bias + i) : V::zero();
      V::store(q + i, V::fma(n, V::load(scale + i), b));
    }
    for (; i < D; ++i) q[i] = (p[i] - mu) * is * scale[i] + (bias ? bias[i] : 0.f);
    if (mean) mean[r] = mu;
    if (inv_std) inv_std[r] = is;
  }
}

}  // namespace ofg::kernels::simd
