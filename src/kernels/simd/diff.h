// diff for the SIMD ISAs: the operations of the scalar version (scalar/compare.cpp) in
// double, on the ISA's double vector S::F64 (S::widen loads and converts that many floats), so
// the statistics are identical. Ties on max_abs keep the lowest index (per lane only strictly
// greater values replace, across lanes the lowest index wins).
#pragma once

#include "kernels/internal.h"

#include <limits>

namespace ofg::kernels::simd {

template <class S>
DiffStats diff(const float* a, const float* b, size_t n, double atol, double rtol) {
  using D = typename S::F64;
  using M = decltype(D{} < D{});  // all-ones / zero 64-bit lanes
  constexpr size_t L = sizeof(D) / sizeof(double);
  const auto sel = [](M m, D yes, D no) { return (D)((m & (M)yes) | (~m & (M)no)); };
  const D inf = D{} + std::numeric_limits<double>::infinity(), zero = D{};
  const D vatol = D{} + atol, vrtol = D{} + rtol;
  D best = zero, best_idx = zero, best_rel = zero, idx = zero;
  for (size_t l = 0; l < L; ++l) idx[l] = static_cast<double>(l);
  size_t mism = 0, i = 0;
  for (; i + L <= n; i += L) {
    const D x = S::widen(a + i), e = S::widen(b + i);
    const M nx = x != x, ne = e != e;
    const M abs_bits = (M{} + 1) << 63;
    D d = (D)((M)(x - e) & ~abs_bits);
    d = sel(x == e, zero, d);
    d = sel(nx | ne, inf, d);
    d = sel(nx & ne, zero, d);
    const D ae = (D)((M)e & ~abs_bits);
    const M dinf = d == inf;
    D rel = d / ae;
    rel = sel(dinf | (ae == zero), inf, rel);
    rel = sel(d == zero, zero, rel);
    const D tol = vatol + vrtol * ae;
    const M bad = dinf | (d > tol);
    for (size_t l = 0; l < L; ++l) mism += bad[l] != 0;
    const M gt = d > best;
    best = sel(gt, d, best);
    best_idx = sel(gt, idx, best_idx);
    best_rel = sel(rel > best_rel, rel, best_rel);
    idx += static_cast<double>(L);
  }
  DiffStats st;
  st.mismatches = mism;
  for (size_t l = 0; l < L; ++l) {
    const size_t li = static_cast<size_t>(best_idx[l]);
    if (best[l] > st.max_abs || (best[l] == st.max_abs && best[l] > 0 && li < st.worst_index)) {
      st.max_abs = best[l];
      st.worst_index = li;
    }
    if (best_rel[l] > st.max_rel) st.max_rel = best_rel[l];
  }
  if (i < n) {
    const DiffStats t = scalar::diff(a + i, b + i, n - i, atol, rtol);
    st.mismatches += t.mismatches;
    if (t.max_abs > st.max_abs) {
      st.max_abs = t.max_abs;
      st.worst_index = i + t.worst_index;
    }
    if (t.max_rel > st.max_rel) st.max_rel = t.max_rel;
  }
  return st;
}

}  // namespace ofg::kernels::simd
