// How one GEMM's output is split between threads (simd/gemm_blocked.h, gemm_parallel): plain
// arithmetic, kept out of the templates so every ISA and driver shares one copy.
#pragma once

#include <cstddef>

namespace ofg::kernels {

struct GemmSplit {
  size_t parts = 1;  // 1: the whole product on the calling thread
  bool cols = false;  // split the columns (else the rows)
  size_t tiles = 0, M = 0, N = 0, MR = 0, NR = 0;

  // Rows [i0, i1) and columns [j0, j1) of part t: whole register tiles (multiples of MR and NR),
  // the last part up to M or N.
  void part(size_t t, size_t& i0, size_t& i1, size_t& j0, size_t& j1) const;
};

// Which operand comes packed already (weights kept packed by the interpreter): a part packs only
// the other one, so the split goes along the prepacked operand's dimension and nothing is packed
// twice.
enum class Prepacked { None, A, B };

// Below gemm_parallel_macs() multiply-adds (kernels/parallel.h), or with one thread, one part. Else the rows are split when
// B is prepacked (its columns when a row of B holds at least 8 bytes per row of A, N b_bytes >= 8 M:
// each thread then streams half of the weight and packs all of A's few rows), the columns when A is (when there are enough tiles for threads()); with neither,
// the columns when the product is at least as wide as tall (each part packs its own B panels and
// all of A again), else the rows. b_bytes is the size of one element of packed B (4 for float:
// columns from twice as wide as tall; 1 for int8, whose weight is a quarter of the bytes to stream).
GemmSplit gemm_split(size_t M, size_t N, size_t K, size_t MR, size_t NR, Prepacked prepacked,
                     size_t b_bytes = sizeof(float));

}  // namespace ofg::kernels
