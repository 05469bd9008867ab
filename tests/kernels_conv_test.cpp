// The SIMD convolution (implicit GEMM with packed weights and a fused bias/activation store,
// Winograd, depthwise) against the scalar reference: sizes that cross every blocking boundary
// (k-blocks of 256, row blocks of 120/128, column blocks of 1536/960/512, partial register
// tiles), odd shapes, strides, padding, groups, every activation, and NaN propagation through
// the fused clamp.
#include "kernels/kernels.h"
#include "support/kernel_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace k = ofg::kernels;

namespace {

// Convolution results: sums of up to a few hundred products of values in [-1, 1].
void expect_close_4(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ofg::test::expect_close(got, want, 1e-4f, 1e-4f, what);
}

std::vector<float> random_vec(size_t n, unsigned seed) { return ofg::test::rnd(n, -1.f, 1.f, seed); }

k::Conv2DParams make(size_t N, size_t C, size_t H, size_t W, size_t Co, size_t kh, size_t kw, size_t s,
                     size_t pad, size_t g) {
  k::Conv2DParams p;
  p.N = N; p.C_in = C; p.H = H; p.W = W; p.C_out = Co; p.kH = kh; p.kW = kw;
  p.stride_h = s; p.stride_w = s; p.group = g;
  p.pad_top = pad; p.pad_left = pad; p.pad_bottom = pad; p.pad_right = pad;
  k::conv2d_fill_output_size(p);
  return p;
}


// Runs p through the scalar reference, the SIMD conv2d and the SIMD packed path.
void check(k::Conv2DParams p, unsigned seed, bool with_nan = false) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
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
        expect_close_4(got, ref, "simd conv2d");
        const size_t n = simd->conv2d_packed_size(p);
        if (n) {
          std::vector<float> packed(n + 16, std::numeric_limits<float>::quiet_NaN());
          simd->conv2d_pack(p, w.data(), packed.data());
          simd->conv2d_prepacked(p, x.data(), packed.data(), got_packed.data());
          expect_close_4(got_packed, ref, "simd conv2d_prepacked");
        }
      }
    }
  });
}

}  // namespace

TEST(KernelsConvGemm, SeveralKBlocksAndRowBlocks) {
  // K = 31 * 9 = 279 (two k-blocks), C_out = 127 (row blocks of 120 + 7, partial 6-row tile).
  check(make(1, 31, 9, 10, 127, 3, 3, 1, 1, 1), 1);
  // C_out = 131: row blocks of 128 + 3 (NEON), partial 8- and 4-row tiles; K = 261.
  check(make(1, 29, 7, 6, 131, 3, 3, 1, 1, 1), 11);
}

TEST(KernelsConvGemm, SeveralColumnBlocks) {
  // 41 x 43 = 1763 output pixels: one full column block of 1536 and a tail of 227.
  check(make(1, 3, 41, 43, 5, 3, 3, 1, 1, 1), 2);
}

TEST(KernelsConvGemm, StridedPaddedRectangularBatch) {
  check(make(3, 5, 13, 17, 11, 5, 3, 2, 2, 1), 3);
  check(make(2, 3, 23, 23, 8, 7, 7, 2, 3, 1), 4);  // the first layer of ResNet, scaled down
}

// Stride 2 packs the even values of whole vectors of pairs while both values of a pair lie in
// the input row (AVX-512: 16 pairs): rows wide enough for several vectors, even and odd widths and
// left padding (where the pairs start), and runs that end at the row's last column.
TEST(KernelsConvGemm, StrideTwoRowsOfPairs) {
  unsigned seed = 60;
  for (size_t W : {64, 65, 97})
    for (size_t pad : {0, 1, 2}) check(make(1, 2, 5, W, 5, 3, 3, 2, pad, 1), seed++);
  check(make(1, 3, 40, 70, 8, 7, 7, 2, 3, 1), seed++);  // ResNet's stem on a narrower image
}

TEST(KernelsConvGemm, OneByOneFlatAndStrided) {
  check(make(2, 17, 7, 9, 13, 1, 1, 1, 0, 1), 5);   // the input plane is read as one row
  check(make(2, 17, 9, 9, 13, 1, 1, 2, 0, 1), 6);   // strided 1x1 goes through the row walk
  check(make(1, 7, 1, 1, 3, 1, 1, 1, 0, 1), 7);     // a single pixel
  check(make(3, 37, 1, 1, 50, 1, 1, 1, 0, 1), 12);  // single pixels of a batch: one GEMV per image
}

// Stride 1 with the output as wide as the input packs each k-row as one shifted run of the plane,
// then zeroes the columns in the padding: 1xk padded only along W and kx1 unpadded (an audio
// model's separable convs, planes narrower than a register tile), rows of padding above and
// below, dilation, uneven padding, and runs that reach past either end of the plane.
TEST(KernelsConvGemm, SameWidthStrideOneRuns) {
  unsigned seed = 30;
  for (size_t W : {1, 2, 5, 8, 33}) {
    k::Conv2DParams p = make(2, 5, 7, W, 9, 1, 3, 1, 0, 1);
    p.pad_left = p.pad_right = 1;
    k::conv2d_fill_output_size(p);
    check(p, seed++);
    check(make(1, 6, 9, W, 7, 3, 1, 1, 0, 1), seed++);
    check(make(1, 3, 5, W, 4, 3, 3, 1, 1, 1), seed++);  // pads every side: zeroed rows and columns
  }
  k::Conv2DParams p = make(1, 4, 11, 12, 5, 3, 3, 1, 0, 1);  // dilated 2: pads 2 keep the width
  p.dil_h = p.dil_w = 2;
  p.pad_left = 1; p.pad_right = 3; p.pad_top = 2; p.pad_bottom = 2;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
  check(make(1, 17, 40, 40, 6, 5, 5, 1, 2, 1), seed++);  // several panels and column blocks
}

// A kernel as wide as its stride, unpadded along W, packs kW k-rows per input row read (ViT's
// patchify): widths that leave input columns unread, padding above and below, a kernel taller
// than wide, k-blocks that start inside a group of kW k-rows (K = 40 * 9 = 360 with kW = 3),
// groups, and outputs narrower than one vector (one-vector register tiles).
TEST(KernelsConvGemm, KernelAsWideAsItsStride) {
  unsigned seed = 40;
  check(make(2, 3, 64, 64, 20, 16, 16, 16, 0, 1), seed++);  // 16 output pixels an image
  check(make(1, 3, 37, 35, 17, 4, 4, 4, 0, 1), seed++);
  check(make(2, 5, 9, 11, 6, 2, 2, 2, 0, 1), seed++);
  check(make(1, 40, 10, 14, 15, 3, 3, 3, 0, 1), seed++);
  check(make(1, 6, 8, 10, 9, 2, 2, 2, 0, 3), seed++);
  k::Conv2DParams p = make(1, 4, 13, 12, 7, 5, 3, 1, 0, 1);
  p.stride_w = 3;
  p.pad_top = 2; p.pad_bottom = 1;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
}

// Planes narrower than a register tile put the batch's columns side by side in one GEMM (fewer
// panels), then copy each image's planes out: images that straddle panel boundaries, single
// pixels, groups, several k-blocks (K = 40 * 9 = 360), and every packing path.
TEST(KernelsConvGemm, SmallPlanesOfSeveralImagesShareTiles) {
  unsigned seed = 70;
  check(make(5, 6, 7, 1, 9, 1, 1, 1, 0, 1), seed++);    // 7 pixels, 1x1
  check(make(3, 40, 3, 3, 17, 3, 3, 1, 1, 1), seed++);  // 9 pixels, padded 3x3, two k-blocks
  check(make(4, 4, 1, 1, 5, 3, 3, 1, 1, 1), seed++);    // one pixel
  check(make(3, 6, 9, 7, 8, 3, 3, 2, 1, 2), seed++);    // stride 2, groups
  check(make(2, 3, 32, 32, 12, 8, 8, 8, 0, 1), seed++); // 4x4 patches
}

TEST(KernelsConvGemm, GroupsAndTinyPlanes) {
  check(make(2, 12, 6, 5, 9, 3, 3, 1, 1, 3), 8);
  check(make(1, 4, 2, 2, 6, 3, 3, 1, 2, 2), 9);  // padding wider than the input
}

TEST(KernelsConvGemm, NaNPassesThroughTheFusedClamp) {
  check(make(1, 4, 6, 7, 7, 3, 3, 1, 1, 1), 10, true);
}

// ---------------------------------------------------------------- depthwise
// One filter per channel: the SIMD tables move groups of W channels (W the vector width) into
// the lanes of a zero-padded band of input rows by register transposes, compute each output
// pixel of the group as one vector, and move the results back. Channel counts below, at and
// past a group (a last group with fewer channels goes through scalar moves), rows narrower than
// a tile (moved through the staging buffer) and wider (tiles straight into the band, the last
// one overlapping), kernel widths 1..5, strides 1..3, dilation, uneven padding, padding wider
// than the kernel's reach and inputs wider than the outputs read, and planes taking several bands.

TEST(KernelsConvDepthwise, OddWidthsStridesDilations) {
  unsigned seed = 50;
  for (size_t W : {1, 3, 4, 5, 8, 9, 13, 17})
    for (size_t kk : {1, 3, 5})
      for (size_t s : {1, 2}) check(make(2, 6, 5, W, 6, kk, kk, s, kk / 2, 6), seed++);
  k::Conv2DParams p = make(1, 5, 9, 14, 5, 3, 2, 1, 0, 5);  // rectangular, dilated, no padding
  p.dil_h = 2;
  p.dil_w = 3;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
  check(make(1, 3, 6, 11, 3, 3, 3, 1, 1, 3), seed++, true);  // NaN through the vector interior
  check(make(1, 4, 11, 19, 4, 3, 3, 3, 1, 4), seed++);       // three phases
  // Stride 2 splits whole vectors of pairs at once inside the row (AVX-512: 16 pairs): rows wide
  // enough for several, with even and odd padding (where the pairs start).
  for (size_t W : {32, 33, 47, 70})
    for (size_t pad : {0, 1, 2}) check(make(1, 3, 5, W, 3, 3, 3, 2, pad, 3), seed++);
  check(make(1, 5, 70, 70, 5, 3, 3, 1, 1, 5), seed++);   // bands of 56 and 14 rows
  check(make(2, 3, 260, 61, 3, 5, 5, 2, 2, 3), seed++);  // stride 2: bands of 124 and 6 rows
  p = make(1, 3, 10, 21, 3, 3, 5, 2, 0, 3);  // stride 2, dilated, pads only on one side each
  p.dil_w = 2;
  p.pad_top = 2;
  p.pad_right = 3;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
}

TEST(KernelsConvDepthwise, ChannelGroupsAcrossLanes) {
  unsigned seed = 150;
  for (size_t C : {4, 8, 13, 16, 24})
    for (size_t W : {5, 7, 8, 9, 15, 20})
      for (size_t kk : {3, 5})
        for (size_t s : {1, 2}) check(make(2, C, 6, W, C, kk, kk, s, kk / 2, C), seed++);
  // Stride 2 without padding on an even width: the last input column is never read.
  check(make(1, 16, 8, 16, 16, 3, 3, 2, 0, 16), seed++);
  // Padding wider than the kernel's reach: whole rows and columns of zeros around the input.
  check(make(1, 16, 4, 9, 16, 3, 3, 1, 3, 16), seed++);
  // Dilated 3x3 on 16 channels, rectangular kernel with stride 3, and a 7x7 kernel (untemplated taps).
  k::Conv2DParams p = make(1, 16, 12, 17, 16, 3, 3, 1, 2, 16);
  p.dil_h = p.dil_w = 2;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
  p = make(1, 16, 14, 26, 16, 2, 4, 3, 1, 16);
  k::conv2d_fill_output_size(p);
  check(p, seed++);
  check(make(1, 8, 11, 12, 8, 7, 7, 1, 3, 8), seed++);
  // Several bands: 8 channels of 150 columns take bands of 6 rows; stride 2 bands of 7.
  check(make(1, 8, 40, 150, 8, 3, 3, 1, 1, 8), seed++);
  check(make(1, 16, 41, 120, 16, 5, 5, 2, 2, 16), seed++);
}

// ---------------------------------------------------------------- direct conv of few channels
// At most 16 input channels (taps up to the GEMM's k-block) to 8..256 output channels: output
// channels across the lanes, 6 pixels x 2 vectors of them per register tile. Output channel
// counts that fill whole pairs of vectors or leave a partial one (a pair whose second vector lies
// past C_out), widths around the 6-pixel tile, strides, dilation, uneven and wide padding, and
// planes taking several bands of rows.
TEST(KernelsConvDirect, FewInputChannels) {
  unsigned seed = 400;
  for (size_t C : {1, 3, 4})
    for (size_t Co : {8, 12, 16, 40})
      for (size_t W : {5, 6, 7, 13, 20})
        for (size_t s : {1, 2}) check(make(2, C, 7, W, Co, 3, 3, s, 1, 1), seed++);
  check(make(1, 3, 30, 31, 64, 7, 7, 2, 3, 1), seed++);     // a 7x7 stem
  check(make(1, 3, 9, 10, 16, 1, 1, 1, 0, 1), seed++);      // 1x1
  check(make(1, 16, 9, 10, 24, 1, 1, 1, 0, 1), seed++);     // 1x1, 16 channels: the GEMM takes it
  check(make(1, 16, 11, 11, 64, 3, 3, 1, 1, 1), seed++);    // 16 channels, 3x3 (144 taps)
  check(make(1, 4, 5, 6, 256, 3, 3, 1, 1, 1), seed++);      // the most output channels
  check(make(1, 2, 6, 9, 10, 3, 3, 1, 4, 1), seed++);       // padding wider than the kernel
  check(make(1, 3, 150, 200, 16, 3, 3, 2, 1, 1), seed++);   // several bands of rows
  check(make(1, 3, 8, 12, 8, 3, 3, 2, 0, 1), seed++, true); // NaN through the taps
  k::Conv2DParams p = make(1, 3, 12, 15, 16, 3, 2, 1, 0, 1);  // dilated, rectangular, one-sided pads
  p.dil_h = 2;
  p.dil_w = 3;
  p.pad_top = 2;
  p.pad_right = 1;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
  p = make(1, 3, 9, 9, 16, 3, 3, 1, 70, 1);  // dilation 70 over pads of 70: the GEMM takes it
  p.dil_h = p.dil_w = 70;
  k::conv2d_fill_output_size(p);
  check(p, seed++);
}

// The direct path sums the taps as the implicit GEMM does (fused multiply-adds from zero in tap
// order, one k-block), so its outputs are the GEMM's bit for bit. The GEMM's side: the same conv
// with 14 more input channels (17: too many for the direct path) whose weights are zero, which
// come last in tap order and add exact zeros.
TEST(KernelsConvDirect, SameBitsAsTheGemm) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    k::Conv2DParams p3 = make(2, 3, 21, 23, 40, 3, 3, 2, 1, 1), p17 = make(2, 17, 21, 23, 40, 3, 3, 2, 1, 1);
    const size_t plane = 21 * 23;
    const auto x3 = random_vec(2 * 3 * plane, 7), w3 = random_vec(40 * 3 * 9, 8), b = random_vec(40, 9);
    const auto extra = random_vec(2 * 14 * plane, 10);
    std::vector<float> x17, w17(40 * 17 * 9, 0.f);
    for (size_t n = 0; n < 2; ++n) {
      x17.insert(x17.end(), x3.begin() + n * 3 * plane, x3.begin() + (n + 1) * 3 * plane);
      x17.insert(x17.end(), extra.begin() + n * 14 * plane, extra.begin() + (n + 1) * 14 * plane);
    }
    for (size_t oc = 0; oc < 40; ++oc) std::copy(w3.begin() + oc * 27, w3.begin() + (oc + 1) * 27, w17.begin() + oc * 153);
    for (k::Conv2DParams* p : {&p3, &p17}) {
      p->bias = b.data();
      p->act = k::Activation::Clip;
      p->act_alpha = -0.5f;
      p->act_beta = 0.5f;
    }
    std::vector<float> y3(2 * 40 * p3.H_out * p3.W_out), y17(y3.size());
    simd->conv2d(p3, x3.data(), w3.data(), y3.data());
    simd->conv2d(p17, x17.data(), w17.data(), y17.data());
    ASSERT_EQ(0, std::memcmp(y3.data(), y17.data(), y3.size() * sizeof(float))) << simd->isa;
  });
}

// ---------------------------------------------------------------- Winograd F(m x m, 3x3)
// 3x3 stride-1 ungrouped convs with >= 16 output channels and enough input channels (16, 64 on
// AVX-512: kWinogradMinCin) take the Winograd path of the SIMD tables (conv2d and
// conv2d_prepacked). The shapes below have >= 64 input channels and cover: output sizes that are not a
// multiple of the tile (partial tiles at the right and bottom), no padding, asymmetric and
// wide padding, channel counts that are not multiples of the register tile (6x16 AVX2, 8x32
// AVX-512, 8x12 NEON aarch64, 4x8 ARMv7) and that cross the 256-deep k-block and the 120/128-row block,
// batches whose tile rows span several column blocks, and outputs smaller than one tile.

namespace {
// Every SIMD table (AVX2, AVX-512, NEON) has the Winograd path. Its packed form holds 16
// transformed 3x3 filters (C_out rounded up to the ISA's register tile) per input channel; the
// GEMM form holds the 9 taps for C_out rounded up to the same tile, which stays below
// 16 * C_out * C_in for the >= 16 output channels Winograd needs (the tile is at most 8 rows:
// 16 rounds up to at most 18 and 9 * 18 < 16 * 16, and 9 * (C_out + 7) < 16 * C_out from 17 on). How many of the SIMD tables
// take the Winograd path for p.
size_t tables_taking_winograd(const k::Conv2DParams& p) {
  size_t n = 0;
  for (const k::KernelTable* t : k::simd_tables()) n += t->conv2d_packed_size(p) >= 16 * p.C_out * p.C_in;
  return n;
}
bool takes_winograd(const k::Conv2DParams& p) { return tables_taking_winograd(p) == k::simd_tables().size(); }
}  // namespace

TEST(KernelsConvWinograd, OddSizesAndBatches) {
  if (!k::simd_table()) GTEST_SKIP() << "no SIMD table on this CPU";
  const k::Conv2DParams shapes[] = {
      make(2, 64, 7, 9, 16, 3, 3, 1, 1, 1),     // odd output: partial tiles both ways
      make(1, 65, 5, 5, 23, 3, 3, 1, 0, 1),     // no padding, 3x3 output
      make(3, 72, 14, 14, 20, 3, 3, 1, 1, 1),   // batch 3, tile rows across images
      make(1, 64, 1, 1, 16, 3, 3, 1, 1, 1),     // a single pixel
      make(1, 64, 3, 2, 18, 3, 3, 1, 2, 1),     // padding wider than the kernel reach
      make(2, 64, 40, 38, 16, 3, 3, 1, 1, 1),   // several tile-row blocks, ragged last panel
  };
  unsigned seed = 20;
  for (const auto& p : shapes) {
    ASSERT_TRUE(takes_winograd(p)) << "C_in " << p.C_in << " C_out " << p.C_out;
    check(p, seed++);
  }
}

TEST(KernelsConvWinograd, ManyChannelsCrossBlocks) {
  if (!k::simd_table()) GTEST_SKIP() << "no SIMD table on this CPU";
  // C_in 300: two k-blocks of the GEMM; C_out 130: two row blocks and a partial register tile.
  const k::Conv2DParams p = make(2, 300, 6, 11, 130, 3, 3, 1, 1, 1);
  ASSERT_TRUE(takes_winograd(p));
  check(p, 30);
}

TEST(KernelsConvWinograd, AsymmetricPadding) {
  if (!k::simd_table()) GTEST_SKIP() << "no SIMD table on this CPU";
  k::Conv2DParams p = make(2, 67, 9, 12, 21, 3, 3, 1, 0, 1);
  p.pad_top = 0; p.pad_left = 2; p.pad_bottom = 1; p.pad_right = 0;
  k::conv2d_fill_output_size(p);
  ASSERT_TRUE(takes_winograd(p));
  check(p, 31);
  check(p, 32, true);  // a NaN input reaches every output whose tile reads it
}

TEST(KernelsConvWinograd, SmallChannelCountsStayOnGemm) {
  if (!k::simd_table()) GTEST_SKIP() << "no SIMD table on this CPU";
  EXPECT_EQ(tables_taking_winograd(make(1, 8, 9, 9, 32, 3, 3, 1, 1, 1)), 0u);
  // 16..63 input channels: Winograd on every table but AVX-512's.
  size_t avx512 = 0;
  for (const k::KernelTable* t : k::simd_tables()) avx512 += std::string(t->isa) == "avx512";
  EXPECT_EQ(tables_taking_winograd(make(1, 48, 9, 9, 32, 3, 3, 1, 1, 1)), k::simd_tables().size() - avx512);
  EXPECT_EQ(tables_taking_winograd(make(1, 32, 9, 9, 32, 3, 3, 2, 1, 1)), 0u);   // stride 2
  EXPECT_EQ(tables_taking_winograd(make(1, 32, 9, 9, 32, 3, 3, 1, 1, 2)), 0u);   // grouped
}

// The error the transform adds, on a ResNet-like layer (256 channels, 14 x 14, He-scaled
// weights, inputs in [-1, 1]): the max abs difference to the direct conv, computed in double,
// is compared with that of the direct float conv (the scalar reference) itself.
TEST(KernelsConvWinograd, ErrorVsDirectConv) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const k::Conv2DParams p = make(1, 256, 14, 14, 64, 3, 3, 1, 1, 1);
    ASSERT_TRUE(takes_winograd(p));
    auto x = random_vec(p.N * p.C_in * p.H * p.W, 40);
    auto w = random_vec(p.C_out * p.C_in * 9, 41);
    const float scale = std::sqrt(2.f / (p.C_in * 9)) * std::sqrt(3.f);
    for (auto& v : w) v *= scale;
    const size_t ny = p.N * p.C_out * p.H_out * p.W_out;
    std::vector<float> ref(ny), got(ny);
    k::scalar_table().conv2d(p, x.data(), w.data(), ref.data());
    std::vector<float> packed(simd->conv2d_packed_size(p));
    simd->conv2d_pack(p, w.data(), packed.data());
    simd->conv2d_prepacked(p, x.data(), packed.data(), got.data());
    double max_ref = 0, max_got = 0, max_out = 0;
    for (size_t co = 0; co < p.C_out; ++co)
      for (size_t oh = 0; oh < p.H_out; ++oh)
        for (size_t ow = 0; ow < p.W_out; ++ow) {
          double exact = 0;
          for (size_t ci = 0; ci < p.C_in; ++ci)
            for (size_t kh = 0; kh < 3; ++kh)
              for (size_t kw = 0; kw < 3; ++kw) {
                const ptrdiff_t ih = static_cast<ptrdiff_t>(oh + kh) - 1, iw = static_cast<ptrdiff_t>(ow + kw) - 1;
                if (ih < 0 || iw < 0 || ih >= static_cast<ptrdiff_t>(p.H) || iw >= static_cast<ptrdiff_t>(p.W)) continue;
                exact += static_cast<double>(x[(ci * p.H + ih) * p.W + iw]) * w[((co * p.C_in + ci) * 3 + kh) * 3 + kw];
              }
          const size_t i = (co * p.H_out + oh) * p.W_out + ow;
          max_ref = std::max(max_ref, std::fabs(ref[i] - exact));
          max_got = std::max(max_got, std::fabs(got[i] - exact));
          max_out = std::max(max_out, std::fabs(exact));
        }
    std::printf("winograd max abs err %.3g, direct float conv %.3g, max |y| %.3g\n", max_got, max_ref, max_out);
    // Measured (F(2x2,3x3)): see the comment at kM in src/kernels/simd/winograd_f2.h.
    EXPECT_LT(max_got, 2e-5 * max_out);
  });
}
