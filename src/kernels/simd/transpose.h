// transpose2d for the SIMD ISAs: 4-byte elements in square S::kTile tiles transposed in
// registers by S::transpose_tile, visited in the order below; ragged edges and other element
// sizes use the scalar tiles.
#pragma once

#include "kernels/internal.h"

namespace ofg::kernels::simd {

// Tiles are visited in blocks of `br` source rows: for each group of T source columns, the tiles
// of the block's rows are done one after another, so each of the T destination rows receives a
// contiguous run of br elements. Which br is fastest depends on the two strides: when the
// destination stride is the larger one (a tall matrix such as a [1024, 256] weight), short runs
// touch a new page and cache set per 32 bytes written, so runs of 128 are 5x faster; when the
// source stride is the larger one, br source rows are read at once and long blocks evict
// each other's lines before their second half is used, so blocks of 16 are 2-3x faster than 128
// (measured with 8x8 AVX2 tiles).
template <class S>
void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld, size_t rows,
                 size_t cols) {
  if (elem_size != 4) {
    scalar::transpose2d(elem_size, src, src_ld, dst, dst_ld, rows, cols);
    return;
  }
  constexpr size_t T = S::kTile;
  static_assert(16 % T == 0, "block heights are multiples of 16");
  const auto* s = static_cast<const float*>(src);
  auto* d = static_cast<float*>(dst);
  const size_t rT = rows / T * T, cT = cols / T * T;
  const size_t br = dst_ld >= 2 * src_ld ? 128 : src_ld >= 2 * dst_ld ? 16 : 32;
  for (size_t r0 = 0; r0 < rT; r0 += br) {
    const size_t r1 = r0 + br < rT ? r0 + br : rT;
    for (size_t c = 0; c < cT; c += T)
      for (size_t r = r0; r < r1; r += T) S::transpose_tile(s + r * src_ld + c, src_ld, d + c * dst_ld + r, dst_ld);
  }
  // Right strip (all rows, cols cT..) and bottom strip (rows rT.., first cT cols).
  if (cT < cols) scalar::transpose2d(4, s + cT, src_ld, d + cT * dst_ld, dst_ld, rows, cols - cT);
  if (rT < rows) scalar::transpose2d(4, s + rT * src_ld, src_ld, d + rT, dst_ld, rows - rT, cT);
}

}  // namespace ofg::kernels::simd
