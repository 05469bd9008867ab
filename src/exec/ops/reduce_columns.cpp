#include "exec/ops/reduce_columns.h"

#include <algorithm>
#include <cmath>

#include "exec/ops/fusable.h"
#include "kernels/parallel.h"

namespace ofg::exec {
namespace {

// Columns per task: 512 doubles of accumulators (4 KB) stay in L1 while the len rows stream by.
constexpr int64_t kColumnBlock = 512;

template <ColumnCombine K>
void combine_block(const float* x, int64_t len, int64_t inner, int64_t n, double* acc) {
  for (int64_t r = 0; r < len; ++r) {
    const float* p = x + r * inner;
    for (int64_t j = 0; j < n; ++j) {
      const double v = static_cast<double>(p[j]);
      double& a = acc[j];
      switch (K) {
        case ColumnCombine::Add: a += v; break;
        case ColumnCombine::AddSquare: a += v * v; break;
        case ColumnCombine::AddAbs: a += std::fabs(v); break;
        case ColumnCombine::Mul: a *= v; break;
        // The general walk's expressions (reduce.cpp), so NaN and signed zeros come out the same.
        case ColumnCombine::Max: a = (std::isnan(v) || std::isnan(a)) ? NAN : std::max(a, v); break;
        case ColumnCombine::Min: a = (std::isnan(v) || std::isnan(a)) ? NAN : std::min(a, v); break;
      }
    }
  }
}

template <ColumnCombine K>
void columns(const float* x, int64_t outer, int64_t len, int64_t inner, double* acc) {
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t block = std::min(inner, kColumnBlock);
  const size_t tasks = static_cast<size_t>(outer * blocks);
  const size_t work = static_cast<size_t>(len * block);
  kernels::parallel_ranges(tasks, 1, kernels::plane_grain(work), [&](size_t lo, size_t hi) {
    for (size_t t = lo; t < hi; ++t) {
      const int64_t o = static_cast<int64_t>(t) / blocks, j0 = static_cast<int64_t>(t) % blocks * kColumnBlock;
      const int64_t n = std::min(kColumnBlock, inner - j0);
      combine_block<K>(x + o * len * inner + j0, len, inner, n, acc + o * inner + j0);
    }
  });
}

}  // namespace

void reduce_columns_f64(ColumnCombine op, const float* x, int64_t outer, int64_t len, int64_t inner, double* acc) {
  if (outer <= 0 || inner <= 0) return;
  switch (op) {
    case ColumnCombine::Add: columns<ColumnCombine::Add>(x, outer, len, inner, acc); break;
    case ColumnCombine::AddSquare: columns<ColumnCombine::AddSquare>(x, outer, len, inner, acc); break;
    case ColumnCombine::AddAbs: columns<ColumnCombine::AddAbs>(x, outer, len, inner, acc); break;
    case ColumnCombine::Mul: columns<ColumnCombine::Mul>(x, outer, len, inner, acc); break;
    case ColumnCombine::Max: columns<ColumnCombine::Max>(x, outer, len, inner, acc); break;
    case ColumnCombine::Min: columns<ColumnCombine::Min>(x, outer, len, inner, acc); break;
  }
}

// Each row's sum runs in element order, as one double accumulator per row; several rows at once
// interleave their independent chains of additions (one chain waits on the adder's latency), so
// every row's result keeps its bits.
template <bool kSquares>
void row_sums(const float* x, int64_t rows, int64_t count, double* acc) {
  auto term = [](float f) {
    const double v = static_cast<double>(f);
    return kSquares ? v * v : v;
  };
  // Eight chains in flight (two adders of four cycles' latency), written out: as an array the
  // compiler's vectorizer turns the eight rows' loads into gathers.
  int64_t o = 0;
  for (; o + 8 <= rows; o += 8) {
    const float* p = x + o * count;
    const int64_t c = count;
    double a0 = acc[o], a1 = acc[o + 1], a2 = acc[o + 2], a3 = acc[o + 3];
    double a4 = acc[o + 4], a5 = acc[o + 5], a6 = acc[o + 6], a7 = acc[o + 7];
    for (int64_t j = 0; j < count; ++j) {
      a0 += term(p[j]);
      a1 += term(p[c + j]);
      a2 += term(p[2 * c + j]);
      a3 += term(p[3 * c + j]);
      a4 += term(p[4 * c + j]);
      a5 += term(p[5 * c + j]);
      a6 += term(p[6 * c + j]);
      a7 += term(p[7 * c + j]);
    }
    acc[o] = a0, acc[o + 1] = a1, acc[o + 2] = a2, acc[o + 3] = a3;
    acc[o + 4] = a4, acc[o + 5] = a5, acc[o + 6] = a6, acc[o + 7] = a7;
  }
  for (; o < rows; ++o) {
    const float* p = x + o * count;
    double a = acc[o];
    for (int64_t j = 0; j < count; ++j) a += term(p[j]);
    acc[o] = a;
  }
}

void row_sums_f64(const float* x, int64_t rows, int64_t count, bool squares, double* acc) {
  if (squares) row_sums<true>(x, rows, count, acc);
  else row_sums<false>(x, rows, count, acc);
}

void row_sums_f64_parallel(const float* x, int64_t rows, int64_t count, bool squares, double* acc) {
  if (rows <= 0) return;
  kernels::parallel_ranges(static_cast<size_t>(rows), 1, kernels::plane_grain(static_cast<size_t>(count)),
                           [&](size_t lo, size_t hi) {
                             const auto b = static_cast<int64_t>(lo);
                             row_sums_f64(x + b * count, static_cast<int64_t>(hi) - b, count, squares, acc + b);
                           });
}

}  // namespace ofg::exec
