// Tiled 2-D transpose: 8x8 tiles keep both the read and the write side within a few cache lines.
#include "kernels/internal.h"

#include <algorithm>
#include <cstring>

namespace ofg::kernels::scalar {

namespace {
// Elements are moved as bytes (a fixed-size memcpy is one load and one store), so neither side
// needs to be aligned: weights are often read where a file put them, at any offset.
template <size_t kSize>
void transpose_tiled(const void* src_v, size_t src_ld, void* dst_v, size_t dst_ld, size_t rows, size_t cols) {
  constexpr size_t kTile = 8;
  const auto* src = static_cast<const unsigned char*>(src_v);
  auto* dst = static_cast<unsigned char*>(dst_v);
  for (size_t r0 = 0; r0 < rows; r0 += kTile) {
    const size_t r1 = std::min(rows, r0 + kTile);
    for (size_t c0 = 0; c0 < cols; c0 += kTile) {
      const size_t c1 = std::min(cols, c0 + kTile);
      for (size_t r = r0; r < r1; ++r)
        for (size_t c = c0; c < c1; ++c) std::memcpy(dst + (c * dst_ld + r) * kSize, src + (r * src_ld + c) * kSize, kSize);
    }
  }
}
}  // namespace

void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                 size_t rows, size_t cols) {
  switch (elem_size) {
    case 1: transpose_tiled<1>(src, src_ld, dst, dst_ld, rows, cols); break;
    case 2: transpose_tiled<2>(src, src_ld, dst, dst_ld, rows, cols); break;
    case 4: transpose_tiled<4>(src, src_ld, dst, dst_ld, rows, cols); break;
    case 8: transpose_tiled<8>(src, src_ld, dst, dst_ld, rows, cols); break;
    default: break;
  }
}

}  // namespace ofg::kernels::scalar
