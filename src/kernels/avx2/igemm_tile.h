// The 6x16 int32 register tile of the integer GEMMs (AVX2 int16 and VNNI): both pack one 32-bit
// word per row and k unit for A (a pair of int16, or four bytes) and 16 such words per k unit for
// B, and differ only in the instruction that accumulates a word into the 8 lanes. Internal linkage on purpose: the VNNI files include it compiled for other ISA
// extensions, and an inline function shared across them could be linked in from the wrong one.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ofg::kernels::avx2 {
namespace {

constexpr size_t kTileM = 6, kTileN = 16;

void store_tile_i32(const __m256i (&acc)[kTileM][2], int32_t* C, size_t ldc, size_t mr, size_t nr, bool first) {
  // Through memory: indexing acc with the runtime mr would keep it out of registers.
  alignas(32) int32_t tile[kTileM][kTileN];
#pragma GCC unroll 6
  for (size_t r = 0; r < kTileM; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r]), acc[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r] + 8), acc[r][1]);
  }
  for (size_t r = 0; r < mr; ++r) {
    int32_t* c = C + r * ldc;
    if (nr == kTileN) {
      for (size_t h = 0; h < kTileN; h += 8) {
        __m256i* cp = reinterpret_cast<__m256i*>(c + h);
        const __m256i t = _mm256_load_si256(reinterpret_cast<const __m256i*>(tile[r] + h));
        _mm256_storeu_si256(cp, first ? t : _mm256_add_epi32(_mm256_loadu_si256(cp), t));
      }
      continue;
    }
    for (size_t j = 0; j < nr; ++j)
      c[j] = first ? tile[r][j] : static_cast<int32_t>(static_cast<uint32_t>(c[j]) + static_cast<uint32_t>(tile[r][j]));
  }
}

// units k units of packed panels (A: 24 bytes per unit, B: 64), step(acc, a_word, b) accumulating;
// the result is stored to C when `first`, else added.
template <class Step>
void micro_6x16_i32(size_t units, const uint8_t* pa, const uint8_t* pb, int32_t* C, size_t ldc, size_t mr, size_t nr,
                    bool first, Step step) {
  __m256i acc[kTileM][2];
#pragma GCC unroll 6
  for (size_t r = 0; r < kTileM; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (size_t t = 0; t < units; ++t) {
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(pb + t * 64));
    const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(pb + t * 64 + 32));
    const uint8_t* a = pa + t * 4 * kTileM;
    // Fully unrolled so that the 12 accumulators stay in registers (-O2 does not unroll it).
#pragma GCC unroll 6
    for (size_t r = 0; r < kTileM; ++r) {
      int32_t w;
      std::memcpy(&w, a + 4 * r, 4);
      const __m256i va = _mm256_set1_epi32(w);
      acc[r][0] = step(acc[r][0], va, b0);
      acc[r][1] = step(acc[r][1], va, b1);
    }
  }
  store_tile_i32(acc, C, ldc, mr, nr, first);
}

}  // namespace
}  // namespace ofg::kernels::avx2
