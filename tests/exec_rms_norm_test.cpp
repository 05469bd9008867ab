// RMSNormalization (opset 23), the op the RMSNorm fusion emits, on the LLaMA-1024 shapes and odd
// ones: y = x / sqrt(mean(x^2) + eps) * scale evaluated in double here, and the same output bit for
// bit on 1, 2 and 3 threads with the parallel floors lowered (the op does not split its rows: on a
// 2-core machine splitting the 512K values of a 512-token prefill was 1.24x slower, so a future
// split must keep this).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "kernels/parallel.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;
using ofg::test::tensor_f;

namespace {

void check(const Shape& xs, int64_t axis, uint32_t seed) {
  const int64_t r = static_cast<int64_t>(xs.size()), a = axis < 0 ? axis + r : axis;
  int64_t rows = 1, D = 1;
  for (int64_t i = 0; i < r; ++i) (i < a ? rows : D) *= xs[static_cast<size_t>(i)];
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<float> x(static_cast<size_t>(rows * D)), g(static_cast<size_t>(D));
  for (float& v : x) v = u(rng);
  for (float& v : g) v = u(rng);
  const Shape gs(xs.begin() + a, xs.end());
  const float eps = 1e-6f;

  std::vector<float> first;
  for (unsigned threads : {1u, 2u, 3u}) {
    auto m = new_model(23);
    GraphBuilder b(*m);
    Value* in_x = b.input("x", kFloat, std::vector<DimSpec>(xs.begin(), xs.end()));
    Value* in_g = b.input("g", kFloat, std::vector<DimSpec>(gs.begin(), gs.end()));
    b.output(b.node("RMSNormalization", {in_x, in_g}, 1, {b.i("axis", axis), b.f("epsilon", eps)})->outputs[0]);
    kernels::ThreadsScope scope(threads);
    kernels::ParallelFloorsScope floors(64, 64);  // what would split, splits these small inputs too
    Interpreter in(*m);
    const auto got = in.run({{"x", tensor_f(xs, x)}, {"g", tensor_f(gs, g)}});
    const RTensor& y = got[0].t;
    ASSERT_EQ(y.shape, xs);
    double worst = 0;
    for (int64_t row = 0; row < rows; ++row) {
      double ss = 0;
      for (int64_t d = 0; d < D; ++d) ss += double(x[static_cast<size_t>(row * D + d)]) * x[static_cast<size_t>(row * D + d)];
      const double inv = 1.0 / std::sqrt(ss / D + eps);
      for (int64_t d = 0; d < D; ++d) {
        const size_t i = static_cast<size_t>(row * D + d);
        const double want = x[i] * inv * g[static_cast<size_t>(d)];
        worst = std::max(worst, std::fabs(y.data<float>()[i] - want) / std::max(1.0, std::fabs(want)));
      }
    }
    EXPECT_LT(worst, 1e-5) << threads << " threads";
    std::vector<float> v(y.data<float>(), y.data<float>() + y.numel());
    if (threads == 1) first = v;
    else EXPECT_EQ(v, first) << threads << " threads differ from one";
  }
}

}  // namespace

TEST(ExecRmsNorm, LlamaPrefill) { check({1, 32, 1024}, -1, 1); }
TEST(ExecRmsNorm, DecodeOneRow) { check({1, 1, 1024}, -1, 2); }
TEST(ExecRmsNorm, OddRowsOverTwoAxes) { check({3, 7, 5, 13}, 2, 3); }
