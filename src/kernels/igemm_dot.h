// The integer GEMM on 4-byte dot-product instructions, shared by x86 VNNI (vpdpbusd: u8 x s8) and
// ARM SDOT (s8 x s8): the operands are packed in quads of k, the instruction sums four products
// into each int32 lane (wrapping, no intermediate saturation), and the zero points are applied
// afterwards through row and column sums.
//
// An operand whose signedness differs from what the instruction reads is flipped (xor 0x80),
// which shifts a value and its zero point by the same 128: for uint8 read as int8,
// (a ^ 0x80) - (za - 128) == a - za; for int8 read as uint8, (a ^ 0x80) - (za + 128) == a - za.
// With a', b', za', zb' the packed values and shifted zero points,
//   sum (a' - za')(b' - zb') = sum a' b' - zb' sum_k a' - za' sum_k b' + K za' zb',
// the first term by the instruction, the row sums of A' up front, the column sums of B' while
// packing, the rest once per column block; all modulo 2^32, so the result is exact whenever it
// fits. Internal linkage: the including files are compiled for different ISA extensions.
#pragma once

#include "kernels/igemm_blocking.h"
#include "kernels/internal.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace ofg::kernels {
namespace {

// How one operand reaches the instruction's byte type.
struct DotOperand {
  bool flip;       // xor 0x80 on every byte
  bool as_signed;  // the instruction reads the packed bytes as int8
  uint8_t byte(uint8_t v) const { return flip ? static_cast<uint8_t>(v ^ 0x80) : v; }
  int32_t value(uint8_t v) const { return int8_value(byte(v), as_signed); }
  // Added to the zero point: the change of every value by the flip.
  int32_t shift() const { return flip ? (as_signed ? -128 : 128) : 0; }
};
inline DotOperand dot_operand(bool is_signed, bool read_signed) { return {is_signed != read_signed, read_signed}; }

// The sum of the n values of row a as the instruction reads them, modulo 2^32 (it runs over all
// of A on every call). Sixteen lane sums over blocks of 16, one loop per reading and no branch
// inside, so that the compiler vectorises it at -O2 (its cheap cost model wants fixed trip counts).
inline uint32_t row_sum(const uint8_t* a, size_t n, DotOperand oa) {
  const uint8_t f = oa.flip ? 0x80 : 0;
  uint32_t lane[16] = {};
  size_t p = 0;
  if (oa.as_signed) {
    for (; p + 16 <= n; p += 16)
      for (size_t u = 0; u < 16; ++u) lane[u] += static_cast<uint32_t>(static_cast<int8_t>(a[p + u] ^ f));
  } else {
    for (; p + 16 <= n; p += 16)
      for (size_t u = 0; u < 16; ++u) lane[u] += static_cast<uint32_t>(a[p + u] ^ f);
  }
  uint32_t s = 0;
  for (uint32_t v : lane) s += v;
  for (; p < n; ++p) s += static_cast<uint32_t>(oa.value(a[p]));
  return s;
}

// A rows [i0, i0 + mc), columns [p0, p0 + kc) in panels of mr rows: quad t of row r at
// panel[t * 4 mr + 4 r]; rows beyond mc and the bytes after kc in the last quad are 0 (not
// flipped: they must contribute nothing).
void pack_a_quads(const uint8_t* A, size_t lda, DotOperand oa, size_t mr_tile, size_t i0, size_t mc, size_t p0,
                  size_t kc, uint8_t* dst) {
  const size_t kq = (kc + 3) / 4, step = 4 * mr_tile;
  const uint32_t fm = oa.flip ? 0x80808080u : 0u;
  for (size_t ib = 0; ib < mc; ib += mr_tile) {
    const size_t mr = std::min(mr_tile, mc - ib);
    uint8_t* d = dst + ib * kq * 4;
    for (size_t r = 0; r < mr_tile; ++r) {
      if (r >= mr) {
        for (size_t t = 0; t < kq; ++t) std::memset(d + t * step + 4 * r, 0, 4);
        continue;
      }
      const uint8_t* src = A + (i0 + ib + r) * lda + p0;
      for (size_t t = 0; t < kc / 4; ++t) {
        uint32_t w;
        std::memcpy(&w, src + 4 * t, 4);
        w ^= fm;
        std::memcpy(d + t * step + 4 * r, &w, 4);
      }
      for (size_t k = kc / 4 * 4; k < 4 * kq; ++k) d[(k / 4) * step + 4 * r + k % 4] = k < kc ? oa.byte(src[k]) : 0;
    }
  }
}

// c[j] += u zbn[j] - zam colsum[j] for j in [j, nc): the scalar end of an ISA's correction loop.
inline void add_corrections(uint32_t* c, uint32_t u, uint32_t zam, const uint32_t* zbn, const int32_t* colsum, size_t j,
                            size_t nc) {
  for (; j < nc; ++j) c[j] += u * zbn[j] - zam * static_cast<uint32_t>(colsum[j]);
}

// B rows [p0, p0 + kc), columns [j0, j0 + nc) in panels of nr_tile columns (quad t of column c
// at panel[t * 4 nr_tile + 4 c]); colsum[c] (columns j0...) accumulates the packed values.
// pack_quads(src, ldb, nq, d, cs) packs the first nq quads of a full panel (src: its row p0,
// first column) and adds their column sums to cs. What it cannot read in place (the last quad
// when kc is not a multiple of 4, a panel narrower than nr_tile) is first copied into `edge`
// (4 kq nr_tile bytes) with the missing bytes set to what packs to 0 (0x80 when the operand is
// flipped), so that it adds nothing to the products or the sums; columns past nc are not stored.
template <class PackQuads>
void pack_b_quads(const uint8_t* B, size_t ldb, DotOperand ob, size_t nr_tile, size_t p0, size_t kc, size_t j0,
                  size_t nc, uint8_t* dst, int32_t* colsum, uint8_t* edge, PackQuads&& pack_quads) {
  const size_t kq = (kc + 3) / 4;
  const uint8_t zero = ob.flip ? 0x80 : 0;
  for (size_t jb = 0; jb < nc; jb += nr_tile) {
    const size_t nr = std::min(nr_tile, nc - jb);
    const uint8_t* src = B + p0 * ldb + j0 + jb;
    uint8_t* d = dst + jb * kq * 4;
    const size_t full = nr == nr_tile ? kc / 4 : 0;  // quads packed in place
    if (full) pack_quads(src, ldb, full, d, colsum + jb);
    if (full == kq) continue;
    for (size_t k = 4 * full; k < 4 * kq; ++k) {
      uint8_t* row = edge + (k - 4 * full) * nr_tile;
      if (k < kc) std::memcpy(row, src + k * ldb, nr);
      std::memset(row + (k < kc ? nr : 0), zero, k < kc ? nr_tile - nr : nr_tile);
    }
    pack_quads(edge, nr_tile, kq - full, d + full * 4 * nr_tile, colsum + jb);
  }
}

// The whole GEMM, with A read as int8 when a_read_signed (B always is). pack_quads(src, ldb, ob,
// nq, d, cs) as pack_b_quads's (with the operand); tile(kpad, a_panel, b_panel, c, ldc, mr, nr,
// first) as igemm_packed's; correct(c, u, zam, zbn, colsum, nc) does add_corrections from 0
// (vectorised as the ISA can).
template <class PackQuads, class Tile, class Correct>
void igemm_dot(const IgemmBlocking& bl, bool a_read_signed, size_t M, size_t N, size_t K, const uint8_t* A, size_t lda,
               bool a_signed, const int32_t* za, const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb,
               int32_t* C, size_t ldc, PackQuads&& pack_quads, Tile&& tile, Correct&& correct) {
  const DotOperand oa = dot_operand(a_signed, a_read_signed), ob = dot_operand(b_signed, true);
  // u[m] = K za'[m] - rowsum(A')[m], so that C += u[m] zb'[n] - za'[m] colsum(B')[n].
  std::vector<uint32_t> u(M), zam(M), zbn(N);
  std::vector<int32_t> colsum(N + bl.nr);
  // pack_b_quads's copy of a panel's edge; not value-initialised: every byte used is written first.
  std::unique_ptr<uint8_t[]> edge(new uint8_t[std::min(bl.kc, (K + 3) / 4 * 4) * bl.nr]);
  bool zbn_zero = true;
  for (size_t j = 0; j < N; ++j) {
    zbn[j] = static_cast<uint32_t>(zb[j] + ob.shift());
    zbn_zero = zbn_zero && zbn[j] == 0;
  }
  // u only ever multiplies zb': when every zb' is 0 (uint8 B with zero point 128, the usual
  // activations) the pass over all of A for its row sums is skipped.
  for (size_t i = 0; i < M; ++i) {
    zam[i] = static_cast<uint32_t>(za[i] + oa.shift());
    u[i] = zbn_zero ? 0 : static_cast<uint32_t>(K) * zam[i] - row_sum(A + i * lda, K, oa);
  }
  igemm_blocked(
      M, N, K, C, ldc, bl,
      [&](size_t p0, size_t kc, size_t j0, size_t nc, uint8_t* d) {
        if (p0 == 0) std::fill(colsum.begin(), colsum.end(), 0);
        pack_b_quads(B, ldb, ob, bl.nr, p0, kc, j0, nc, d, colsum.data(), edge.get(),
                     [&](const uint8_t* src, size_t ld, size_t nq, uint8_t* dq, int32_t* cs) {
                       pack_quads(src, ld, ob, nq, dq, cs);
                     });
      },
      [&](size_t i0, size_t mc, size_t p0, size_t kc, uint8_t* d) { pack_a_quads(A, lda, oa, bl.mr, i0, mc, p0, kc, d); },
      [&](size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t mr, size_t nr, bool first) {
        tile(kpad, pa, pb, c, ldc, mr, nr, first);
      },
      [&](size_t j0, size_t nc) {
        for (size_t i = 0; i < M; ++i)
          correct(reinterpret_cast<uint32_t*>(C + i * ldc + j0), u[i], zam[i], zbn.data() + j0, colsum.data(), nc);
      });
}

}  // namespace
}  // namespace ofg::kernels
