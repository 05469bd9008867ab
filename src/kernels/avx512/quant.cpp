// AVX-512 versions of the two integer kernels at the heart of a quantized depthwise convolution
// (int_conv.cpp: dw_row_i16 for the sums, requantize_u8 for the 8-bit outputs), 16 int32 lanes
// per vector where AVX2 has 8. Both give the scalar reference's bits: the sums are exact integer
// arithmetic, and the requantization takes the float lanes only where they are exact (the
// conditions of avx2::requantize_u8) and hands every other block to the AVX2 kernel.
#include "kernels/avx2/avx2.h"
#include "kernels/avx512/avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace ofg::kernels::avx512 {

namespace {

// (lo, hi) as the two int16 halves of an int32 lane, lo first: vpmaddwd multiplies a pair of
// adjacent int16 by such a pair.
inline int32_t tap_pair(int16_t lo, int16_t hi) {
  return static_cast<int32_t>(static_cast<uint16_t>(lo) | static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16);
}

// The first n bits (n <= 32) of an element mask.
inline __mmask32 first_bits(size_t n) { return static_cast<__mmask32>((uint64_t{1} << n) - 1); }

// Stride 1, 32 outputs per step: the rows of two taps interleaved (unpack inside each 128-bit
// lane) make one vpmaddwd per 16 outputs. The last step loads and stores only the outputs left
// (masked lanes read as zero and are never stored). NT is the tap count when known at compile
// time (the 3x3 and 5x5 kernels: their pairs stay in registers and the tap loop unrolls), 0
// otherwise.
template <size_t NT>
void dw_stride1(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t n, int32_t* y) {
  const size_t nt = NT ? NT : ntaps;
  constexpr size_t kMaxPairs = 32;
  __m512i pairs[kMaxPairs];
  const bool hoisted = nt <= 2 * kMaxPairs;
  auto pair_of = [&](size_t t) { return _mm512_set1_epi32(tap_pair(taps[t], t + 1 < nt ? taps[t + 1] : 0)); };
  if (hoisted)
    for (size_t t = 0; t < nt; t += 2) pairs[t / 2] = pair_of(t);
  // unpacklo gives outputs 0-3, 8-11, 16-19, 24-27 and unpackhi 4-7, 12-15, 20-23, 28-31 (in
  // 128-bit quarters); these indices (of 64-bit halves, lo then hi) put them back in order.
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (size_t j = 0; j < n; j += 32) {
    const size_t r = std::min<size_t>(32, n - j);
    const __mmask32 m = first_bits(r);
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (size_t t = 0; t < nt; t += 2) {
      const __m512i r0 = _mm512_maskz_loadu_epi16(m, rows[t] + j);
      const __m512i r1 = t + 1 < nt ? _mm512_maskz_loadu_epi16(m, rows[t + 1] + j) : _mm512_setzero_si512();
      const __m512i w = hoisted ? pairs[t / 2] : pair_of(t);
      lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(r0, r1), w));
      hi = _mm512_add_epi32(hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(r0, r1), w));
    }
    const __m512i out0 = _mm512_permutex2var_epi64(lo, first, hi), out1 = _mm512_permutex2var_epi64(lo, second, hi);
    if (r == 32) {
      _mm512_storeu_si512(y + j, out0);
      _mm512_storeu_si512(y + j + 16, out1);
    } else {
      _mm512_mask_storeu_epi32(y + j, static_cast<__mmask16>(first_bits(std::min<size_t>(r, 16))), out0);
      if (r > 16) _mm512_mask_storeu_epi32(y + j + 16, static_cast<__mmask16>(first_bits(r - 16)), out1);
    }
  }
}

// Stride 2, 16 outputs per step: 32 consecutive int16 from 2 j hold output j + i's inputs at
// 2 i and 2 i + 1. A tap whose row is the previous tap's row moved by one element (the next
// kernel column, undilated) shares the previous one's load: one vpmaddwd with the pair (tap t,
// tap t + 1) covers both; any other tap goes alone with (tap, 0). Loads are masked to what the
// scalar reference reads: up to element 2 (n - 1) of a lone tap's row, one more for a pair
// (its second tap's element 2 (n - 1)).
void dw_stride2(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t n, int32_t* y) {
  for (size_t j = 0; j < n; j += 16) {
    const size_t r = std::min<size_t>(16, n - j);
    const __mmask32 lone = first_bits(2 * r - 1), pair = first_bits(2 * r);
    __m512i acc = _mm512_setzero_si512();
    for (size_t t = 0; t < ntaps;) {
      const bool paired = t + 1 < ntaps && rows[t + 1] == rows[t] + 1;
      const __m512i v = _mm512_maskz_loadu_epi16(paired ? pair : lone, rows[t] + 2 * j);
      const __m512i w = _mm512_set1_epi32(tap_pair(taps[t], paired ? taps[t + 1] : 0));
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(v, w));
      t += paired ? 2 : 1;
    }
    if (r == 16) _mm512_storeu_si512(y + j, acc);
    else _mm512_mask_storeu_epi32(y + j, static_cast<__mmask16>(first_bits(r)), acc);
  }
}

}  // namespace

void dw_row_i16(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t stride, size_t n, int32_t* y) {
  if (stride == 2) return dw_stride2(rows, taps, ntaps, n, y);
  if (stride != 1) return scalar::dw_row_i16(rows, taps, ntaps, stride, n, y);
  if (ntaps == 9) return dw_stride1<9>(rows, taps, ntaps, n, y);
  if (ntaps == 25) return dw_stride1<25>(rows, taps, ntaps, n, y);
  dw_stride1<0>(rows, taps, ntaps, n, y);
}

void requantize_u8(const int32_t* acc, size_t n, double bias, double mult, int32_t zero, bool out_signed,
                   uint8_t* y) {
  // The float lanes give the reference's bits when mult is a float, |mult| < 32 and |bias| and
  // every |acc| are below 2^23 (avx2::requantize_u8 says why); blocks outside that go to it.
  const bool float_ok =
      static_cast<double>(static_cast<float>(mult)) == mult && std::fabs(mult) < 32.0 && std::fabs(bias) < 8388608.0;
  size_t i = 0;
  if (float_ok) {
    const __m512 fb = _mm512_set1_ps(static_cast<float>(bias)), fm = _mm512_set1_ps(static_cast<float>(mult));
    const __m512i vz = _mm512_set1_epi32(zero), half_range = _mm512_set1_epi32(1 << 23),
                  high_bits = _mm512_set1_epi32(~0xFFFFFF), lo = _mm512_set1_epi32(out_signed ? -128 : 0),
                  hi = _mm512_set1_epi32(out_signed ? 127 : 255);
    for (; i + 64 <= n; i += 64) {
      __m512i a[4];
      __m512i any_high = _mm512_setzero_si512();
      for (int k = 0; k < 4; ++k) {
        a[k] = _mm512_loadu_si512(acc + i + 16 * k);
        // acc + 2^23 (wrapping) below 2^24 as unsigned <=> -2^23 <= acc < 2^23.
        any_high = _mm512_or_si512(any_high, _mm512_and_si512(_mm512_add_epi32(a[k], half_range), high_bits));
      }
      if (_mm512_test_epi32_mask(any_high, any_high) != 0) {
        avx2::requantize_u8(acc + i, 64, bias, mult, zero, out_signed, y + i);
        continue;
      }
      for (int k = 0; k < 4; ++k) {
        const __m512 f = _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(a[k]), fb), fm);
        // Round to nearest even (as nearbyint in the default mode), add the zero point in int32
        // (exact: |f| < 2^28) and clamp to the output type: the reference's clamp of the sum.
        __m512i q = _mm512_add_epi32(_mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
        q = _mm512_min_epi32(_mm512_max_epi32(q, lo), hi);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i + 16 * k), _mm512_cvtepi32_epi8(q));
      }
    }
  }
  avx2::requantize_u8(acc + i, n - i, bias, mult, zero, out_signed, y + i);
}

}  // namespace ofg::kernels::avx512
