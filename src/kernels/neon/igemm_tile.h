// The 4x16 int32 register tile of the NEON integer GEMMs (int16 vmlal and SDOT) written to C.
// Internal linkage: igemm_sdot.cpp is compiled for armv8.2-a+dotprod, and an inline function
// shared with the baseline files could be linked in from it.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

namespace ofg::kernels::neon {
namespace {

constexpr size_t kIntTileM = 4, kIntTileN = 16;

// Rows [0, mr), columns [0, nr) of the accumulators (row r, columns 4 q ... 4 q + 3 in acc[r][q])
// to C: stored when `first`, else added with wrap-around.
void store_tile_4x16(const int32x4_t (&acc)[kIntTileM][4], int32_t* C, size_t ldc, size_t mr, size_t nr, bool first) {
  int32_t tile[kIntTileM][kIntTileN];
  for (size_t r = 0; r < kIntTileM; ++r)
    for (size_t q = 0; q < 4; ++q) vst1q_s32(tile[r] + 4 * q, acc[r][q]);
  for (size_t r = 0; r < mr; ++r) {
    int32_t* c = C + r * ldc;
    for (size_t j = 0; j < nr; ++j)
      c[j] = first ? tile[r][j] : static_cast<int32_t>(static_cast<uint32_t>(c[j]) + static_cast<uint32_t>(tile[r][j]));
  }
}

}  // namespace
}  // namespace ofg::kernels::neon
