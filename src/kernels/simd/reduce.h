// Reductions (sum, mean, max, min; sum of squares over contiguous rows), softmax and layer norm
// written once over an ISA's struct S (see vmath.h); other reduce ops use the scalar reference. Float accumulators in 4 independent
// vectors (the scalar oracle uses double).
#pragma once

#include "kernels/internal.h"
#include "kernels/simd/vmath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ofg::kernels::simd {

// The sum of x[i] (or of x[i]^2 with kSquares: RMSNormalization, ReduceSumSquare over the last
// axis) in four independent vector accumulators.
template <class S, bool kSquares = false>
float sum_contig(const float* x, size_t n) {
  using F = typename S::V;
  constexpr size_t L = S::W;
  auto add = [](F acc, F v) { return kSquares ? S::fma(v, v, acc) : S::add(acc, v); };
  F a0 = S::zero(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a0 = add(a0, S::load(x + i));
    a1 = add(a1, S::load(x + i + L));
    a2 = add(a2, S::load(x + i + 2 * L));
    a3 = add(a3, S::load(x + i + 3 * L));
  }
  for (; i + L <= n; i += L) a0 = add(a0, S::load(x + i));
  float s = S::hsum(S::add(S::add(a0, a1), S::add(a2, a3)));
  for (; i < n; ++i) s += kSquares ? x[i] * x[i] : x[i];
  return s;
}

static inline float pick(bool is_max, float m, float v) { return is_max ? (v > m ? v : m) : (v < m ? v : m); }

// Max (or min) with NaN propagation: a separate NaN mask, since vector max/min differ per ISA on
// NaN operands.
template <class S>
float minmax_contig(const float* x, size_t n, bool is_max) {
  constexpr size_t L = S::W;
  const float init = is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  typename S::V m = S::set1(init);
  typename S::V nan = S::lt(m, m);  // all false
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const typename S::V v = S::load(x + i);
    m = is_max ? S::max(m, v) : S::min(m, v);
    nan = S::or_mask(nan, S::nan_mask(v));
  }
  if (S::any(nan)) return std::numeric_limits<float>::quiet_NaN();
  float t[L];
  S::store(t, m);
  float r = init;
  for (float v : t) r = pick(is_max, r, v);
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    r = pick(is_max, r, x[i]);
  }
  return r;
}

template <class S>
void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  using F = typename S::V;
  constexpr size_t L = S::W;
  if (op == ReduceOp::SumSquare && inner == 1 && len > 0) {
    for (size_t o = 0; o < outer; ++o) y[o] = sum_contig<S, true>(x + o * len, len);
    return;
  }
  if (!(op == ReduceOp::Sum || op == ReduceOp::Mean || op == ReduceOp::Max || op == ReduceOp::Min) || len == 0) {
    scalar::reduce(op, x, y, outer, len, inner);
    return;
  }
  const bool is_max = op == ReduceOp::Max, is_sum = op == ReduceOp::Sum || op == ReduceOp::Mean;
  const float scale = op == ReduceOp::Mean ? 1.f / static_cast<float>(len) : 1.f;
  if (inner == 1) {
    for (size_t o = 0; o < outer; ++o) {
      const float* p = x + o * len;
      y[o] = is_sum ? sum_contig<S>(p, len) * scale : minmax_contig<S>(p, len, is_max);
    }
    return;
  }
  // Strided case: walk the len rows and combine them into L-wide slices of the output.
  for (size_t o = 0; o < outer; ++o) {
    const float* p = x + o * len * inner;
    float* q = y + o * inner;
    size_t i = 0;
    for (; i + L <= inner; i += L) {
      F acc = S::load(p + i);
      typename S::V nan = S::nan_mask(acc);
      for (size_t r = 1; r < len; ++r) {
        const F v = S::load(p + r * inner + i);
        if (is_sum) acc = S::add(acc, v);
        else {
          acc = is_max ? S::max(acc, v) : S::min(acc, v);
          nan = S::or_mask(nan, S::nan_mask(v));
        }
      }
      if (op == ReduceOp::Mean) acc = S::mul(acc, S::set1(scale));
      if (!is_sum) acc = S::select(nan, S::set1(std::numeric_limits<float>::quiet_NaN()), acc);
      S::store(q + i, acc);
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

// G rows of len < S::W floats (attention over a few tokens), each row computed as softmax's loop
// below computes it (the body's vector loops run zero times for it): the max in element order,
// one vector exp of x - max, the sum in element order from 0, then times 1 / sum (or x minus
// log sum + max). The rows' scalar chains (max, sum) are interleaved: each waits on its own
// previous step only.
template <class S, size_t G>
void softmax_short_rows(const float* x, float* y, size_t len, bool log) {
  constexpr size_t L = S::W;
  float m[G], s[G], t[G][L] = {};
  for (size_t g = 0; g < G; ++g) m[g] = -std::numeric_limits<float>::infinity();
  for (size_t k = 0; k < len; ++k)
    for (size_t g = 0; g < G; ++g) {
      const float v = x[g * len + k];
      m[g] = v > m[g] ? v : m[g];
    }
  for (size_t g = 0; g < G; ++g) {
    for (size_t k = 0; k < len; ++k) t[g][k] = x[g * len + k] - m[g];
    S::store(t[g], v_exp<S>(S::load(t[g])));
    s[g] = S::hsum(S::zero());
  }
  for (size_t k = 0; k < len; ++k)
    for (size_t g = 0; g < G; ++g) s[g] += t[g][k];
  for (size_t g = 0; g < G; ++g) {
    float* q = y + g * len;
    if (log) {
      const float ls = std::log(s[g]) + m[g];
      for (size_t k = 0; k < len; ++k) q[k] = x[g * len + k] - ls;
    } else {
      const float inv = 1.f / s[g];
      for (size_t k = 0; k < len; ++k) q[k] = t[g][k] * inv;
    }
  }
}

// Softmax over an axis that is not the last (a class axis of NCHW scores): L columns of the
// inner axes at a time, each lane one softmax, as the contiguous loop below computes a row (max,
// exp of x - max, sum, then times 1 / sum or x minus log sum + max). The columns past the last
// full vector are copied into a zero-padded block of L columns and back.
template <class S>
void softmax_columns(const float* p, float* q, size_t len, size_t stride, bool log) {
  using F = typename S::V;
  F vm = S::load(p);
  for (size_t r = 1; r < len; ++r) vm = S::max(vm, S::load(p + r * stride));
  F vs = S::zero();
  for (size_t r = 0; r < len; ++r) {
    const F e = v_exp<S>(S::sub(S::load(p + r * stride), vm));
    if (!log) S::store(q + r * stride, e);
    vs = S::add(vs, e);
  }
  if (log) {
    const F vl = S::add(v_log<S>(vs), vm);
    for (size_t r = 0; r < len; ++r) S::store(q + r * stride, S::sub(S::load(p + r * stride), vl));
  } else {
    const F vi = S::div(S::set1(1.f), vs);
    for (size_t r = 0; r < len; ++r) S::store(q + r * stride, S::mul(S::load(q + r * stride), vi));
  }
}

template <class S>
void softmax_strided(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  constexpr size_t L = S::W;
  const size_t full = inner / L * L, rest = inner - full;
  std::vector<float> tail(rest ? len * L : 0);
  for (size_t o = 0; o < outer; ++o) {
    const float* p = x + o * len * inner;
    float* q = y + o * len * inner;
    for (size_t i = 0; i < full; i += L) softmax_columns<S>(p + i, q + i, len, inner, log);
    if (rest == 0) continue;
    for (size_t r = 0; r < len; ++r) std::copy(p + r * inner + full, p + (r + 1) * inner, tail.data() + r * L);
    softmax_columns<S>(tail.data(), tail.data(), len, L, log);
    for (size_t r = 0; r < len; ++r) std::copy(tail.data() + r * L, tail.data() + r * L + rest, q + r * inner + full);
  }
}

template <class S>
void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  using F = typename S::V;
  constexpr size_t L = S::W;
  if (len == 0) return;
  if (inner != 1) {
    if (inner >= L) softmax_strided<S>(x, y, outer, len, inner, log);
    else scalar::softmax(x, y, outer, len, inner, log);
    return;
  }
  size_t o = 0;
  if (len < L) {
    for (; o + 4 <= outer; o += 4) softmax_short_rows<S, 4>(x + o * len, y + o * len, len, log);
  }
  for (; o < outer; ++o) {
    const float* p = x + o * len;
    float* q = y + o * len;
    float m = -std::numeric_limits<float>::infinity();
    {
      F vm = S::set1(m);
      size_t i = 0;
      for (; i + L <= len; i += L) vm = S::max(vm, S::load(p + i));
      float t[L];
      S::store(t, vm);
      for (float v : t) m = v > m ? v : m;
      for (; i < len; ++i) m = p[i] > m ? p[i] : m;
    }
    const F vm = S::set1(m);
    F vs = S::zero();
    size_t i = 0;
    for (; i + L <= len; i += L) {
      const F e = v_exp<S>(S::sub(S::load(p + i), vm));
      if (!log) S::store(q + i, e);
      vs = S::add(vs, e);
    }
    float s = S::hsum(vs);
    if (i < len) {
      // The tail's lanes through one vector exp (lane by lane the same values as the body's),
      // added to the sum one after the other. Rows shorter than a vector (attention over a few
      // tokens) are all tail: one exp call per row, not one per element.
      float t[L] = {};
      const size_t n = len - i;
      for (size_t k = 0; k < n; ++k) t[k] = p[i + k] - m;
      S::store(t, v_exp<S>(S::load(t)));
      for (size_t k = 0; k < n; ++k) s += t[k];
      if (!log) std::copy(t, t + n, q + i);
    }
    if (log) {
      const float ls = std::log(s) + m;
      const F vl = S::set1(ls);
      size_t j = 0;
      for (; j + L <= len; j += L) S::store(q + j, S::sub(S::load(p + j), vl));
      for (; j < len; ++j) q[j] = p[j] - ls;
    } else {
      const float inv = 1.f / s;
      const F vi = S::set1(inv);
      size_t j = 0;
      for (; j + L <= len; j += L) S::store(q + j, S::mul(S::load(q + j), vi));
      for (; j < len; ++j) q[j] *= inv;
    }
  }
}

template <class S>
void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows, size_t D,
                float eps, float* mean, float* inv_std) {
  using F = typename S::V;
  constexpr size_t L = S::W;
  for (size_t r = 0; r < rows; ++r) {
    const float* p = x + r * D;
    float* q = y + r * D;
    const float mu0 = sum_contig<S>(p, D) / static_cast<float>(D);
    // Two passes (mean, then squared deviations): no cancellation for large offsets. The second
    // pass also sums the deviations and corrects the mean by their average (the corrected
    // two-pass algorithm): the float sum of the first pass is off by a few ulps, which a row of
    // equal values (variance 0, so the output is deviation / sqrt(eps)) would turn into outputs
    // of 1e-4 where the exact result is 0.
    const F vmu0 = S::set1(mu0);
    F vv = S::zero(), vs = S::zero();
    size_t i = 0;
    for (; i + L <= D; i += L) {
      const F d = S::sub(S::load(p + i), vmu0);
      vs = S::add(vs, d);
      vv = S::fma(d, d, vv);
    }
    float var = S::hsum(vv), dev = S::hsum(vs);
    for (; i < D; ++i) {
      dev += p[i] - mu0;
      var += (p[i] - mu0) * (p[i] - mu0);
    }
    const float shift = dev / static_cast<float>(D);
    const float mu = mu0 + shift;
    var = std::max(0.f, var - dev * shift);
    const F vmu = S::set1(mu);
    const float is = 1.f / std::sqrt(var / static_cast<float>(D) + eps);
    const F vis = S::set1(is);
    i = 0;
    for (; i + L <= D; i += L) {
      const F n = S::mul(S::sub(S::load(p + i), vmu), vis);
      const F b = bias ? S::load(bias + i) : S::zero();
      S::store(q + i, S::fma(n, S::load(scale + i), b));
    }
    for (; i < D; ++i) q[i] = (p[i] - mu) * is * scale[i] + (bias ? bias[i] : 0.f);
    if (mean) mean[r] = mu;
    if (inv_std) inv_std[r] = is;
  }
}

}  // namespace ofg::kernels::simd
