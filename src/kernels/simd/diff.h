// diff_f32 written once over an ISA's double vector struct VD (IsaF64 in kernels/avx2/isa.h,
// kernels/neon/isa.h): the operations of the scalar version (scalar/compare.cpp) in double,
// VD::kLanes lanes at a time, so the statistics are identical. Ties on max_abs keep the lowest
// index (per lane only strictly greater values replace, across lanes the lowest index wins).
#pragma once

#include "kernels/internal.h"

#include <limits>

namespace ofg::kernels::simd {

template <class VD>
DiffStats diff_f32(const float* a, const float* b, size_t n, double atol, double rtol) {
  using D = typename VD::D;
  using M = typename VD::M;
  constexpr size_t L = VD::kLanes;
  const D inf = VD::set1(std::numeric_limits<double>::infinity()), zero = VD::set1(0.0);
  const D vatol = VD::set1(atol), vrtol = VD::set1(rtol), step = VD::set1(static_cast<double>(L));
  D best = zero, best_idx = zero, best_rel = zero, idx = VD::iota();
  size_t mism = 0, i = 0;
  for (; i + L <= n; i += L) {
    const D x = VD::load_f32(a + i), e = VD::load_f32(b + i);
    const M nx = VD::unord(x, x), ne = VD::unord(e, e);
    D d = VD::abs(VD::sub(x, e));
    d = VD::select(VD::eq(x, e), zero, d);
    d = VD::select(VD::mask_or(nx, ne), inf, d);
    d = VD::select(VD::mask_and(nx, ne), zero, d);
    const D ae = VD::abs(e);
    const M dinf = VD::eq(d, inf);
    D rel = VD::div(d, ae);
    rel = VD::select(VD::mask_or(dinf, VD::eq(ae, zero)), inf, rel);
    rel = VD::select(VD::eq(d, zero), zero, rel);
    const D tol = VD::add(vatol, VD::mul(vrtol, ae));
    mism += VD::count(VD::mask_or(dinf, VD::gt(d, tol)));
    const M gt = VD::gt(d, best);
    best = VD::select(gt, d, best);
    best_idx = VD::select(gt, idx, best_idx);
    best_rel = VD::max(best_rel, rel);
    idx = VD::add(idx, step);
  }
  double bv[L], bi[L], br[L];
  VD::store(bv, best);
  VD::store(bi, best_idx);
  VD::store(br, best_rel);
  DiffStats st;
  st.mismatches = mism;
  for (size_t l = 0; l < L; ++l) {
    const size_t li = static_cast<size_t>(bi[l]);
    if (bv[l] > st.max_abs || (bv[l] == st.max_abs && bv[l] > 0 && li < st.worst_index)) {
      st.max_abs = bv[l];
      st.worst_index = li;
    }
    if (br[l] > st.max_rel) st.max_rel = br[l];
  }
  if (i < n) {
    const DiffStats t = scalar::diff_f32(a + i, b + i, n - i, atol, rtol);
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
