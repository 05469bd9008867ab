// AVX2 integer GEMM, exact. Both operands are packed as int16 with their zero points already
// subtracted (every factor lies in [-255, 255]), two consecutive k per 32-bit word, so one
// vpmaddwd forms a[k] b[k] + a[k+1] b[k+1] for 8 columns: no intermediate can saturate (unlike
// vpmaddubsw), and padding rows / columns hold 0, which contributes nothing. Blocking follows
// the float GEMM: B in 16-column panels of kc rows, A in 6-row panels; scratch areas 2 and 3.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/igemm_tile.h"
#include "kernels/igemm_blocking.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace ofg::kernels::avx2 {

namespace {

constexpr size_t IMR = kTileM, INR = kTileN;
// kc 256 (128 pairs): a B panel is 8 KiB, an A panel 3 KiB (L1); B block 128 pairs x 512
// columns x 4 bytes = 256 KiB (L2).
constexpr size_t IKC = 256, IMC = 120, INC = 512;

inline uint32_t pair(int32_t lo, int32_t hi) {
  return static_cast<uint16_t>(static_cast<int16_t>(lo)) | static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16;
}

// 16 bytes as int16 (sign- or zero-extended).
inline __m256i widen16(const uint8_t* p, bool is_signed) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return is_signed ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v);
}

// B block rows [p0, p0 + kc), columns [j0, j0 + nc) into 16-column panels: panel jb holds, for
// each pair t, 16 words (column c: b(2t, c) - zb[c] low, b(2t + 1, c) - zb[c] high).
void pack_b_i16(const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, size_t p0, size_t kc,
                size_t j0, size_t nc, uint8_t* out) {
  auto* dst = reinterpret_cast<uint32_t*>(out);
  const size_t kp = (kc + 1) / 2;
  for (size_t jb = 0; jb < nc; jb += INR) {
    const size_t nr = std::min(INR, nc - jb);
    uint32_t* d = dst + jb * kp;
    const int32_t* z = zb + j0 + jb;
    if (nr == INR) {
      alignas(32) int16_t zv[INR];
      for (size_t c = 0; c < INR; ++c) zv[c] = static_cast<int16_t>(z[c]);
      const __m256i vz = _mm256_load_si256(reinterpret_cast<const __m256i*>(zv));
      for (size_t t = 0; t < kp; ++t) {
        const uint8_t* r0 = B + (p0 + 2 * t) * ldb + j0 + jb;
        const __m256i lo = _mm256_sub_epi16(widen16(r0, b_signed), vz);
        // An odd kc leaves the last pair's second row empty: zero, not the next block's row.
        const __m256i hi = 2 * t + 1 < kc ? _mm256_sub_epi16(widen16(r0 + ldb, b_signed), vz) : _mm256_setzero_si256();
        // unpack works inside 128-bit lanes: it yields columns 0-3|8-11 and 4-7|12-15.
        const __m256i u0 = _mm256_unpacklo_epi16(lo, hi), u1 = _mm256_unpackhi_epi16(lo, hi);
        _mm256_store_si256(reinterpret_cast<__m256i*>(d + t * INR), _mm256_permute2x128_si256(u0, u1, 0x20));
        _mm256_store_si256(reinterpret_cast<__m256i*>(d + t * INR + 8), _mm256_permute2x128_si256(u0, u1, 0x31));
      }
    } else {
      for (size_t t = 0; t < kp; ++t) {
        const size_t k = p0 + 2 * t;
        for (size_t c = 0; c < INR; ++c) {
          int32_t lo = 0, hi = 0;
          if (c < nr) {
            lo = int8_value(B[k * ldb + j0 + jb + c], b_signed) - z[c];
            if (2 * t + 1 < kc) hi = int8_value(B[(k + 1) * ldb + j0 + jb + c], b_signed) - z[c];
          }
          d[t * INR + c] = pair(lo, hi);
        }
      }
    }
  }
}

// A block rows [i0, i0 + mc), columns [p0, p0 + kc) into 6-row panels: pair t of row r at
// panel[t * 6 + r].
void pack_a_i16(const uint8_t* A, size_t lda, bool a_signed, const int32_t* za, size_t i0, size_t mc, size_t p0,
                size_t kc, uint8_t* out) {
  auto* dst = reinterpret_cast<uint32_t*>(out);
  const size_t kp = (kc + 1) / 2;
  for (size_t ib = 0; ib < mc; ib += IMR) {
    const size_t mr = std::min(IMR, mc - ib);
    uint32_t* d = dst + ib * kp;
    for (size_t r = 0; r < IMR; ++r) {
      if (r >= mr) {
        for (size_t t = 0; t < kp; ++t) d[t * IMR + r] = 0;
        continue;
      }
      const uint8_t* src = A + (i0 + ib + r) * lda + p0;
      const int32_t z = za[i0 + ib + r];
      for (size_t t = 0; t < kp; ++t) {
        const int32_t lo = int8_value(src[2 * t], a_signed) - z;
        const int32_t hi = 2 * t + 1 < kc ? int8_value(src[2 * t + 1], a_signed) - z : 0;
        d[t * IMR + r] = pair(lo, hi);
      }
    }
  }
}


}  // namespace

void igemm(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
           const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  igemm_packed({IMR, INR, IKC, IMC, INC, 2, 2}, M, N, K, A, lda, a_signed, za, B, ldb, b_signed, zb, C, ldc, pack_b_i16,
               pack_a_i16, [](size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t ldc_, size_t mr, size_t nr,
                              bool first) {
                 micro_6x16_i32(kpad / 2, pa, pb, c, ldc_, mr, nr, first, [](__m256i acc, __m256i a, __m256i b) {
                   return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
                 });
               });
}

namespace {
// Stride 2: 16 consecutive int16 hold the inputs of 8 outputs at their even positions, so
// vpmaddwd with (tap, 0) pairs yields those 8 products.
void dw_row_i16_s2(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t n, int32_t* y) {
  size_t j = 0;
  // The last output reads element 2 (n - 1); a 16-wide load from 2 j reads up to 2 j + 15.
  for (; j + 8 <= n && 2 * j + 16 <= 2 * n - 1; j += 8) {
    __m256i acc = _mm256_setzero_si256();
    for (size_t t = 0; t < ntaps; ++t) {
      const __m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[t] + 2 * j));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(r, _mm256_set1_epi32(static_cast<uint16_t>(taps[t]))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + j), acc);
  }
  dw_row_range(rows, taps, ntaps, 2, j, n, y);
}
}  // namespace

// Stride 1: two taps per vpmaddwd on the interleaved rows, 16 outputs per step. The broadcast
// tap pairs are made once per call (up to kPairs of them; longer kernels make them per step).
void dw_row_i16(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t stride, size_t n, int32_t* y) {
  if (stride == 2) return dw_row_i16_s2(rows, taps, ntaps, n, y);
  if (stride != 1) return scalar::dw_row_i16(rows, taps, ntaps, stride, n, y);
  constexpr size_t kPairs = 32;
  auto tap_pair = [&](size_t t) {
    return _mm256_set1_epi32(static_cast<int32_t>(pair(taps[t], t + 1 < ntaps ? taps[t + 1] : 0)));
  };
  __m256i pairs[kPairs];
  const bool hoisted = ntaps <= 2 * kPairs;
  if (hoisted)
    for (size_t t = 0; t < ntaps; t += 2) pairs[t / 2] = tap_pair(t);
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
    for (size_t t = 0; t < ntaps; t += 2) {
      const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[t] + j));
      const __m256i r1 =
          t + 1 < ntaps ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[t + 1] + j)) : _mm256_setzero_si256();
      const __m256i w = hoisted ? pairs[t / 2] : tap_pair(t);
      // Inside each 128-bit lane: outputs 0-3 | 8-11 and 4-7 | 12-15.
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), w));
      hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), w));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + j), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + j + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  dw_row_range(rows, taps, ntaps, 1, j, n, y);
}

}  // namespace ofg::kernels::avx2
