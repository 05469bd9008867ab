// ConvTranspose's GEMM form against its scatter reference (exec/ops/conv_transpose.h) over a grid
// of geometries: 1-D, 2-D and 3-D, groups and depthwise, strides below, equal to and above the
// kernel, dilations, pads at either end (negative ones as output_shape produces), output padding,
// empty inputs, and a column buffer taken in several chunks. Both on the active kernel table and,
// through the scalar reference GEMM, on forced scalar kernels (ONNXFORGE_FORCE_SCALAR in the
// scalar test runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "exec/ops/conv_transpose.h"
#include "kernels/parallel.h"

using ofg::exec::ConvTransposeGeometry;

namespace {

struct Spec {
  int64_t N, C_in, C_out, group;
  std::vector<int64_t> in, kernel, stride, dilation, pad_begin, pad_end, out_pad;
};

ConvTransposeGeometry geometry(const Spec& s) {
  ConvTransposeGeometry g{s.N, s.C_in, s.C_out, s.group, s.in, s.kernel, s.stride, s.dilation, s.pad_begin, {}};
  for (size_t i = 0; i < s.in.size(); ++i)
    g.out.push_back(s.stride[i] * (s.in[i] - 1) + s.out_pad[i] + (s.kernel[i] - 1) * s.dilation[i] + 1 -
                    s.pad_begin[i] - s.pad_end[i]);
  return g;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

void check(const Spec& s, uint32_t seed) {
  ConvTransposeGeometry g = geometry(s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(static_cast<size_t>(s.N * s.C_in * product(s.in)));
  std::vector<float> w(static_cast<size_t>(s.C_in * (s.C_out / s.group) * product(s.kernel)));
  std::vector<float> b(static_cast<size_t>(s.C_out));
  for (float& v : x) v = u(rng);
  for (float& v : w) v = u(rng);
  for (float& v : b) v = u(rng);
  const size_t ny = static_cast<size_t>(s.N * s.C_out * product(g.out));
  std::vector<float> ref(ny, NAN), got(ny, NAN);
  ofg::exec::conv_transpose_reference(g, x.data(), w.data(), b.data(), ref.data());
  ASSERT_TRUE(ofg::exec::conv_transpose_gemm(g, x.data(), w.data(), b.data(), got.data()));
  // Each output sums at most C_in/group * kernel products of values in [-1, 1]: the two orders of
  // summation differ by a few float32 roundings of such sums.
  const double tol = 1e-5 * static_cast<double>((s.C_in / s.group) * product(s.kernel) + 1);
  size_t bad = 0;
  for (size_t i = 0; i < ny; ++i)
    if (!(std::fabs(static_cast<double>(got[i]) - ref[i]) <= tol) && bad++ < 3)
      ADD_FAILURE() << "element " << i << ": " << got[i] << " vs reference " << ref[i];
  EXPECT_EQ(bad, 0u) << "of " << ny;
}

TEST(ExecConvTranspose, MatchesTheScatterReferenceOnAGridOfGeometries) {
  const std::vector<Spec> specs = {
      // 2-D: the 2x2 stride-2 upsampling of detectors' and U-Nets' decoders
      {1, 8, 4, 1, {5, 7}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {0, 0}},
      {2, 6, 6, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},      // stride 1, padded
      {1, 4, 6, 2, {5, 3}, {3, 2}, {2, 3}, {1, 1}, {1, 0}, {0, 1}, {1, 2}},      // groups, output padding
      {1, 3, 5, 1, {4, 5}, {2, 3}, {3, 4}, {2, 1}, {0, 2}, {1, 0}, {0, 0}},      // stride above kernel, dilation
      {1, 8, 8, 8, {6, 6}, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},      // depthwise
      {1, 2, 3, 1, {3, 4}, {3, 3}, {2, 2}, {1, 1}, {-1, 0}, {-2, -1}, {0, 0}},   // negative pads (output_shape)
      {1, 2, 64, 1, {64, 128}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},  // several column chunks
      // 1-D: vocoders' upsampling (kernel 2x the stride) and dilated
      {1, 5, 3, 1, {9}, {16}, {8}, {1}, {4}, {4}, {0}},
      {2, 4, 4, 2, {7}, {3}, {1}, {2}, {2}, {2}, {0}},
      // 3-D
      {1, 3, 2, 1, {3, 4, 2}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
      {1, 4, 4, 2, {2, 3, 3}, {3, 2, 3}, {1, 2, 2}, {2, 1, 1}, {1, 0, 1}, {0, 1, 1}, {0, 1, 1}},
      // empty input spatial extent and a single pixel
      {1, 3, 2, 1, {0, 4}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {0, 0}},
      {3, 1, 1, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}},
  };
  uint32_t seed = 1;
  for (const Spec& s : specs) {
    SCOPED_TRACE("spec " + std::to_string(seed));
    check(s, seed++);
  }
}

// Threads take whole images and groups, or with one of each the scatter's output channels: the
// same bits on any thread count.
TEST(ExecConvTranspose, SameBitsOnAnyThreadCount) {
  const std::vector<Spec> specs = {
      {1, 16, 16, 16, {9, 11}, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}},  // depthwise
      {2, 6, 4, 2, {7, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 0}, {0, 1}, {1, 0}},       // batch 2, groups
      {1, 8, 12, 1, {10, 9}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, {0, 0}},      // one group: scatter split
      {1, 5, 7, 1, {40}, {16}, {8}, {1}, {4}, {4}, {0}},                           // 1-D
  };
  uint32_t seed = 50;
  for (const Spec& s : specs) {
    ConvTransposeGeometry g = geometry(s);
    std::mt19937 rng(seed++);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> x(static_cast<size_t>(s.N * s.C_in * product(s.in)));
    std::vector<float> w(static_cast<size_t>(s.C_in * (s.C_out / s.group) * product(s.kernel)));
    for (float& v : x) v = u(rng);
    for (float& v : w) v = u(rng);
    const size_t ny = static_cast<size_t>(s.N * s.C_out * product(g.out));
    std::vector<float> one(ny), many(ny);
    ASSERT_TRUE(ofg::exec::conv_transpose_gemm(g, x.data(), w.data(), nullptr, one.data()));
    for (unsigned width : {2u, 3u}) {
      ofg::kernels::ThreadsScope threads(width);
      ofg::kernels::ParallelFloorsScope floors(1, 1);  // split even these small shapes
      std::fill(many.begin(), many.end(), NAN);
      ASSERT_TRUE(ofg::exec::conv_transpose_gemm(g, x.data(), w.data(), nullptr, many.data()));
      EXPECT_EQ(std::memcmp(one.data(), many.data(), ny * sizeof(float)), 0)
          << "spec " << seed - 1 << " with " << width << " threads";
    }
  }
}

TEST(ExecConvTranspose, DeclinesRanksAboveThreeAndLeavesTheOutput) {
  ConvTransposeGeometry g;
  g.C_in = g.C_out = 1;
  g.in = g.kernel = g.stride = g.dilation = g.out = {1, 1, 1, 1};
  g.pad_begin = {0, 0, 0, 0};
  float x = 2.f, w = 3.f, y = 7.f;
  EXPECT_FALSE(ofg::exec::conv_transpose_gemm(g, &x, &w, nullptr, &y));
  EXPECT_EQ(y, 7.f);
  ofg::exec::conv_transpose_reference(g, &x, &w, nullptr, &y);
  EXPECT_EQ(y, 6.f);
}

}  // namespace
