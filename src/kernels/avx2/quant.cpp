// AVX2 8-bit quantization kernels, 8 elements per step, bit-identical to the scalar reference:
// the same operations in the same precision (round_ps rounds to nearest even like nearbyint in
// the default mode; cvtpd_ps rounds the double product once, like the cast).
#include "kernels/avx2/avx2.h"

#include <immintrin.h>

#include <cmath>

namespace ofg::kernels::avx2 {

namespace {

// v = round(value) + zero for 8 lanes: clamp into the 8-bit type, NaN lanes to 0, store 8 bytes.
inline void store8(__m256 v, bool out_signed, uint8_t* y) {
  const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  const __m256 lo = _mm256_set1_ps(out_signed ? -128.f : 0.f), hi = _mm256_set1_ps(out_signed ? 127.f : 255.f);
  v = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(v, lo), hi));
  const __m256i i = _mm256_cvttps_epi32(v);
  const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
  const __m128i b = out_signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(y), b);
}

inline __m256 round_even(__m256 v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

}  // namespace

void quantize_u8(const float* x, size_t n, float scale, float zero, bool out_signed, uint8_t* y) {
  const __m256 vs = _mm256_set1_ps(scale), vz = _mm256_set1_ps(zero);
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    store8(_mm256_add_ps(round_even(_mm256_div_ps(_mm256_loadu_ps(x + i), vs)), vz), out_signed, y + i);
  scalar::quantize_u8(x + i, n - i, scale, zero, out_signed, y + i);
}

void dequantize_u8(const uint8_t* x, size_t n, bool in_signed, int32_t zero, float scale, float* y) {
  const __m256i vz = _mm256_set1_epi32(zero);
  const __m256 vs = _mm256_set1_ps(scale);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i));
    const __m256i v = in_signed ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(v, vz)), vs));
  }
  scalar::dequantize_u8(x + i, n - i, in_signed, zero, scale, y + i);
}

namespace {

// requantize_u8's float lanes for 32 accumulators known to lie in [-2^23, 2^23), with a float
// multiplier below 32 in magnitude (so every lane is finite and below 2^29): cvtps2dq rounds to
// nearest even like round_ps in the default mode, the zero point is added exactly in int32 (the
// float sum of the reference can only differ beyond 2^24, which clamps the same), and the packs
// saturate to the output type, which is the clamp. The packs interleave 128-bit halves; the
// dword permute restores the order.
inline void requantize32_f32(const __m256i (&a)[4], __m256 fb, __m256 fm, __m256i zero, bool out_signed, uint8_t* y) {
  __m256i q[4];
  for (int k = 0; k < 4; ++k)
    q[k] = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(a[k]), fb), fm)), zero);
  const __m256i w01 = _mm256_packs_epi32(q[0], q[1]), w23 = _mm256_packs_epi32(q[2], q[3]);
  const __m256i b = out_signed ? _mm256_packs_epi16(w01, w23) : _mm256_packus_epi16(w01, w23);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y),
                      _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

}  // namespace

void requantize_u8(const int32_t* acc, size_t n, double bias, double mult, int32_t zero, bool out_signed,
                   uint8_t* y) {
  const __m256d vb = _mm256_set1_pd(bias), vm = _mm256_set1_pd(mult);
  const __m256 vz = _mm256_set1_ps(static_cast<float>(zero));
  // A float lane path, twice as wide, gives the same bits when mult is a float and |bias| and every
  // |acc| are below 2^23: acc + bias is then exact in float, and the float product of two floats
  // is the correctly rounded exact product, which is what rounding the (exact) double product to
  // float gives. Vectors with a larger accumulator take the double path.
  const bool float_ok = static_cast<double>(static_cast<float>(mult)) == mult && std::fabs(bias) < 8388608.0;
  const __m256 fb = _mm256_set1_ps(static_cast<float>(float_ok ? bias : 0.0)), fm = _mm256_set1_ps(static_cast<float>(mult));
  const __m256i half_range = _mm256_set1_epi32(1 << 23), high_bits = _mm256_set1_epi32(~0xFFFFFF);
  auto eight = [&](size_t j) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + j));
    const bool small = _mm256_testz_si256(_mm256_add_epi32(a, half_range), high_bits) != 0;
    __m256 f;
    if (float_ok && small) {
      f = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(a), fb), fm);
    } else {
      const __m256d d0 = _mm256_mul_pd(_mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(a)), vb), vm);
      const __m256d d1 = _mm256_mul_pd(_mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(a, 1)), vb), vm);
      f = _mm256_set_m128(_mm256_cvtpd_ps(d1), _mm256_cvtpd_ps(d0));
    }
    store8(_mm256_add_ps(round_even(f), vz), out_signed, y + j);
  };
  size_t i = 0;
  if (float_ok && std::fabs(mult) < 32.0) {
    for (; i + 32 <= n; i += 32) {
      const __m256i a[4] = {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i)),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 8)),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 16)),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 24))};
      // acc + 2^23 (wrapping) below 2^24 as unsigned <=> -2^23 <= acc < 2^23, for all 32.
      __m256i any_high = _mm256_setzero_si256();
      for (const __m256i& v : a) any_high = _mm256_or_si256(any_high, _mm256_and_si256(_mm256_add_epi32(v, half_range), high_bits));
      if (_mm256_testz_si256(any_high, any_high)) {
        requantize32_f32(a, fb, fm, _mm256_set1_epi32(zero), out_signed, y + i);
      } else {
        for (size_t j = i; j < i + 32; j += 8) eight(j);
      }
    }
  }
  for (; i + 8 <= n; i += 8) eight(i);
  scalar::requantize_u8(acc + i, n - i, bias, mult, zero, out_signed, y + i);
}

}  // namespace ofg::kernels::avx2
