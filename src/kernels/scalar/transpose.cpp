// Tiled 2-D transpose: 8x8 tiles keep both the read and the write side within a few cache lines.
#include "kernels/internal.h"

#include <algorithm>
#include <cstring>

namespace ofg::kernels::scalar {

namespace {
template <class T>
void transpose_tiled(const T* src, size_t src_ld, T* dst, size_t dst_ld, size_t rows, size_t cols) {
  constexpr size_t kTile = 8;
  for (size_t r0 = 0; r0 < rows; r0 += kTile) {
    const size_t r1 = std::min(rows, r0 + kTile);
    for (size_t c0 = 0; c0 < cols; c0 += kTile) {
      const size_t c1 = std::min(cols, c0 + kTile);
      for (size_t r = r0; r < r1; ++r)
        for (size_t c = c0; c < c1; ++c) dst[c * dst_ld + r] = src[r * src_ld + c];
    }
  }
}
}  // namespace

void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                 size_t rows, size_t cols) {
  switch (elem_size) {
    case 1: transpose_tiled(static_cast<const uint8_t*>(src), src_ld, static_cast<uint8_t*>(dst), dst_ld, rows, cols); break;
    case 2: transpose_tiled(static_cast<const uint16_t*>(src), src_ld, static_cast<uint16_t*>(dst), dst_ld, rows, cols); break;
    case 4: transpose_tiled(static_cast<const uint32_t*>(src), src_ld, static_cast<uint32_t*>(dst), dst_ld, rows, cols); break;
    case 8: transpose_tiled(static_cast<const uint64_t*>(src), src_ld, static_cast<uint64_t*>(dst), dst_ld, rows, cols); break;
    default: break;
  }
}

}  // namespace ofg::kernels::scalar
