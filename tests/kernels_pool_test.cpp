// SIMD max and average pooling against the scalar reference: odd widths (vector tails of 8 and
// 4 lanes), strides, dilation (max), padding wider than the window reach (ceil mode), windows
// entirely in the padding, count_include_pad (average), and NaN.
#include "kernels/kernels.h"
#include "support/kernel_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace k = ofg::kernels;

namespace {

enum class Kind { Max, Avg };

// nan_every > 0: a NaN every nan_every elements as well (in every row and column of a window
// at some output).
void check_pool(k::Pool2DParams p, unsigned seed, bool nan, Kind kind = Kind::Max, size_t nan_every = 0) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-2.f, 2.f);
    std::vector<float> x(p.N * p.C * p.H * p.W);
    for (auto& v : x) v = d(rng);
    if (nan) {
      x[x.size() / 2] = std::numeric_limits<float>::quiet_NaN();
      x[1] = std::numeric_limits<float>::quiet_NaN();
    }
    for (size_t i = 0; nan_every && i < x.size(); i += nan_every) x[i] = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> ref(p.N * p.C * p.H_out * p.W_out), got(ref.size(), 123.f);
    if (kind == Kind::Max) {
      k::scalar_table().max_pool2d(p, x.data(), ref.data());
      simd->max_pool2d(p, x.data(), got.data());
    } else {
      k::scalar_table().avg_pool2d(p, x.data(), ref.data());
      simd->avg_pool2d(p, x.data(), got.data());
    }
    for (size_t i = 0; i < ref.size(); ++i) {
      if (std::isnan(ref[i])) ASSERT_TRUE(std::isnan(got[i])) << i;
      else if (kind == Kind::Max) ASSERT_EQ(got[i], ref[i]) << i;  // a maximum is exact
      // The SIMD sums rows in float, the reference in double: a few roundings of values <= 2.
      else ASSERT_NEAR(got[i], ref[i], 1e-6f * static_cast<float>(p.kH * p.kW)) << i;
    }
  });
}

k::Pool2DParams pool(size_t N, size_t C, size_t H, size_t W, size_t kh, size_t kw, size_t s, size_t pad,
                     size_t extra_end, size_t dil) {
  k::Pool2DParams p;
  p.N = N; p.C = C; p.H = H; p.W = W; p.kH = kh; p.kW = kw; p.stride_h = s; p.stride_w = s;
  p.pad_top = pad; p.pad_left = pad; p.pad_bottom = pad + extra_end; p.pad_right = pad + extra_end;
  p.dil_h = dil; p.dil_w = dil;
  p.H_out = k::conv_out_dim(H, kh, s, p.pad_top, p.pad_bottom, dil);
  p.W_out = k::conv_out_dim(W, kw, s, p.pad_left, p.pad_right, dil);
  return p;
}

}  // namespace

TEST(KernelsPool, MaxPoolSimdMatchesScalar) {
  unsigned seed = 1;
  for (size_t W : {1, 5, 8, 13, 17, 31})
    for (size_t s : {1, 2, 3})
      for (bool nan : {false, true}) {
        check_pool(pool(2, 3, 9, W, 3, 3, s, 1, 0, 1), seed++, nan);
        check_pool(pool(1, 2, 7, W, 2, 3, s, 0, 1, 1), seed++, nan);   // ceil-mode style end
        check_pool(pool(1, 2, 11, W, 3, 2, s, 2, 0, 2), seed++, nan);  // dilated
      }
}

TEST(KernelsPool, WindowsOnlyInThePaddingGiveMinusInfinity) {
  // pad 3 with a 2x2 window: the first output row and column see no input.
  check_pool(pool(1, 1, 4, 4, 2, 2, 1, 3, 0, 1), 99, false);
  // The same with stride 2 and 3: the padded columns fall in every stride phase.
  check_pool(pool(1, 2, 6, 9, 2, 2, 2, 3, 0, 1), 100, false);
  check_pool(pool(1, 2, 6, 9, 3, 3, 3, 4, 2, 1), 101, true);
}

// Rows of 64 columns and more: windows of 3 rows and 3 columns (unrolled) and others (1, 2 and 5
// rows or columns, dilated), strides 1 to 3, widths that end in a partial vector, and NaNs
// scattered so that each row and each column tap of some window holds one.
TEST(KernelsPool, WideRowsOnEveryLaneWidth) {
  unsigned seed = 300;
  for (size_t W : {64, 65, 79, 111, 130})
    for (size_t s : {1, 2, 3}) {
      check_pool(pool(1, 3, 9, W, 3, 3, s, 1, 0, 1), seed++, false);
      check_pool(pool(1, 3, 9, W, 3, 3, s, 0, 1, 1), seed++, true, Kind::Max, 37);  // ceil-mode style end
      check_pool(pool(1, 2, 8, W, 2, 3, s, 0, 0, 1), seed++, true, Kind::Max, 41);
      check_pool(pool(1, 2, 11, W, 3, 2, s, 2, 0, 2), seed++, true, Kind::Max, 29);  // dilated
      check_pool(pool(1, 2, 12, W, 5, 5, s, 2, 0, 1), seed++, true, Kind::Max, 53);
      check_pool(pool(1, 2, 5, W, 1, 1, s, 0, 0, 1), seed++, true, Kind::Max, 31);
    }
}

TEST(KernelsPool, ResNetStem) {
  check_pool(pool(2, 4, 112, 112, 3, 3, 2, 1, 0, 1), 7, false);
}

TEST(KernelsPool, AvgPoolSimdMatchesScalar) {
  unsigned seed = 200;
  for (size_t W : {1, 3, 4, 5, 8, 13, 17, 31})
    for (size_t s : {1, 2, 3})
      for (bool include_pad : {false, true}) {
        k::Pool2DParams a = pool(2, 3, 9, W, 3, 3, s, 1, 0, 1);
        k::Pool2DParams b = pool(1, 2, 7, W, 2, 3, s, 0, 1, 1);  // ceil-mode style end
        k::Pool2DParams c = pool(1, 2, 8, W, 5, 4, s, 2, 1, 1);
        for (k::Pool2DParams* p : {&a, &b, &c}) {
          p->count_include_pad = include_pad;
          check_pool(*p, seed++, false, Kind::Avg);
        }
        check_pool(a, seed++, true, Kind::Avg);  // a NaN reaches every window that holds it
      }
}

TEST(KernelsPool, AvgPoolWindowsOnlyInThePadding) {
  k::Pool2DParams p = pool(1, 2, 4, 4, 2, 2, 1, 3, 0, 1);
  check_pool(p, 98, false, Kind::Avg);
  p.count_include_pad = true;
  check_pool(p, 97, false, Kind::Avg);
}

TEST(KernelsPool, AvgPoolGlobalWindow) {
  check_pool(pool(2, 5, 7, 7, 7, 7, 1, 0, 0, 1), 96, false, Kind::Avg);  // ResNet's last pool
}

// Strided average pooling's vector path (the outputs whose window lies inside the row, from the
// column sums split into stride phases): rows wide enough for whole vectors plus a last vector
// that overlaps the one before, strides 2, 3 and 4, windows narrower than, equal to and wider
// than the stride, padding, ceil-mode ends, both count_include_pad settings, NaN.
TEST(KernelsPool, StridedAveragePoolRows) {
  unsigned seed = 300;
  for (size_t W : {34, 56, 75, 131})
    for (size_t s : {2, 3, 4})
      for (size_t kw : {1, 2, 3, 5})
        for (bool inc : {false, true}) {
          k::Pool2DParams p = pool(1, 3, 7, W, 2, kw, s, kw / 2, 1, 1);
          p.count_include_pad = inc;
          check_pool(p, seed++, false, Kind::Avg);
          check_pool(pool(2, 2, 6, W, kw, kw, s, 0, 0, 1), seed++, seed % 3 == 0, Kind::Avg);
        }
  // DenseNet-121's transitions: 2x2 stride 2 on 56, 28 and 14 columns.
  for (size_t W : {56, 28, 14}) check_pool(pool(1, 4, W, W, 2, 2, 2, 0, 0, 1), seed++, false, Kind::Avg);
}
