// The AVX2 convolution (implicit GEMM with packed weights and a fused bias/activation store)
// against the scalar reference: sizes that cross every blocking boundary (k-blocks of 256, row
// blocks of 120, column blocks of 1536, partial 6x16 tiles), odd shapes, strides, padding,
// groups, every activation, and NaN propagation through the fused clamp.
#include "kernels/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace k = ofg::kernels;

namespace {

std::vector<float> random_vec(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

k::Conv2DParams make(size_t N, size_t C, size_t H, size_t W, size_t Co, size_t kh, size_t kw, size_t s,
                     size_t pad, size_t g) {
  k::Conv2DParams p;
  p.N = N; p.C_in = C; p.H = H; p.W = W; p.C_out = Co; p.kH = kh; p.kW = kw;
  p.stride_h = s; p.stride_w = s; p.group = g;
  p.pad_top = pad; p.pad_left = pad; p.pad_bottom = pad; p.pad_right = pad;
  k::conv2d_fill_output_size(p);
  return p;
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " at " << i;
      continue;
    }
    ASSERT_LE(std::fabs(got[i] - want[i]), 1e-4f + 1e-4f * std::fabs(want[i]))
        << what << " at " << i << ": got " << got[i] << " want " << want[i];
  }
}

// Runs p through the scalar reference, the SIMD conv2d and the SIMD packed path.
void check(k::Conv2DParams p, unsigned seed, bool with_nan = false) {
  const k::KernelTable* simd = k::simd_table();
  if (!simd) GTEST_SKIP() << "no SIMD table on this CPU";
  auto x = random_vec(p.N * p.C_in * p.H * p.W, seed);
  auto w = random_vec(p.C_out * (p.C_in / p.group) * p.kH * p.kW, seed + 1);
  auto b = random_vec(p.C_out, seed + 2);
  if (with_nan) x[x.size() / 3] = std::numeric_limits<float>::quiet_NaN();
  const k::Activation acts[] = {k::Activation::None, k::Activation::Relu, k::Activation::Clip,
                                k::Activation::Silu, k::Activation::LeakyRelu};
  for (k::Activation a : acts) {
    for (bool bias : {false, true}) {
      p.act = a;
      p.act_alpha = a == k::Activation::LeakyRelu ? 0.1f : -0.25f;
      p.act_beta = 0.5f;
      p.bias = bias ? b.data() : nullptr;
      const size_t ny = p.N * p.C_out * p.H_out * p.W_out;
      std::vector<float> ref(ny), got(ny, -7.f), got_packed(ny, -7.f);
      k::scalar_table().conv2d(p, x.data(), w.data(), ref.data());
      simd->conv2d(p, x.data(), w.data(), got.data());
      expect_near_all(got, ref, "simd conv2d");
      const size_t n = simd->conv2d_packed_size(p);
      if (n) {
        std::vector<float> packed(n + 16, std::numeric_limits<float>::quiet_NaN());
        simd->conv2d_pack(p, w.data(), packed.data());
        simd->conv2d_prepacked(p, x.data(), packed.data(), got_packed.data());
        expect_near_all(got_packed, ref, "simd conv2d_prepacked");
      }
    }
  }
}

}  // namespace

TEST(KernelsConvGemm, SeveralKBlocksAndRowBlocks) {
  // K = 31 * 9 = 279 (two k-blocks), C_out = 127 (row blocks of 120 + 7, partial 6-row tile).
  check(make(1, 31, 9, 10, 127, 3, 3, 1, 1, 1), 1);
}

TEST(KernelsConvGemm, SeveralColumnBlocks) {
  // 41 x 43 = 1763 output pixels: one full column block of 1536 and a tail of 227.
  check(make(1, 3, 41, 43, 5, 3, 3, 1, 1, 1), 2);
}

TEST(KernelsConvGemm, StridedPaddedRectangularBatch) {
  check(make(3, 5, 13, 17, 11, 5, 3, 2, 2, 1), 3);
  check(make(2, 3, 23, 23, 8, 7, 7, 2, 3, 1), 4);  // the first layer of ResNet, scaled down
}

TEST(KernelsConvGemm, OneByOneFlatAndStrided) {
  check(make(2, 17, 7, 9, 13, 1, 1, 1, 0, 1), 5);   // the input plane is read as one row
  check(make(2, 17, 9, 9, 13, 1, 1, 2, 0, 1), 6);   // strided 1x1 goes through the row walk
  check(make(1, 7, 1, 1, 3, 1, 1, 1, 0, 1), 7);     // a single pixel
}

TEST(KernelsConvGemm, GroupsAndTinyPlanes) {
  check(make(2, 12, 6, 5, 9, 3, 3, 1, 1, 3), 8);
  check(make(1, 4, 2, 2, 6, 3, 3, 1, 2, 2), 9);  // padding wider than the input
}

TEST(KernelsConvGemm, NaNPassesThroughTheFusedClamp) {
  check(make(1, 4, 6, 7, 7, 3, 3, 1, 1, 1), 10, true);
}
