// RotaryEmbedding (opset 23) on float32 runs row by row (exec/ops/rotary_f32.cpp). This checks it
// against the spec's formula evaluated in double here, on the shapes of real decoders and odd
// ones: both layouts, rotate_half and interleaved, a partial rotary dimension (even and odd),
// position ids and per-position caches, and 1, 2 and 3 threads (bit-identical results). The
// generic walk of attention.cpp (float16 here) must agree with it too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "kernels/parallel.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

struct Case {
  int64_t B, H, S, D;
  bool four = true;         // (B, H, S, D), else (B, S, H*D) with num_heads
  bool interleaved = false;
  int64_t rot = 0;          // rotary_embedding_dim (0: D)
  bool ids = true;          // position ids into (positions, rot/2) caches, else (B, S, rot/2) caches
  int64_t positions = 64;   // cache rows with ids
};

struct RotaryRun {
  std::unique_ptr<Model> model;
  std::vector<std::pair<std::string, RValue>> feeds;
};

// The model and its feeds; `dtype` is the element type of the input and the caches.
RotaryRun make(const Case& k, const std::vector<float>& x, const std::vector<float>& cs, const std::vector<float>& sn,
         const std::vector<int64_t>& ids, int32_t dtype) {
  const int64_t half = (k.rot ? k.rot : k.D) / 2;
  const Shape xs = k.four ? Shape{k.B, k.H, k.S, k.D} : Shape{k.B, k.S, k.H * k.D};
  const Shape cache = k.ids ? Shape{k.positions, half} : Shape{k.B, k.S, half};
  RotaryRun r;
  r.model = new_model(23);
  GraphBuilder b(*r.model);
  auto dims = [](const Shape& s) { return std::vector<DimSpec>(s.begin(), s.end()); };
  std::vector<Value*> ins = {b.input("x", dtype, dims(xs)), b.input("cos", dtype, dims(cache)), b.input("sin", dtype, dims(cache))};
  if (k.ids) ins.push_back(b.input("pos", kInt64, {k.B, k.S}));
  std::vector<Attribute> attrs = {b.i("interleaved", k.interleaved ? 1 : 0)};
  if (k.rot) attrs.push_back(b.i("rotary_embedding_dim", k.rot));
  if (!k.four) attrs.push_back(b.i("num_heads", k.H));
  b.output(b.node("RotaryEmbedding", ins, 1, attrs)->outputs[0]);
  auto as = [&](const Shape& s, const std::vector<float>& v) {
    RValue f = test::tensor_f(s, v);
    if (dtype == kFloat) return f;
    return RValue::tensor(cast_tensor(f.t, dtype));
  };
  r.feeds = {{"x", as(xs, x)}, {"cos", as(cache, cs)}, {"sin", as(cache, sn)}};
  if (k.ids) r.feeds.push_back({"pos", test::i64_tensor({k.B, k.S}, ids)});
  return r;
}

void check(const Case& k, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t rot = k.rot ? k.rot : k.D, half = rot / 2;
  const int64_t rows = k.ids ? k.positions : k.B * k.S;
  const auto x = test::uniform_values(static_cast<size_t>(k.B * k.H * k.S * k.D), rng);
  const auto cs = test::uniform_values(static_cast<size_t>(rows * half), rng), sn = test::uniform_values(static_cast<size_t>(rows * half), rng);
  std::vector<int64_t> ids(static_cast<size_t>(k.B * k.S));
  for (auto& p : ids) p = static_cast<int64_t>(rng() % static_cast<uint32_t>(k.positions));

  // The spec in double: the pairs (d1, d2) of the first rot values rotated, the rest copied.
  auto idx = [&](int64_t b, int64_t h, int64_t s, int64_t d) {
    return static_cast<size_t>(k.four ? ((b * k.H + h) * k.S + s) * k.D + d : ((b * k.S + s) * k.H + h) * k.D + d);
  };
  std::vector<double> want(x.begin(), x.end());
  for (int64_t b = 0; b < k.B; ++b)
    for (int64_t s = 0; s < k.S; ++s) {
      const int64_t row = k.ids ? ids[static_cast<size_t>(b * k.S + s)] : b * k.S + s;
      for (int64_t h = 0; h < k.H; ++h)
        for (int64_t j = 0; j < half; ++j) {
          const int64_t d1 = k.interleaved ? 2 * j : j, d2 = k.interleaved ? 2 * j + 1 : j + half;
          const double c = cs[static_cast<size_t>(row * half + j)], si = sn[static_cast<size_t>(row * half + j)];
          const double a = x[idx(b, h, s, d1)], bb = x[idx(b, h, s, d2)];
          want[idx(b, h, s, d1)] = a * c - bb * si;
          want[idx(b, h, s, d2)] = bb * c + a * si;
        }
    }

  std::vector<float> first;
  for (unsigned threads : {1u, 2u, 3u}) {
    kernels::ThreadsScope scope(threads);
    kernels::ParallelFloorsScope floors(64, size_t{1} << 18);  // split even these small inputs
    RotaryRun r = make(k, x, cs, sn, ids, kFloat);
    Interpreter in(*r.model);
    const auto got = in.run(r.feeds);
    const RTensor& y = got[0].t;
    ASSERT_EQ(y.dtype, kFloat);
    ASSERT_EQ(static_cast<size_t>(y.numel()), want.size());
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(y.data<float>()[i]) - want[i]));
    // Two float products and a sum of values in [-1, 1]: a few float roundings of 1.
    EXPECT_LT(worst, 1e-6) << threads << " threads";
    std::vector<float> v(y.data<float>(), y.data<float>() + y.numel());
    if (threads == 1) first = v;
    else EXPECT_EQ(v, first) << threads << " threads differ from one";
  }
  // The generic walk (float16 in double) agrees within float16 rounding of inputs and outputs.
  RotaryRun r = make(k, x, cs, sn, ids, kFloat16);
  Interpreter in(*r.model);
  const auto got = in.run(r.feeds);
  double worst = 0;
  for (size_t i = 0; i < first.size(); ++i) worst = std::max(worst, std::fabs(get_f64(got[0].t, static_cast<int64_t>(i)) - first[i]));
  EXPECT_LT(worst, 5e-3);
}

}  // namespace

// The query heads of a LLaMA-style decoder (hidden 1024) in prefill, and a decode step's key heads.
TEST(ExecRotary, LlamaQueryPrefill) { check({1, 16, 32, 64}, 1); }
TEST(ExecRotary, LlamaKeyDecodeStep) { check({1, 4, 1, 64, true, false, 0, true, 300}, 2); }
TEST(ExecRotary, ThreeDimensionalInterleavedOddSizes) { check({2, 3, 7, 10, false, true}, 3); }
TEST(ExecRotary, PartialRotaryDimension) { check({2, 5, 9, 24, true, false, 16}, 4); }
TEST(ExecRotary, OddRotaryDimensionInterleaved) { check({1, 2, 11, 12, false, true, 7}, 5); }
TEST(ExecRotary, PerPositionCachesWithoutIds) { check({3, 2, 5, 8, true, false, 0, false}, 6); }

TEST(ExecRotary, PositionOutsideTheCachesIsAnError) {
  Case k{1, 2, 3, 8};
  k.positions = 4;
  std::vector<float> x(48, 0.5f), cs(16, 1.f), sn(16, 0.f);
  RotaryRun r = make(k, x, cs, sn, {0, 1, 4}, kFloat);
  Interpreter in(*r.model);
  try {
    in.run(r.feeds);
    FAIL() << "position 4 of a 4-row cache ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("position 4 is outside the caches"), std::string::npos) << e.what();
  }
}
