// The 6x16 int32 register tile of the integer GEMMs written to C: stored when `first`, else added
// (wrapping). Internal linkage on purpose: the VNNI files include it compiled for other ISA
// extensions, and an inline function shared across them could be linked in from the wrong one.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

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

}  // namespace
}  // namespace ofg::kernels::avx2
