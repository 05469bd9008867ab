// AVX2 hash and float comparison; both reproduce the scalar results bit for bit.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vmath.h"

#include <cmath>
#include <limits>

namespace ofg::kernels::avx2 {

uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  const uint64_t key0[4] = {hashc::kSeed[1], hashc::kSeed[2], hashc::kSeed[3], hashc::kSeed[0]};
  __m256i key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key0));
  __m256i acc = _mm256_setzero_si256();
  const __m256i step = _mm256_set1_epi64x(static_cast<long long>(hashc::kStep));
  const size_t stripes = n / 32;
  for (size_t s = 0; s < stripes; ++s) {
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + s * 32));
    const __m256i k = _mm256_xor_si256(d, key);
    const __m256i prod = _mm256_mul_epu32(k, _mm256_srli_epi64(k, 32));  // lo32 * hi32
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(d, prod));
    key = _mm256_add_epi64(key, step);
  }
  uint64_t a[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), acc);
  return hashc::finish(a, p + stripes * 32, n - stripes * 32, n);
}

// Same operations as the scalar version, in double, four lanes at a time; ties on max_abs keep
// the lowest index (per lane only strictly greater values replace, across lanes the lowest
// index wins).
DiffStats diff_f32(const float* a, const float* b, size_t n, double atol, double rtol) {
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  const __m256d zero = _mm256_setzero_pd(), sign = _mm256_set1_pd(-0.0);
  const __m256d vatol = _mm256_set1_pd(atol), vrtol = _mm256_set1_pd(rtol);
  __m256d best = zero, best_idx = zero, best_rel = zero;
  __m256d idx = _mm256_setr_pd(0, 1, 2, 3);
  const __m256d four = _mm256_set1_pd(4);
  size_t mism = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(a + i)), e = _mm256_cvtps_pd(_mm_loadu_ps(b + i));
    const __m256d nx = _mm256_cmp_pd(x, x, _CMP_UNORD_Q), ne = _mm256_cmp_pd(e, e, _CMP_UNORD_Q);
    __m256d d = _mm256_andnot_pd(sign, _mm256_sub_pd(x, e));
    d = _mm256_blendv_pd(d, zero, _mm256_cmp_pd(x, e, _CMP_EQ_OQ));
    d = _mm256_blendv_pd(d, inf, _mm256_or_pd(nx, ne));
    d = _mm256_blendv_pd(d, zero, _mm256_and_pd(nx, ne));
    const __m256d ae = _mm256_andnot_pd(sign, e);
    const __m256d dinf = _mm256_cmp_pd(d, inf, _CMP_EQ_OQ);
    __m256d rel = _mm256_div_pd(d, ae);
    rel = _mm256_blendv_pd(rel, inf, _mm256_or_pd(dinf, _mm256_cmp_pd(ae, zero, _CMP_EQ_OQ)));
    rel = _mm256_blendv_pd(rel, zero, _mm256_cmp_pd(d, zero, _CMP_EQ_OQ));
    const __m256d tol = _mm256_add_pd(vatol, _mm256_mul_pd(vrtol, ae));
    const __m256d bad = _mm256_or_pd(dinf, _mm256_cmp_pd(d, tol, _CMP_GT_OQ));
    mism += static_cast<size_t>(__builtin_popcount(static_cast<unsigned>(_mm256_movemask_pd(bad))));
    const __m256d gt = _mm256_cmp_pd(d, best, _CMP_GT_OQ);
    best = _mm256_blendv_pd(best, d, gt);
    best_idx = _mm256_blendv_pd(best_idx, idx, gt);
    best_rel = _mm256_max_pd(best_rel, rel);
    idx = _mm256_add_pd(idx, four);
  }
  alignas(32) double bv[4], bi[4], br[4];
  _mm256_store_pd(bv, best);
  _mm256_store_pd(bi, best_idx);
  _mm256_store_pd(br, best_rel);
  DiffStats st;
  st.mismatches = mism;
  for (int l = 0; l < 4; ++l) {
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

}  // namespace ofg::kernels::avx2
