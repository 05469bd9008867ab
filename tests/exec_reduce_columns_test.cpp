// The Reduce* ops on float input over axes that are not last take a column path (whole rows of
// the inner axes combined at a time, split between threads: exec/ops/reduce_columns.cpp). Checked
// against the scalar reference kernel (kernels::scalar::reduce, double accumulation rounded once)
// bit for bit, on shapes whose inner size is no multiple of a vector width or of the column block,
// with the reduced block first, in the middle and last, keepdims on and off, a zero-length reduced
// axis, and on 1, 2 and 3 threads with the split floors lowered so that even these shapes split.
// Reductions over the last axes (the row sums, split by rows) are checked the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/interp.h"
#include "ir/builder.h"
#include "kernels/internal.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "support/exec_support.h"
#include "support/model_test.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

struct ShapeCase {
  Shape shape;
  std::vector<int64_t> axes;  // adjacent, ascending
  bool keep;
};

struct ReduceCase {
  const char* op;
  kernels::ReduceOp ref;
};

// The reference on x viewed as [outer, len, inner] around the reduced block.
std::vector<float> oracle(kernels::ReduceOp op, const std::vector<float>& x, const ShapeCase& c) {
  size_t outer = 1, len = 1, inner = 1;
  for (size_t i = 0; i < c.shape.size(); ++i) {
    const auto d = static_cast<size_t>(c.shape[i]);
    if (static_cast<int64_t>(i) < c.axes.front()) outer *= d;
    else if (static_cast<int64_t>(i) <= c.axes.back()) len *= d;
    else inner *= d;
  }
  std::vector<float> y(outer * inner);
  kernels::scalar::reduce(op, x.data(), y.data(), outer, len, inner);
  return y;
}

bool same(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST(ExecReduceColumns, AdjacentAxesMatchTheScalarReferenceOnAnyThreadCount) {
  const std::vector<ReduceCase> ops = {{"ReduceSum", kernels::ReduceOp::Sum},      {"ReduceMean", kernels::ReduceOp::Mean},
                                   {"ReduceMax", kernels::ReduceOp::Max},      {"ReduceMin", kernels::ReduceOp::Min},
                                   {"ReduceProd", kernels::ReduceOp::Prod},    {"ReduceL1", kernels::ReduceOp::L1},
                                   {"ReduceL2", kernels::ReduceOp::L2},        {"ReduceSumSquare", kernels::ReduceOp::SumSquare},
                                   {"ReduceLogSum", kernels::ReduceOp::LogSum}};
  const std::vector<ShapeCase> cases = {
      {{5, 3, 7}, {0}, true},           // first axis, inner 21 (no vector multiple)
      {{3, 7, 13}, {1}, false},         // middle axis
      {{2, 3, 4, 5}, {1, 2}, true},     // two adjacent middle axes
      {{1, 9, 1037}, {1}, false},       // inner above the 512-column block, odd
      {{4, 6, 1, 3}, {0, 1}, false},    // leading block with a unit axis after it
      {{6, 1, 5}, {1}, true},           // a unit reduced axis: a copy
      {{3, 11, 1}, {1}, true},          // last non-unit axis, inner 1 (Max/Min/L1/Prod come here)
      {{2, 0, 5}, {1}, true},           // an empty reduced axis: every output is the start value
      {{5, 3, 37}, {2}, false},         // the last axis: the row sums (sum-like ops), split by rows
      {{9, 2, 19}, {1, 2}, true},       // the two last axes, 9 rows (one group of 8 and one more)
  };
  for (const ShapeCase& c : cases) {
    int64_t numel = 1;
    for (int64_t d : c.shape) numel *= d;
    std::vector<float> xv(static_cast<size_t>(numel));
    // Positive values (ReduceLogSum) of mixed magnitude, so rounding order would show; near 1 so
    // products stay finite.
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.75f + static_cast<float>((i * 2654435761u) % 1000) / 2000.f;
    if (numel > 7) xv[7] = NAN;  // NaN propagates through max/min and sums alike
    for (const ReduceCase& o : ops) {
      auto m = new_model(18);
      GraphBuilder b(*m);
      Value* x = b.input("x", kFloat, std::vector<DimSpec>(c.shape.begin(), c.shape.end()));
      Value* axes = b.constant_i64("axes", {static_cast<int64_t>(c.axes.size())}, c.axes);
      b.output(b.op(o.op, {x, axes}, {b.i("keepdims", c.keep ? 1 : 0)}));
      const std::vector<float> want = oracle(o.ref, xv, c);
      for (unsigned threads : {1u, 2u, 3u}) {
        kernels::ThreadsScope scope(threads);
        kernels::ParallelFloorsScope floors(1, 1);
        Interpreter in(*m);
        auto out = in.run({{"x", test::tensor_f(c.shape, xv)}});
        Shape want_shape;
        for (size_t i = 0; i < c.shape.size(); ++i) {
          const bool red = static_cast<int64_t>(i) >= c.axes.front() && static_cast<int64_t>(i) <= c.axes.back();
          if (!red) want_shape.push_back(c.shape[i]);
          else if (c.keep) want_shape.push_back(1);
        }
        ASSERT_EQ(out[0].t.shape, want_shape) << o.op;
        const float* y = out[0].t.data<float>();
        ASSERT_EQ(static_cast<size_t>(out[0].t.numel()), want.size());
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_TRUE(same(y[i], want[i])) << o.op << " shape " << shape_str(c.shape) << " axis " << c.axes.front()
                                           << " threads " << threads << " at " << i << ": " << y[i] << " vs " << want[i];
      }
    }
  }
}
