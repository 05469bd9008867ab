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

#include "kernels/gemm_split.h"
#include "kernels/igemm_blocking.h"
#include "kernels/internal.h"
#include "kernels/parallel.h"

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

// The product of A (M x K) with B's panels: b_block(p0, kc, j0, nc) -> PanelBlock gives the
// panels of a block and colsums(j0) the column sums of B' from column j0 on (complete by the time
// the block's last k block is done); tile and correct as igemm_dot's.
template <class BBlock, class ColSums, class Tile, class Correct>
void igemm_dot_run(const IgemmBlocking& bl, DotOperand oa, DotOperand ob, size_t M, size_t N, size_t K,
                   const uint8_t* A, size_t lda, const int32_t* za, const int32_t* zb, int32_t* C, size_t ldc,
                   BBlock&& b_block, ColSums&& colsums, Tile&& tile, Correct&& correct) {
  // u[m] = K za'[m] - rowsum(A')[m], so that C += u[m] zb'[n] - za'[m] colsum(B')[n].
  std::vector<uint32_t> u(M), zam(M), zbn(N);
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
      M, N, K, C, ldc, bl, b_block,
      [&](size_t i0, size_t mc, size_t p0, size_t kc, uint8_t* d) { pack_a_quads(A, lda, oa, bl.mr, i0, mc, p0, kc, d); },
      [&](size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t mr, size_t nr, bool first) {
        tile(kpad, pa, pb, c, ldc, mr, nr, first);
      },
      [&](size_t j0, size_t nc) {
        const int32_t* cs = colsums(j0);
        for (size_t i = 0; i < M; ++i)
          correct(reinterpret_cast<uint32_t*>(C + i * ldc + j0), u[i], zam[i], zbn.data() + j0, cs, nc);
      });
}

// A flavour (one per ISA, in that ISA's namespace) has kBlocking, kAReadSigned (A read as int8;
// B always is) and the static functions pack_quads(src, ldb, ob, nq, d, cs) as pack_b_quads's
// (with the operand), tile(kpad, a_panel, b_panel, c, ldc, mr, nr, first) as igemm_packed's and
// correct(c, u, zam, zbn, colsum, nc), add_corrections from 0 vectorised as the ISA can. The
// functions below are templates on it, so that every instantiation's name carries the ISA's
// namespace (tests/size/isa_confinement.sh tells the kernels apart by name).

// The whole GEMM.
template <class Flavour>
void igemm_dot(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
               const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  const IgemmBlocking& bl = Flavour::kBlocking;
  const DotOperand oa = dot_operand(a_signed, Flavour::kAReadSigned), ob = dot_operand(b_signed, true);
  std::vector<int32_t> colsum(N + bl.nr);  // of the current column block
  // pack_b_quads's copy of a panel's edge; not value-initialised: every byte used is written first.
  std::unique_ptr<uint8_t[]> edge(new uint8_t[std::min(bl.kc, (K + 3) / 4 * 4) * bl.nr]);
  uint8_t* pb = M && N && K ? b_block_scratch(bl, N, K) : nullptr;
  igemm_dot_run(
      bl, oa, ob, M, N, K, A, lda, za, zb, C, ldc,
      [&](size_t p0, size_t kc, size_t j0, size_t nc) {
        if (p0 == 0) std::fill(colsum.begin(), colsum.end(), 0);
        pack_b_quads(B, ldb, ob, bl.nr, p0, kc, j0, nc, pb, colsum.data(), edge.get(),
                     [&](const uint8_t* src, size_t ld, size_t nq, uint8_t* dq, int32_t* cs) {
                       Flavour::pack_quads(src, ld, ob, nq, dq, cs);
                     });
        return PanelBlock{pb, bl.padded(kc) * bl.nr};
      },
      [&](size_t) { return static_cast<const int32_t*>(colsum.data()); }, Flavour::tile, Flavour::correct);
}

// B packed once for many products (constant weights; igemm_packed_b_size and the entries after
// it in kernel_list.h): the column sums of B' for N rounded up to nr columns (int32), then the
// panels of nr columns over all of K (rounded up to quads), panel t at t * 4 kq nr bytes after
// the sums. Every k block of the blocked loop is a slice of a panel, so nothing is packed per
// product. 64-byte multiples throughout when nr is a multiple of 16.
struct DotPackedB {
  size_t n_pad, kq;
  DotPackedB(const IgemmBlocking& bl, size_t K, size_t N) : n_pad((N + bl.nr - 1) / bl.nr * bl.nr), kq((K + 3) / 4) {}
  size_t sums_bytes() const { return n_pad * sizeof(int32_t); }
  size_t bytes() const { return sums_bytes() + n_pad * kq * 4; }
};

inline size_t igemm_dot_packed_size(const IgemmBlocking& bl, size_t K, size_t N) {
  return N && K ? DotPackedB(bl, K, N).bytes() : 0;
}

template <class Flavour>
void igemm_dot_pack_b(size_t K, size_t N, const uint8_t* B, size_t ldb, bool b_signed, uint8_t* packed) {
  const IgemmBlocking& bl = Flavour::kBlocking;
  if (!N || !K) return;
  const DotPackedB layout(bl, K, N);
  const DotOperand ob = dot_operand(b_signed, true);
  auto* colsum = reinterpret_cast<int32_t*>(packed);
  std::fill(colsum, colsum + layout.n_pad, 0);
  std::unique_ptr<uint8_t[]> edge(new uint8_t[layout.kq * 4 * bl.nr]);
  pack_b_quads(B, ldb, ob, bl.nr, 0, K, 0, N, packed + layout.sums_bytes(), colsum, edge.get(),
               [&](const uint8_t* src, size_t ld, size_t nq, uint8_t* dq, int32_t* cs) {
                 Flavour::pack_quads(src, ld, ob, nq, dq, cs);
               });
}

// igemm_dot with B from igemm_dot_pack_b, on the machine's threads: each part (gemm_split's,
// along the prepacked operand) packs only its rows of A.
template <class Flavour>
void igemm_dot_prepacked(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,
                         const uint8_t* packed, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {
  const IgemmBlocking& bl = Flavour::kBlocking;
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (size_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0);
    return;
  }
  const DotOperand oa = dot_operand(a_signed, Flavour::kAReadSigned), ob = dot_operand(b_signed, true);
  const DotPackedB layout(bl, K, N);
  const auto* colsum = reinterpret_cast<const int32_t*>(packed);
  const uint8_t* panels = packed + layout.sums_bytes();
  const size_t panel_bytes = layout.kq * 4 * bl.nr;
  auto part = [&](size_t i0, size_t i1, size_t j0, size_t j1) {
    // j0 is a multiple of nr (gemm_split's parts are whole tiles): its panels start at panel j0 / nr.
    const uint8_t* part_panels = panels + j0 / bl.nr * panel_bytes;
    igemm_dot_run(
        bl, oa, ob, i1 - i0, j1 - j0, K, A + i0 * lda, lda, za + i0, zb + j0, C + i0 * ldc + j0, ldc,
        [&](size_t p0, size_t, size_t jb0, size_t) {
          return PanelBlock{part_panels + jb0 / bl.nr * panel_bytes + p0 * bl.nr, panel_bytes};
        },
        [&](size_t jb0) { return colsum + j0 + jb0; }, Flavour::tile, Flavour::correct);
  };
  const GemmSplit split = gemm_split(M, N, K, bl.mr, bl.nr, Prepacked::B, 1);
  if (split.parts <= 1) {
    part(0, M, 0, N);
    return;
  }
  parallel_for(split.parts, [&](size_t t) {
    size_t i0, i1, j0, j1;
    split.part(t, i0, i1, j0, j1);
    part(i0, i1, j0, j1);
  });
}

}  // namespace
}  // namespace ofg::kernels

// The four kernel-table entries of one dot-product flavour, defined in the including file's
// namespace: name (igemm), name##_packed_b_size, name##_pack_b and name##_prepacked_b.
#define OFG_DOT_IGEMM_ENTRIES(name, Flavour)                                                                   \
  void name(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed, const int32_t* za,       \
            const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb, int32_t* C, size_t ldc) {          \
    igemm_dot<Flavour>(M, N, K, A, lda, a_signed, za, B, ldb, b_signed, zb, C, ldc);                           \
  }                                                                                                             \
  size_t name##_packed_b_size(size_t K, size_t N) { return igemm_dot_packed_size(Flavour::kBlocking, K, N); }  \
  void name##_pack_b(size_t K, size_t N, const uint8_t* B, size_t ldb, bool b_signed, uint8_t* packed) {       \
    igemm_dot_pack_b<Flavour>(K, N, B, ldb, b_signed, packed);                                                 \
  }                                                                                                             \
  void name##_prepacked_b(size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed,            \
                          const int32_t* za, const uint8_t* packed, bool b_signed, const int32_t* zb, int32_t* C, \
                          size_t ldc) {                                                                         \
    igemm_dot_prepacked<Flavour>(M, N, K, A, lda, a_signed, za, packed, b_signed, zb, C, ldc);                  \
  }
