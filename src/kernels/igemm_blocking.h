// The blocking loop shared by the SIMD integer GEMMs (AVX2 int16, VNNI, NEON): all of A packed
// once (row blocks per k block), column blocks of B packed per k block, a register tile over each
// panel pair.
// The ISA supplies the packers and the tile; packed panels hold k rounded up to the ISA's k group
// (pairs for vpmaddwd, quads for vpdpbusd) at elem_bytes per element. Internal linkage: the
// including files are compiled for different ISA extensions and must not share instantiations.
#pragma once

#include "kernels/internal.h"

#include <algorithm>

namespace ofg::kernels {
namespace {

struct IgemmBlocking {
  size_t mr, nr, kc, mc, nc;  // tile, then the k / row / column blocks (multiples of the tile)
  size_t k_group, elem_bytes;
  size_t padded(size_t k) const { return (k + k_group - 1) / k_group * k_group; }
};

// Where the B panels of one (k block, column block) lie: the panel of the tile at column jb of
// the block (a multiple of nr) starts at base + jb / nr * panel_bytes.
struct PanelBlock {
  const uint8_t* base;
  size_t panel_bytes;
};

// The scratch area (this thread's area 3) for one packed (k block, column block) of B.
inline uint8_t* b_block_scratch(const IgemmBlocking& b, size_t N, size_t K) {
  const size_t nc_max = std::min(b.nc, (N + b.nr - 1) / b.nr * b.nr);
  const size_t bytes = nc_max * b.padded(std::min(b.kc, K)) * b.elem_bytes;
  return reinterpret_cast<uint8_t*>(detail::scratch(3, (bytes + sizeof(float) - 1) / sizeof(float)));
}

// b_block(p0, kc, j0, nc) -> PanelBlock (packing that block, or finding it packed beforehand),
// pack_a(i0, mc, p0, kc, dst), tile(kpad, a_panel, b_panel, c, mr, nr, first) and
// end_columns(j0, nc), called after the last k block of a column block (for corrections that
// need every k).
template <class BBlock, class PackA, class Tile, class EndColumns>
void igemm_blocked(size_t M, size_t N, size_t K, int32_t* C, size_t ldc, const IgemmBlocking& b, BBlock&& b_block,
                   PackA&& pack_a, Tile&& tile, EndColumns&& end_columns) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (size_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0);
    return;
  }
  auto padded = [&](size_t k) { return b.padded(k); };
  const size_t m_pad = (M + b.mr - 1) / b.mr * b.mr;
  // A is packed once, every (k block, row block), and reused by all column blocks; the k block
  // starting at p0 begins at (p0 / kc) * m_pad * kc elements (only the last block is shorter).
  const size_t a_bytes = m_pad * ((K - 1) / b.kc * b.kc + padded(K - (K - 1) / b.kc * b.kc)) * b.elem_bytes;
  // The scratch areas count floats.
  auto* pa = reinterpret_cast<uint8_t*>(detail::scratch(2, (a_bytes + sizeof(float) - 1) / sizeof(float)));
  auto a_block = [&](size_t p0, size_t i0) {
    return pa + ((p0 / b.kc) * m_pad * b.kc + i0 * padded(std::min(b.kc, K - p0))) * b.elem_bytes;
  };
  for (size_t p0 = 0; p0 < K; p0 += b.kc)
    for (size_t i0 = 0; i0 < M; i0 += b.mc) pack_a(i0, std::min(b.mc, M - i0), p0, std::min(b.kc, K - p0), a_block(p0, i0));
  for (size_t j0 = 0; j0 < N; j0 += b.nc) {
    const size_t nc = std::min(b.nc, N - j0);
    for (size_t p0 = 0; p0 < K; p0 += b.kc) {
      const size_t kc = std::min(b.kc, K - p0), kpad = padded(kc), step = kpad * b.elem_bytes;
      const PanelBlock pb = b_block(p0, kc, j0, nc);
      for (size_t i0 = 0; i0 < M; i0 += b.mc) {
        const size_t mc = std::min(b.mc, M - i0);
        const uint8_t* pa_blk = a_block(p0, i0);
        for (size_t jb = 0; jb < nc; jb += b.nr)
          for (size_t ib = 0; ib < mc; ib += b.mr)
            tile(kpad, pa_blk + ib * step, pb.base + jb / b.nr * pb.panel_bytes, C + (i0 + ib) * ldc + j0 + jb,
                 std::min(b.mr, mc - ib), std::min(b.nr, nc - jb), p0 == 0);
      }
    }
    end_columns(j0, nc);
  }
}

// igemm_blocked for ISAs whose packers need only the operands:
// pack_b(B, ldb, b_signed, zb, p0, kc, j0, nc, dst), pack_a(A, lda, a_signed, za, i0, mc, p0, kc, dst)
// and tile(kpad, a_panel, b_panel, c, ldc, mr, nr, first).
template <class PackB, class PackA, class Tile>
void igemm_packed(const IgemmBlocking& b, size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed,
                  const int32_t* za, const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C,
                  size_t ldc, PackB pack_b, PackA pack_a, Tile tile) {
  uint8_t* pb = b_block_scratch(b, N, K);
  igemm_blocked(
      M, N, K, C, ldc, b,
      [&](size_t p0, size_t kc, size_t j0, size_t nc) {
        pack_b(B, ldb, b_signed, zb, p0, kc, j0, nc, pb);
        return PanelBlock{pb, b.padded(kc) * b.elem_bytes * b.nr};
      },
      [&](size_t i0, size_t mc, size_t p0, size_t kc, uint8_t* d) { pack_a(A, lda, a_signed, za, i0, mc, p0, kc, d); },
      [&](size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t mr, size_t nr, bool first) {
        tile(kpad, pa, pb, c, ldc, mr, nr, first);
      },
      [](size_t, size_t) {});
}

}  // namespace
}  // namespace ofg::kernels
