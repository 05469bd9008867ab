// The float32 loops of the Reduce* ops (exec/ops/reduce.cpp): over an axis block that is not last,
// and the row sums over trailing axes (row_sums_f64, declared in exec/ops/fusable.h),
// kept in a file of their own so that they are compiled for speed while reduce.cpp is compiled for
// size.
#pragma once
#include <cstdint>

namespace ofg::exec {

// How each input element is combined into its double accumulator: a += x, a += x * x, a +=
// |x|, a *= x, and max / min with NaN propagation (any NaN makes the result NaN).
enum class ColumnCombine { Add, AddSquare, AddAbs, Mul, Max, Min };

// x viewed as [outer, len, inner] float, acc as [outer, inner] double: every acc[o][j] is
// combined with x[o][0][j], x[o][1][j], ... in that order, which is the order of the interpreter's
// general element walk, so the results are its bits. Whole rows of `inner` are combined at a time
// (contiguous loads, no per-element index arithmetic), and the outputs are split between the
// run's threads (each output still sees its elements in order).
void reduce_columns_f64(ColumnCombine op, const float* x, int64_t outer, int64_t len, int64_t inner, double* acc);

// The row sums of row_sums_f64 (exec/ops/fusable.h), the rows split between the run's threads.
void row_sums_f64_parallel(const float* x, int64_t rows, int64_t count, bool squares, double* acc);

}  // namespace ofg::exec
