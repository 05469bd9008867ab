#include "kernels/gemm_split.h"

#include <algorithm>

#include "kernels/parallel.h"

namespace ofg::kernels {

GemmSplit gemm_split(size_t M, size_t N, size_t K, size_t MR, size_t NR, Prepacked prepacked, size_t b_bytes) {
  GemmSplit s;
  s.M = M;
  s.N = N;
  s.MR = MR;
  s.NR = NR;
  const size_t width = threads(), tiles_m = (M + MR - 1) / MR, tiles_n = (N + NR - 1) / NR;
  if (width <= 1 || M * N * K < gemm_parallel_macs()) return s;
  // With B prepacked, a row split makes every thread stream all of B: for a wide product of few
  // rows (a decoder's projections over a short prompt: 32 x 1024 times 1024 x 5632) that traffic
  // is the cost, and halving it per thread is worth packing A's few rows once per part. For int8
  // weights a column split stopped paying below that ratio in bytes: 128 x 768 times 768 x 768
  // took 0.16 ms on two threads split by columns, 0.125 ms by rows (QLinearMatMul, AVX512-VNNI).
  if (prepacked == Prepacked::B && tiles_m >= width) s.cols = tiles_n >= width && N * b_bytes >= 8 * M;
  else if (prepacked == Prepacked::A && tiles_n >= width) s.cols = true;
  else s.cols = tiles_n >= width ? (N >= M || tiles_m < width) : tiles_n >= tiles_m;
  s.tiles = s.cols ? tiles_n : tiles_m;
  s.parts = std::min<size_t>(width, s.tiles);
  return s;
}

void GemmSplit::part(size_t t, size_t& i0, size_t& i1, size_t& j0, size_t& j1) const {
  i0 = j0 = 0;
  i1 = M;
  j1 = N;
  const size_t lo = tiles * t / parts, hi = tiles * (t + 1) / parts;
  if (cols) {
    j0 = lo * NR;
    j1 = std::min(N, hi * NR);
  } else {
    i0 = lo * MR;
    i1 = std::min(M, hi * MR);
  }
}

}  // namespace ofg::kernels
