// Interpreter tests for the less common ops whose edge cases are easy to get wrong: Resize
// coordinate transforms, Einsum label handling, loss reductions with ignore_index, fully masked
// attention rows, Unique ordering, quantization rounding, inverse one-sided DFT, Det.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "support/exec_expect.h"
#include "support/exec_support.h"
#include "support/model_test.h"
#include "exec/ops/util.h"
#include "kernels/parallel.h"

using namespace ofg;
using namespace ofg::exec;

using ofg::test::expect_near;
using ofg::test::tensor_f;
using ofg::test::values;

using ExecOpsMore = ofg::test::ModelTest;

TEST_F(ExecOpsMore, ResizeAlignCornersUsesUnroundedLength) {
  // 2x4 scaled by 0.6 gives 1x2; align_corners maps x=1 to 1 * 3 / (4 * 0.6 - 1) = 2.142857.
  auto m = new_model(19);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 1, 2, 4});
  Value* scales = b.constant("s", {4}, {1, 1, 0.6f, 0.6f});
  Value* y = b.op("Resize", {x, nullptr, scales},
                  {b.s("mode", "linear"), b.s("coordinate_transformation_mode", "align_corners")});
  b.output(y);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}});
  EXPECT_EQ(out[0].t.shape, (Shape{1, 1, 1, 2}));
  expect_near(values(out[0]), {1.0, 1.0 + 3.0 / 1.4});
}

// Linear Resize x4 with align_corners (DeepLab's logits upsampling) on both spatial axes: the
// outputs are split between threads along each axis (exec/ops/resize_axis.cpp); on 1, 2 and 3
// threads, with the split floors lowered so that this small shape splits, every bit is the same,
// and the values match the definition (bilinear between the four nearest input pixels).
TEST_F(ExecOpsMore, ResizeLinearAlignCornersSameBitsOnAnyThreadCount) {
  const int64_t C = 3, H = 5, W = 21, OH = 20, OW = 84;  // rows of 21: one block of 16 and a tail
  auto m = new_model(19);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, C, H, W});
  Value* scales = b.constant("s", {4}, {1, 1, 4, 4});
  b.output(b.op("Resize", {x, nullptr, scales},
                {b.s("mode", "linear"), b.s("coordinate_transformation_mode", "align_corners")}));
  std::vector<float> img(static_cast<size_t>(C * H * W));
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<float>((i * 37) % 23) / 7.f - 1.5f;
  std::vector<double> want;
  for (int64_t ch = 0; ch < C; ++ch)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const double v = static_cast<double>(oy) * (H - 1) / (OH - 1), u = static_cast<double>(ox) * (W - 1) / (OW - 1);
        const int64_t y0 = std::min<int64_t>(static_cast<int64_t>(v), H - 2), x0 = std::min<int64_t>(static_cast<int64_t>(u), W - 2);
        const double tv = v - static_cast<double>(y0), tu = u - static_cast<double>(x0);
        auto px = [&](int64_t yy, int64_t xx) { return static_cast<double>(img[static_cast<size_t>((ch * H + yy) * W + xx)]); };
        want.push_back((1 - tv) * ((1 - tu) * px(y0, x0) + tu * px(y0, x0 + 1)) +
                       tv * ((1 - tu) * px(y0 + 1, x0) + tu * px(y0 + 1, x0 + 1)));
      }
  std::vector<std::vector<double>> got;
  for (unsigned threads : {1u, 2u, 3u}) {
    kernels::ThreadsScope scope(threads);
    kernels::ParallelFloorsScope floors(1, 1);
    Interpreter in(*m);
    auto out = in.run({{"x", tensor_f({1, C, H, W}, img)}});
    ASSERT_EQ(out[0].t.shape, (Shape{1, C, OH, OW}));
    got.push_back(values(out[0]));
    expect_near(got.back(), want, 1e-5);
  }
  EXPECT_EQ(got[0], got[1]);
  EXPECT_EQ(got[0], got[2]);
}

TEST_F(ExecOpsMore, ResizeNearestAsymmetricAndHalfPixelLinear) {
  auto m = new_model(19);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 1, 1, 2});
  Value* scales = b.constant("s", {4}, {1, 1, 1, 2});
  b.output(b.op("Resize", {x, nullptr, scales},
                {b.s("mode", "nearest"), b.s("coordinate_transformation_mode", "asymmetric"), b.s("nearest_mode", "floor")}));
  b.output(b.op("Resize", {x, nullptr, scales}, {b.s("mode", "linear")}));
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 1, 1, 2}, {1, 3})}});
  expect_near(values(out[0]), {1, 1, 3, 3});
  // half_pixel: outputs sample at -0.25, 0.25, 0.75, 1.25 (clamped at the borders).
  expect_near(values(out[1]), {1, 1.5, 2.5, 3});
}

TEST_F(ExecOpsMore, ResizeNearestCopiesWholeElementsOnEveryAxis) {
  // Nearest picks input elements without arithmetic: an int64 beyond 2^53 survives exactly.
  // Rows: half_pixel at -0.25, 0.25, 0.75, 1.25 -> 0, 0, 1, 1; columns (scale 0.67, two outputs)
  // sample at 0.246 and 1.739 -> 0 and 2.
  auto m = new_model(19);
  GraphBuilder b(*m);
  Value* x = b.input("x", kInt64, {2, 3});
  Value* scales = b.constant("s", {2}, {2, 0.67f});
  b.output(b.op("Resize", {x, nullptr, scales}, {b.s("mode", "nearest")}));
  Interpreter in(*m);
  const int64_t big = (int64_t{1} << 60) + 1;
  auto out = in.run({{"x", ofg::test::i64_tensor({2, 3}, {1, 2, 3, big, 5, 6})}});
  ASSERT_EQ(out[0].t.shape, (Shape{4, 2}));
  const int64_t* y = out[0].t.data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(y, y + 8), (std::vector<int64_t>{1, 3, 1, 3, big, 6, big, 6}));
}

TEST_F(ExecOpsMore, EinsumExplicitImplicitAndDiagonal) {
  auto m = new_model(12);
  GraphBuilder b(*m);
  Value* a = b.input("a", kFloat, {2, 2});
  Value* c = b.input("c", kFloat, {2, 2});
  b.output(b.op("Einsum", {a, c}, {b.s("equation", "ij,jk->ik")}));
  b.output(b.op("Einsum", {a}, {b.s("equation", "ii->i")}));
  b.output(b.op("Einsum", {a, c}, {b.s("equation", "ij,ij")}));  // implicit: no free label -> scalar
  b.output(b.op("Einsum", {a}, {b.s("equation", "...j->...")}));
  Interpreter in(*m);
  auto out = in.run({{"a", tensor_f({2, 2}, {1, 2, 3, 4})}, {"c", tensor_f({2, 2}, {5, 6, 7, 8})}});
  expect_near(values(out[0]), {19, 22, 43, 50});
  expect_near(values(out[1]), {1, 4});
  EXPECT_EQ(out[2].t.rank(), 0);
  expect_near(values(out[2]), {5 + 12 + 21 + 32});
  expect_near(values(out[3]), {3, 7});
}

TEST_F(ExecOpsMore, NllLossMeanSkipsIgnoredTargets) {
  Value* x = b.input("x", kFloat, {3, 2});
  Value* t = b.constant_i64("t", {3}, {0, 1, 1});
  Value* w = b.constant("w", {2}, {1, 3});
  b.output(b.op("NegativeLogLikelihoodLoss", {x, t, w}, {b.i("ignore_index", 0)}));
  b.output(b.op("NegativeLogLikelihoodLoss", {x, t}, {b.s("reduction", "none")}));
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({3, 2}, {-1, -2, -3, -4, -5, -6})}});
  // Targets 1 and 1 kept with weight 3: (3*4 + 3*6) / (3 + 3) = 5.
  expect_near(values(out[0]), {5});
  expect_near(values(out[1]), {1, 4, 6});
}

TEST_F(ExecOpsMore, AttentionFullyMaskedRowGivesZeros) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  Value* q = b.input("q", kFloat, {1, 1, 2, 1});
  Value* k = b.input("k", kFloat, {1, 1, 2, 1});
  Value* v = b.input("v", kFloat, {1, 1, 2, 1});
  bool mask[4] = {false, false, true, true};
  Value* mk = b.initializer("mask", kBool, {2, 2}, mask, sizeof(mask));
  b.output(b.op("Attention", {q, k, v, mk}));
  Interpreter in(*m);
  auto out = in.run({{"q", tensor_f({1, 1, 2, 1}, {0, 0})}, {"k", tensor_f({1, 1, 2, 1}, {1, 2})},
                     {"v", tensor_f({1, 1, 2, 1}, {10, 20})}});
  // Row 0 attends to nothing (zeros, not NaN); row 1 has equal scores -> mean of V.
  expect_near(values(out[0]), {0, 15});
}

TEST_F(ExecOpsMore, UniqueSortedOutputs) {
  auto m = new_model(11);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {6});
  Node* n = b.node("Unique", {x}, 4, {});
  for (uint32_t i = 0; i < 4; ++i) b.output(n->outputs[i]);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({6}, {2, 1, 1, 3, 4, 3})}});
  expect_near(values(out[0]), {1, 2, 3, 4});
  expect_near(values(out[1]), {1, 0, 3, 4});
  expect_near(values(out[2]), {1, 0, 0, 2, 3, 2});
  expect_near(values(out[3]), {2, 1, 2, 1});
}

TEST_F(ExecOpsMore, QuantizeRoundsHalfToEvenAndSaturates) {
  auto m = new_model(21);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {5});
  Value* s = b.constant("s", {}, {1.f});
  int8_t zp = 1;
  Value* z = b.initializer("z", kInt8, {}, &zp, 1);
  Value* y = b.op("QuantizeLinear", {x, s, z});
  b.output(y);
  b.output(b.op("DequantizeLinear", {y, s, z}));
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({5}, {0.5f, 1.5f, 2.5f, -3.5f, 300.f})}});
  EXPECT_EQ(out[0].t.dtype, kInt8);
  expect_near(values(out[0]), {1, 3, 3, -3, 127});
  expect_near(values(out[1]), {0, 2, 2, -4, 126});
}

// Per-axis dequantization along the last axis (weights [K, N], one scale and zero point per
// column) runs row by row through vector ops; each element must be float(x - z) * s exactly.
TEST_F(ExecOpsMore, DequantizePerLastAxisMatchesTheFormula) {
  for (int32_t dt : {kInt8, kUint8}) {
    const int64_t K = 5, N = 37;  // N: vector tails on every ISA
    auto m = new_model(21);
    GraphBuilder b(*m);
    std::vector<uint8_t> xs(static_cast<size_t>(K * N)), zs(static_cast<size_t>(N));
    std::vector<float> ss(static_cast<size_t>(N));
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<uint8_t>(i * 37 + 11);
    for (size_t j = 0; j < zs.size(); ++j) zs[j] = static_cast<uint8_t>(j * 13 + 3), ss[j] = 0.001f * static_cast<float>(j + 1) / 3.f;
    Value* x = b.initializer("x", dt, {K, N}, xs.data(), xs.size());
    Value* s = b.initializer("s", {N}, ss);
    Value* z = b.initializer("z", dt, {N}, zs.data(), zs.size());
    b.output(b.op("DequantizeLinear", {x, s, z}, {b.i("axis", 1)}));
    b.output(b.op("DequantizeLinear", {x, s, z}, {b.i("axis", -1)}));
    Interpreter in(*m);
    auto out = in.run({});
    for (int o = 0; o < 2; ++o) {
      ASSERT_EQ(out[o].t.shape, (Shape{K, N}));
      for (int64_t i = 0; i < K * N; ++i) {
        const int32_t xv = dt == kInt8 ? static_cast<int8_t>(xs[static_cast<size_t>(i)]) : xs[static_cast<size_t>(i)];
        const int32_t zv = dt == kInt8 ? static_cast<int8_t>(zs[static_cast<size_t>(i % N)]) : zs[static_cast<size_t>(i % N)];
        const float want = static_cast<float>(xv - zv) * ss[static_cast<size_t>(i % N)];
        ASSERT_EQ(out[o].t.data<float>()[i], want) << "element " << i << " dtype " << dt;
      }
    }
  }
}

TEST_F(ExecOpsMore, InverseOnesidedDftIsReal) {
  auto m = new_model(20);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 3, 2});
  b.output(b.op("DFT", {x}, {b.i("inverse", 1), b.i("onesided", 1)}));
  b.output(b.op("DFT", {x}, {}));
  Interpreter in(*m);
  // Half spectrum of [1, 1, 1, 1]: bins 4, 0, 0.
  auto out = in.run({{"x", tensor_f({1, 3, 2}, {4, 0, 0, 0, 0, 0})}});
  EXPECT_EQ(out[0].t.shape, (Shape{1, 4, 1}));
  expect_near(values(out[0]), {1, 1, 1, 1});
  expect_near(values(out[1]), {4, 0, 4, 0, 4, 0});
}

TEST_F(ExecOpsMore, DetWithPivoting) {
  Value* x = b.input("x", kFloat, {2, 2, 2});
  b.output(b.op("Det", {x}));
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0})}});
  EXPECT_EQ(out[0].t.shape, (Shape{2}));
  expect_near(values(out[0]), {-2, -1});
}

// broadcast_runs visits the same (output element, input offsets) pairs as broadcast_each, run by
// run of the innermost dim: shapes of other ranks, size-1 dims in any place, scalars, empty.
TEST(BroadcastRuns, SameOffsetsAsBroadcastEach) {
  const std::vector<std::vector<Shape>> cases = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}, {{1, 1, 4, 4}, {2, 3, 4, 4}, {}}, {{3, 1}, {1, 5}, {3, 5}},
      {{4}, {2, 3, 4}, {3, 1}},          {{}, {}, {}},                     {{2, 1, 3}, {1}, {2, 4, 1}},
      {{0, 3}, {1, 3}, {3}},             {{5, 1}, {5, 1}, {1}}};
  for (const auto& ins : cases) {
    Shape out;
    for (const Shape& s : ins) {
      if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t& d = out[out.size() - s.size() + i];
        if (d == 1 || s[i] == 0) d = s[i];
      }
    }
    std::vector<std::vector<int64_t>> each, runs;
    broadcast_each(out, ins, [&](int64_t n, const int64_t* o) { each.push_back({n, o[0], o[1], o[2]}); });
    broadcast_runs(out, ins, [&](int64_t n, const int64_t* o, int64_t len, const int64_t* st) {
      for (int64_t t = 0; t < len; ++t) runs.push_back({n + t, o[0] + t * st[0], o[1] + t * st[1], o[2] + t * st[2]});
    });
    EXPECT_EQ(runs, each) << "output " << shape_str(out);
  }
}

// GridSample over more locations than one block of its tap table, on one and on two threads,
// against bilinear sampling with zero padding written out here (align_corners = 0).
TEST_F(ExecOpsMore, GridSampleBilinearAcrossBlocksAndThreads) {
  const int64_t C = 2, H = 5, W = 7, OH = 30, OW = 30;
  std::vector<float> img(static_cast<size_t>(C * H * W)), grid(static_cast<size_t>(OH * OW * 2));
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<float>((i * 37) % 23) - 11.f;
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = -1.2f + 2.4f * static_cast<float>((i * 7919) % 1000) / 999.f;
  auto m = new_model(16);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, C, H, W});
  Value* g = b.input("g", kFloat, {1, OH, OW, 2});
  b.output(b.op("GridSample", {x, g}, {b.s("mode", "bilinear")}));
  std::vector<double> want;
  auto pixel = [&](int64_t ch, int64_t yy, int64_t xx) {
    return yy < 0 || yy >= H || xx < 0 || xx >= W ? 0.0 : static_cast<double>(img[static_cast<size_t>((ch * H + yy) * W + xx)]);
  };
  for (int64_t ch = 0; ch < C; ++ch)
    for (int64_t o = 0; o < OH * OW; ++o) {
      const double u = ((grid[static_cast<size_t>(2 * o)] + 1.0) * W - 1) / 2, v = ((grid[static_cast<size_t>(2 * o + 1)] + 1.0) * H - 1) / 2;
      const double fu = std::floor(u), fv = std::floor(v), tu = u - fu, tv = v - fv;
      const int64_t x0 = static_cast<int64_t>(fu), y0 = static_cast<int64_t>(fv);
      want.push_back((1 - tv) * ((1 - tu) * pixel(ch, y0, x0) + tu * pixel(ch, y0, x0 + 1)) +
                     tv * ((1 - tu) * pixel(ch, y0 + 1, x0) + tu * pixel(ch, y0 + 1, x0 + 1)));
    }
  std::vector<std::vector<double>> got;
  for (unsigned threads : {1u, 2u}) {
    kernels::ThreadsScope scope(threads);
    kernels::ParallelFloorsScope floors(1, 1);  // split even this small shape
    Interpreter in(*m);
    auto out = in.run({{"x", tensor_f({1, C, H, W}, img)}, {"g", tensor_f({1, OH, OW, 2}, grid)}});
    ASSERT_EQ(out[0].t.shape, (Shape{1, C, OH, OW}));
    got.push_back(values(out[0]));
    expect_near(got.back(), want, 1e-5);
  }
  EXPECT_EQ(got[0], got[1]);  // the split over threads changes no bit
}

// Slice with a step on the last axis copies element by element at every element size; a negative
// step walks the row backwards.
TEST_F(ExecOpsMore, SliceStridedLastAxisEveryElementSize) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x8 = b.input("x8", kUint8, {2, 7});
  Value* x64 = b.input("x64", kInt64, {2, 7});
  Value* fwd = b.op("Slice", {x64, b.constant_i64("s0", {2}, {1, 1}), b.constant_i64("e0", {2}, {2, 7}),
                              b.constant_i64("a0", {2}, {0, 1}), b.constant_i64("k0", {2}, {1, 2})});
  Value* back = b.op("Slice", {x8, b.constant_i64("s1", {1}, {6}), b.constant_i64("e1", {1}, {-8}),
                               b.constant_i64("a1", {1}, {-1}), b.constant_i64("k1", {1}, {-3})});
  b.output(fwd);
  b.output(back);
  std::vector<int64_t> v64(14);
  std::vector<uint8_t> v8(14);
  for (int i = 0; i < 14; ++i) v64[static_cast<size_t>(i)] = int64_t{1} << (i + 40), v8[static_cast<size_t>(i)] = static_cast<uint8_t>(200 + i);
  Interpreter in(*m);
  auto out = in.run({{"x8", ofg::test::tensor_value(kUint8, {2, 7}, v8)}, {"x64", ofg::test::tensor_value(kInt64, {2, 7}, v64)}});
  ASSERT_EQ(out[0].t.shape, (Shape{1, 3}));
  const int64_t* y64 = out[0].t.data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(y64, y64 + 3), (std::vector<int64_t>{v64[8], v64[10], v64[12]}));
  ASSERT_EQ(out[1].t.shape, (Shape{2, 3}));
  const uint8_t* y8 = out[1].t.data<uint8_t>();
  EXPECT_EQ(std::vector<uint8_t>(y8, y8 + 6), (std::vector<uint8_t>{206, 203, 200, 213, 210, 207}));
}
