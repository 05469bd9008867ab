// ConvPost (kernels.h): every conv2d path of every table gives, bit for bit, what the conv without
// it followed by the separate kernels gives (binary_vs Mul, binary_vs Add, unary, binary_vv Mul);
// affine_vs equals its two binary_vs calls.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "support/kernel_support.h"

namespace k = ofg::kernels;

namespace {

using Gate = k::ConvPost::Gate;

// The reference and every SIMD table this CPU runs.
std::vector<const k::KernelTable*> tables() {
  std::vector<const k::KernelTable*> t{&k::scalar_table()};
  t.insert(t.end(), k::simd_tables().begin(), k::simd_tables().end());
  return t;
}

// The separate kernels after the plain conv output y ([N, C, HW]).
void post_by_ops(const k::KernelTable& t, const k::ConvPost& post, float* y, size_t N, size_t C, size_t HW) {
  std::vector<float> act(HW);
  for (size_t n = 0; n < N; ++n)
    for (size_t c = 0; c < C; ++c) {
      float* plane = y + (n * C + c) * HW;
      if (post.scale) {
        t.binary_vs(k::BinaryOp::Mul, plane, post.scale[c], plane, HW);
        t.binary_vs(k::BinaryOp::Add, plane, post.shift[c], plane, HW);
      }
      if (!post.act) continue;
      t.unary(post.op, plane, act.data(), HW, post.alpha, post.beta);
      if (post.gate == Gate::None) std::memcpy(plane, act.data(), HW * sizeof(float));
      else if (post.gate == Gate::XTimesAct) t.binary_vv(k::BinaryOp::Mul, plane, act.data(), plane, HW);
      else t.binary_vv(k::BinaryOp::Mul, act.data(), plane, plane, HW);
    }
}

struct Case {
  const char* name;
  size_t C_in, C_out, group, kH, kW, stride, pad, H, W;
};

// One per conv2d path: implicit GEMM (full and partial tiles, tiles of one column vector,
// grouped), Winograd, depthwise, a 1x1 of single pixels (matrix-vector products), the direct
// conv of few input channels, a 1x1 with N > 1 and the GEMM fallback with padding.
const Case kCases[] = {
    {"gemm 1x1", 32, 48, 1, 1, 1, 1, 0, 12, 16},
    {"gemm partial", 5, 7, 1, 3, 3, 2, 1, 9, 11},
    {"one vector 16", 8, 12, 1, 3, 3, 1, 1, 4, 4},  // 16 pixels: one vector of columns on AVX-512
    {"one vector 8", 8, 12, 1, 3, 3, 1, 1, 2, 4},   // 8 pixels: on AVX2
    {"grouped", 8, 12, 4, 3, 3, 1, 1, 8, 8},
    {"winograd", 64, 24, 1, 3, 3, 1, 1, 14, 14},
    {"depthwise", 16, 16, 16, 3, 3, 2, 1, 15, 17},
    {"depthwise 5x5", 8, 8, 8, 5, 5, 1, 2, 10, 10},
    {"pixel gemv", 40, 24, 1, 1, 1, 1, 0, 1, 1},  // the constants of a channel per lane
    // The direct conv of few input channels: whole groups of channels take the epilogue across
    // the lanes (on AVX-512 in 8-lane vectors under the 16-lane table), a partial one per plane.
    {"direct stem", 3, 40, 1, 3, 3, 2, 1, 17, 19},
    {"direct 16 in", 16, 64, 1, 3, 3, 1, 1, 9, 13},
};

std::vector<k::ConvPost> posts(const float* scale, const float* shift) {
  std::vector<k::ConvPost> out;
  auto add = [&](bool affine, bool act, k::UnaryOp op, float a, float b, Gate gate) {
    k::ConvPost p;
    if (affine) p.scale = scale, p.shift = shift;
    p.act = act;
    p.op = op;
    p.alpha = a;
    p.beta = b;
    p.gate = gate;
    out.push_back(p);
  };
  add(true, false, k::UnaryOp::Relu, 0, 0, Gate::None);
  for (bool affine : {true, false}) {
    add(affine, true, k::UnaryOp::Relu, 0, 0, Gate::None);
    add(affine, true, k::UnaryOp::Clip, 0.f, 6.f, Gate::None);
    add(affine, true, k::UnaryOp::Clip, -0.25f, 0.5f, Gate::None);
    add(affine, true, k::UnaryOp::LeakyRelu, 0.1f, 0, Gate::None);
    add(affine, true, k::UnaryOp::Sigmoid, 0, 0, Gate::None);
    add(affine, true, k::UnaryOp::HardSigmoid, 0.2f, 0.5f, Gate::None);
    add(affine, true, k::UnaryOp::Tanh, 0, 0, Gate::None);
    add(affine, true, k::UnaryOp::Sigmoid, 0, 0, Gate::XTimesAct);
    add(affine, true, k::UnaryOp::Sigmoid, 0, 0, Gate::ActTimesX);
    add(affine, true, k::UnaryOp::HardSigmoid, 1.f / 6, 0.5f, Gate::XTimesAct);
    add(affine, true, k::UnaryOp::Clip, -1.f, 1.f, Gate::ActTimesX);
  }
  return out;
}

}  // namespace

TEST(KernelsConvPost, EveryPathMatchesTheSeparateKernels) {
  for (const k::KernelTable* t : tables())
    for (const Case& c : kCases)
      for (bool bias : {true, false}) {
        k::Conv2DParams p;
        p.N = 2; p.C_in = c.C_in; p.C_out = c.C_out; p.group = c.group; p.kH = c.kH; p.kW = c.kW;
        p.stride_h = p.stride_w = c.stride;
        p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = c.pad;
        p.H = c.H; p.W = c.W;
        k::conv2d_fill_output_size(p);
        const size_t HWo = p.H_out * p.W_out, ny = p.N * p.C_out * HWo;
        const auto x = ofg::test::rnd(p.N * p.C_in * p.H * p.W, -3.f, 3.f, 1);
        const auto w = ofg::test::rnd(p.C_out * (p.C_in / p.group) * p.kH * p.kW, -0.5f, 0.5f, 2);
        const auto b = ofg::test::rnd(p.C_out, -1.f, 1.f, 3);
        const auto scale = ofg::test::rnd(p.C_out, -2.f, 2.f, 4), shift = ofg::test::rnd(p.C_out, -1.f, 1.f, 5);
        p.bias = bias ? b.data() : nullptr;
        std::vector<float> plain(ny);
        t->conv2d(p, x.data(), w.data(), plain.data());
        const size_t packed_n = t->conv2d_packed_size(p);
        std::vector<float> packed(packed_n);
        if (packed_n) t->conv2d_pack(p, w.data(), packed.data());
        for (const k::ConvPost& post : posts(scale.data(), shift.data())) {
          SCOPED_TRACE(std::string(t->isa) + " " + c.name + (bias ? " bias" : "") + " op " +
                       std::to_string(static_cast<int>(post.op)) + " gate " + std::to_string(static_cast<int>(post.gate)) +
                       (post.scale ? " affine" : ""));
          std::vector<float> want = plain, got(ny), got_packed(ny);
          post_by_ops(*t, post, want.data(), p.N, p.C_out, HWo);
          k::Conv2DParams q = p;
          q.post = &post;
          t->conv2d(q, x.data(), w.data(), got.data());
          ASSERT_EQ(std::memcmp(got.data(), want.data(), ny * sizeof(float)), 0);
          if (!packed_n) continue;
          t->conv2d_prepacked(q, x.data(), packed.data(), got_packed.data());
          ASSERT_EQ(std::memcmp(got_packed.data(), want.data(), ny * sizeof(float)), 0);
        }
      }
}

// Special values, lengths around the vector width, both tables.
TEST(KernelsConvPost, AffineIsMultiplyThenAdd) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x{nan, inf, -inf, 0.f, -0.f, 1e-40f, -1e-40f, 3e38f, -3e38f, 1.f, -1.f, 0.1f, 1e-38f};
  const auto more = ofg::test::rnd(40, -100.f, 100.f, 9);
  x.insert(x.end(), more.begin(), more.end());
  for (const k::KernelTable* t : tables())
    for (float a : {0.3f, -2.f, 1e-3f, 1e30f, 0.f})
      for (float b : {0.7f, -1e-39f, inf, 0.f})
        for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{17}, x.size()}) {
          std::vector<float> want(n), got(n);
          t->binary_vs(k::BinaryOp::Mul, x.data(), a, want.data(), n);
          t->binary_vs(k::BinaryOp::Add, want.data(), b, want.data(), n);
          t->affine_vs(x.data(), a, b, got.data(), n);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(float)), 0) << t->isa << " a " << a << " b " << b << " n " << n;
        }
}
