// Every entry of kernels/kernel_list.h that a SIMD table overrides, compared with the scalar
// entry on random and edge-case inputs: one test per (table, entry), named isa_entry. The list
// of entries is read from kernel_list.h itself, so an entry added there and overridden by an ISA
// fails here until this file has a comparator for it. Entries a table leaves scalar do no work.
//
// Sizes walk the vector widths and their tails (4 lanes on 32-bit ARM, 8 on AVX2, 16 on
// AVX-512, register tiles of 6 to 8 rows). Bit-exact where kernel_list.h says so (integer and
// quantization kernels, conversions, hashing, comparing, transposes, the "bit for bit" entries)
// or the arithmetic is one IEEE operation per element; otherwise a bound given beside the check.
#include "kernels/kernels.h"
#include "support/kernel_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace k = ofg::kernels;
using ofg::test::expect_close;
using ofg::test::rnd;

namespace {

// ------------------------------------------------------------------ the entries, from the list

struct ListedKernel {
  const char* name;
  bool (*is_null)(const k::KernelTable&);
  bool (*is_scalar)(const k::KernelTable&);  // the scalar table's function
};

const ListedKernel kListed[] = {
#define OFG_KERNEL(ret, name, params)                                    \
  {#name, [](const k::KernelTable& t) { return t.name == nullptr; },      \
   [](const k::KernelTable& t) { return t.name == k::scalar_table().name; }},
#include "kernels/kernel_list.h"
#undef OFG_KERNEL
};

// ------------------------------------------------------------------ inputs

const size_t kSizes[] = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100};

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Values every float kernel should treat as the reference does. 32-bit ARM NEON flushes
// subnormals to zero (kernels_math_test's KernelsSubnormals covers that), so they are left out there.
std::vector<float> edge_values() {
  std::vector<float> v = {0.f, -0.f, kInf, -kInf, kNaN, 1.f, -1.f, 0.5f, -2.5f, 88.7f, -87.3f, -104.f, 100.f, -100.f};
#if !(defined(__arm__) && !defined(__aarch64__))
  for (float d : {std::numeric_limits<float>::denorm_min(), -3 * std::numeric_limits<float>::denorm_min(), 1e-39f,
                  -1e-39f})
    v.push_back(d);
#endif
  return v;
}

// n random values in [lo, hi) with the edge values written over every fifth element.
std::vector<float> with_edges(size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> x = rnd(n, lo, hi, seed);
  const std::vector<float> e = edge_values();
  for (size_t i = 0; i < n; i += 5) x[i] = e[(i / 5 + seed) % e.size()];
  return x;
}

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

std::string what(const char* entry, std::initializer_list<size_t> sizes) {
  std::string s = entry;
  for (size_t v : sizes) s += " " + std::to_string(v);
  return s;
}

// Same bytes; on a difference, the first differing element of elem bytes. (Empty vectors may
// hold null pointers, which memcmp must not be given even for 0 bytes.)
void expect_same_bytes(const void* got, const void* want, size_t bytes, size_t elem, const std::string& at) {
  if (bytes == 0 || std::memcmp(got, want, bytes) == 0) return;
  size_t i = 0;
  while (std::memcmp(static_cast<const char*>(got) + i, static_cast<const char*>(want) + i, elem) == 0) i += elem;
  ADD_FAILURE() << at << ": differs from the scalar entry at element " << i / elem;
}

template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const std::string& at) {
  ASSERT_EQ(got.size(), want.size()) << at;
  expect_same_bytes(got.data(), want.data(), got.size() * sizeof(T), sizeof(T), at);
}

const k::KernelTable& ref() { return k::scalar_table(); }

// ------------------------------------------------------------------ matrix products

// A K-term dot product of values in [-1, 1], summed in another order and with or without fused
// multiply-adds: each table's error is at most about K * 2^-24 times the magnitude of the terms.
float dot_tol(size_t K, float alpha) { return 4e-7f * static_cast<float>(K + 4) * (std::fabs(alpha) + 1.f); }

void check_sgemm(const k::KernelTable& t) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (size_t M : {1, 5, 6, 7, 9, 17})
        for (size_t N : kSizes)
          for (size_t K : {0, 1, 7, 33}) {
            const float alpha = 1.5f, beta = K == 7 ? 0.f : 0.5f;
            const size_t lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 3, ldc = N + 2;
            auto A = rnd((ta ? K : M) * lda, -1, 1, 1), B = rnd((tb ? N : K) * ldb, -1, 1, 2);
            // beta == 0: C is not read, so NaN there must not show.
            auto want = beta == 0.f ? std::vector<float>(M * ldc, kNaN) : rnd(M * ldc, -1, 1, 3);
            auto got = want;
            ref().sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, want.data(), ldc);
            t.sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, got.data(), ldc);
            expect_close(got, want, dot_tol(K, alpha), 0.f, what("sgemm M N K", {M, N, K}).c_str());
          }
}

// The packed-B trio as one: the table's packed product is its own sgemm bit for bit (the
// contract) and near the scalar sgemm. A size of 0 says the table has no packed form.
void check_sgemm_packed(const k::KernelTable& t) {
  for (size_t M : {1, 6, 7, 13})
    for (size_t N : kSizes)
      for (size_t K : {1, 8, 17, 100}) {
        const size_t floats = t.sgemm_packed_b_size(K, N);
        if (floats == 0) continue;
        auto A = rnd(M * K, -1, 1, 4), B = rnd(K * N, -1, 1, 5);
        std::vector<float> buf;
        float* packed = ofg::test::aligned_floats(buf, floats);
        t.sgemm_pack_b(K, N, B.data(), N, packed);
        auto start = rnd(M * N, -1, 1, 6);
        auto got = start, own = start, want = start;
        t.sgemm_prepacked_b(M, N, K, A.data(), K, packed, 0.5f, got.data(), N);
        t.sgemm(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.5f, own.data(), N);
        ref().sgemm(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.5f, want.data(), N);
        expect_same(got, own, what("sgemm_prepacked_b vs own sgemm M N K", {M, N, K}));
        expect_close(got, want, dot_tol(K, 1.f), 0.f, what("sgemm_prepacked_b M N K", {M, N, K}).c_str());
      }
}

void check_sgemv(const k::KernelTable& t) {
  for (size_t M : kSizes)
    for (size_t K : kSizes) {
      const size_t lda = K + 3;
      auto A = rnd(M * lda, -1, 1, 7), x = rnd(K, -1, 1, 8);
      for (float beta : {0.f, 0.75f}) {
        auto want = beta == 0.f ? std::vector<float>(M, kNaN) : rnd(M, -1, 1, 9);
        auto got = want;
        ref().sgemv(M, K, 2.f, A.data(), lda, x.data(), beta, want.data());
        t.sgemv(M, K, 2.f, A.data(), lda, x.data(), beta, got.data());
        expect_close(got, want, dot_tol(K, 2.f), 0.f, what("sgemv M K", {M, K}).c_str());
      }
    }
}

void check_sgemv_t(const k::KernelTable& t) {
  for (size_t K : kSizes)
    for (size_t N : {0, 1, 7, 8, 9, 16, 17, 63, 64, 65, 130}) {
      const size_t ldb = N + 5;
      auto B = rnd(K * ldb, -1, 1, 10), x = rnd(K, -1, 1, 11);
      for (float beta : {0.f, 0.75f}) {
        auto want = beta == 0.f ? std::vector<float>(N, kNaN) : rnd(N, -1, 1, 12);
        auto got = want;
        ref().sgemv_t(K, N, 2.f, x.data(), B.data(), ldb, beta, want.data());
        t.sgemv_t(K, N, 2.f, x.data(), B.data(), ldb, beta, got.data());
        expect_close(got, want, dot_tol(K, 2.f), 0.f, what("sgemv_t K N", {K, N}).c_str());
      }
    }
}

// Exact in int32 (the contract), so bit for bit: every signedness, zero points within the type.
void check_igemm(const k::KernelTable& t) {
  std::mt19937 rng(13);
  for (bool as : {false, true})
    for (bool bs : {false, true})
      for (size_t M : {1, 4, 5, 6, 7, 13})
        for (size_t N : kSizes)
          for (size_t K : {0, 1, 3, 4, 5, 17, 64, 100}) {
            const size_t lda = K + 1, ldb = N + 2, ldc = N + 3;
            auto A = random_bytes(M * lda, 14), B = random_bytes(K * ldb, 15);
            std::vector<int32_t> za(M), zb(N);
            for (auto& z : za) z = as ? int32_t(rng() % 256) - 128 : int32_t(rng() % 256);
            for (auto& z : zb) z = bs ? int32_t(rng() % 256) - 128 : int32_t(rng() % 256);
            std::vector<int32_t> want(M * ldc, -7), got = want;
            ref().igemm(M, N, K, A.data(), lda, as, za.data(), B.data(), ldb, bs, zb.data(), want.data(), ldc);
            t.igemm(M, N, K, A.data(), lda, as, za.data(), B.data(), ldb, bs, zb.data(), got.data(), ldc);
            expect_same(got, want, what("igemm signed a b, M N K", {as, bs, M, N, K}));
          }
}

// The packed-B trio as one: a size of 0 says the table has no packed form; else the packed product
// is the scalar igemm bit for bit (exact in int32), B of both signednesses, zero points per column.
void check_igemm_packed(const k::KernelTable& t) {
  std::mt19937 rng(16);
  for (bool as : {false, true})
    for (bool bs : {false, true})
      for (size_t M : {1, 5, 6, 7, 13})
        for (size_t N : kSizes)
          for (size_t K : {1, 3, 4, 5, 17, 100}) {
            const size_t bytes = t.igemm_packed_b_size(K, N);
            if (bytes == 0) continue;
            const size_t lda = K + 1, ldb = N + 2, ldc = N + 3;
            auto A = random_bytes(M * lda, 17), B = random_bytes(K * ldb, 18);
            std::vector<int32_t> za(M), zb(N);
            for (auto& z : za) z = as ? int32_t(rng() % 256) - 128 : int32_t(rng() % 256);
            for (auto& z : zb) z = bs ? int32_t(rng() % 256) - 128 : int32_t(rng() % 256);
            std::vector<float> buf;
            auto* packed = reinterpret_cast<uint8_t*>(ofg::test::aligned_floats(buf, (bytes + 3) / 4));
            t.igemm_pack_b(K, N, B.data(), ldb, bs, packed);
            std::vector<int32_t> want(M * ldc, -7), got = want;
            ref().igemm(M, N, K, A.data(), lda, as, za.data(), B.data(), ldb, bs, zb.data(), want.data(), ldc);
            t.igemm_prepacked_b(M, N, K, A.data(), lda, as, za.data(), packed, bs, zb.data(), got.data(), ldc);
            expect_same(got, want, what("igemm_prepacked_b signed a b, M N K", {as, bs, M, N, K}));
          }
}

void check_dw_row_i16(const k::KernelTable& t) {
  std::mt19937 rng(16);
  auto i16 = [&] { return static_cast<int16_t>(int(rng() % 511) - 255); };
  for (size_t ntaps : {1, 2, 3, 9, 25})
    for (size_t stride : {1, 2})
      for (size_t n : kSizes) {
        std::vector<std::vector<int16_t>> rows(ntaps, std::vector<int16_t>(n * stride + 1));
        std::vector<const int16_t*> ptrs;
        for (auto& r : rows) {
          for (auto& v : r) v = i16();
          ptrs.push_back(r.data());
        }
        std::vector<int16_t> taps(ntaps);
        for (auto& v : taps) v = i16();
        std::vector<int32_t> want(n + 1, 5), got = want;
        ref().dw_row_i16(ptrs.data(), taps.data(), ntaps, stride, n, want.data());
        t.dw_row_i16(ptrs.data(), taps.data(), ntaps, stride, n, got.data());
        expect_same(got, want, what("dw_row_i16 ntaps stride n", {ntaps, stride, n}));
      }
}

// ------------------------------------------------------------------ quantization (exact)

void check_quantize_u8(const k::KernelTable& t) {
  for (size_t n : kSizes)
    for (bool sgn : {false, true}) {
      const float scale = 0.02f, zero = sgn ? -3.f : 128.f;
      auto x = with_edges(n, -4.f, 4.f, 17);
      for (size_t i = 2; i < n; i += 7) x[i] = (static_cast<float>(i % 11) + 0.5f) * scale;  // ties
      std::vector<uint8_t> want(n + 1, 0xAB), got = want;
      ref().quantize_u8(x.data(), n, scale, zero, sgn, want.data());
      t.quantize_u8(x.data(), n, scale, zero, sgn, got.data());
      expect_same(got, want, what("quantize_u8 n signed", {n, sgn}));
    }
}

void check_dequantize_u8(const k::KernelTable& t) {
  for (size_t n : kSizes)
    for (bool sgn : {false, true}) {
      auto x = random_bytes(n, 18);
      std::vector<float> want(n + 1, 3.f), got = want;
      ref().dequantize_u8(x.data(), n, sgn, sgn ? -5 : 130, 0.037f, want.data());
      t.dequantize_u8(x.data(), n, sgn, sgn ? -5 : 130, 0.037f, got.data());
      expect_same(got, want, what("dequantize_u8 n signed", {n, sgn}));
    }
}

void check_requantize_u8(const k::KernelTable& t) {
  std::mt19937 rng(19);
  for (size_t n : kSizes)
    for (bool sgn : {false, true}) {
      std::vector<int32_t> acc(n);
      for (auto& a : acc) a = static_cast<int32_t>(rng() % 400001) - 200000;
      if (n > 2) acc[1] = std::numeric_limits<int32_t>::max(), acc[2] = std::numeric_limits<int32_t>::min();
      std::vector<uint8_t> want(n + 1, 0xCD), got = want;
      ref().requantize_u8(acc.data(), n, 17.0, 0.00081, sgn ? 3 : 120, sgn, want.data());
      t.requantize_u8(acc.data(), n, 17.0, 0.00081, sgn ? 3 : 120, sgn, got.data());
      expect_same(got, want, what("requantize_u8 n signed", {n, sgn}));
    }
  // A float multiplier (the kernels' float lanes) over several 64-value blocks: rounding ties,
  // both clamps, and in some blocks one accumulator beyond 2^23 (the block takes the exact path).
  const double fmult = static_cast<float>(0.0625);
  for (size_t n : {64, 200, 333})
    for (bool sgn : {false, true})
      for (double bias : {0.0, -1000.0, 8388609.0}) {
        std::vector<int32_t> acc(n);
        for (size_t i = 0; i < n; ++i)
          acc[i] = i % 5 == 0 ? static_cast<int32_t>(16 * (i % 64)) - 512 + 8  // exact .5 ties after the scale
                              : static_cast<int32_t>(rng() % 8001) - 4000;
        if (n > 100) acc[70] = 1 << 23, acc[140] = -(1 << 23) - 1;
        std::vector<uint8_t> want(n + 1, 0xCD), got = want;
        ref().requantize_u8(acc.data(), n, bias, fmult, sgn ? -5 : 128, sgn, want.data());
        t.requantize_u8(acc.data(), n, bias, fmult, sgn ? -5 : 128, sgn, got.data());
        expect_same(got, want, what("requantize_u8 float mult n signed", {n, sgn}));
      }
}

// ------------------------------------------------------------------ convolution and pooling

k::Conv2DParams conv(size_t C, size_t H, size_t W, size_t Co, size_t kh, size_t kw, size_t s, size_t pad, size_t g,
                     size_t dil) {
  k::Conv2DParams p;
  p.N = 2, p.C_in = C, p.H = H, p.W = W, p.C_out = Co, p.kH = kh, p.kW = kw, p.group = g;
  p.stride_h = p.stride_w = s;
  p.pad_top = p.pad_left = pad, p.pad_bottom = p.pad_right = pad;
  p.dil_h = p.dil_w = dil;
  k::conv2d_fill_output_size(p);
  return p;
}

// The paths the SIMD tables choose between: 1x1, 3x3 stride 1 (direct or Winograd), strided,
// dilated, grouped, depthwise, widths around the vector widths.
std::vector<k::Conv2DParams> conv_cases() {
  std::vector<k::Conv2DParams> v;
  for (size_t W : {1, 7, 9, 17, 33}) {
    v.push_back(conv(5, 6, W, 7, 1, 1, 1, 0, 1, 1));
    v.push_back(conv(4, 9, W, 16, 3, 3, 1, 1, 1, 1));
    v.push_back(conv(3, 8, W, 9, 3, 3, 2, 1, 1, 1));
    v.push_back(conv(8, 7, W, 8, 3, 3, 1, 1, 8, 1));
    v.push_back(conv(6, 9, W, 4, 5, 3, 1, 2, 2, 2));
  }
  v.push_back(conv(32, 14, 14, 40, 3, 3, 1, 1, 1, 1));
  v.push_back(conv(24, 10, 10, 24, 5, 5, 2, 2, 24, 1));
  return v;
}

// Sums of up to a few hundred products of values in [-1, 1], Winograd's transforms included:
// the bound of kernels_conv_test.
constexpr float kConvTol = 1e-4f;

void check_conv2d(const k::KernelTable& t) {
  unsigned seed = 20;
  for (k::Conv2DParams p : conv_cases()) {
    auto x = rnd(p.N * p.C_in * p.H * p.W, -1, 1, ++seed), b = rnd(p.C_out, -1, 1, ++seed);
    auto w = rnd(p.C_out * (p.C_in / p.group) * p.kH * p.kW, -1, 1, ++seed);
    for (k::Activation a : {k::Activation::None, k::Activation::Relu, k::Activation::Silu}) {
      p.act = a;
      p.bias = a == k::Activation::Relu ? nullptr : b.data();
      std::vector<float> want(p.N * p.C_out * p.H_out * p.W_out), got(want.size());
      ref().conv2d(p, x.data(), w.data(), want.data());
      t.conv2d(p, x.data(), w.data(), got.data());
      expect_close(got, want, kConvTol, kConvTol, what("conv2d C H W Co k s g", {p.C_in, p.H, p.W, p.C_out, p.kH,
                                                                               p.stride_h, p.group}).c_str());
    }
  }
}

// N-D convolution (1-3 spatial axes): strides, dilations, asymmetric padding (output positions
// that read only padding), groups, a 1x1x1 kernel, bias and each activation.
void check_conv_nd(const k::KernelTable& t) {
  struct Case {
    size_t rank, N, C_in, C_out, group, in[3], k[3], st[3], dl[3], pb[3], pe[3];
    k::Activation act;
  };
  const Case cases[] = {
      {3, 1, 4, 8, 1, {6, 7, 9}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, k::Activation::None},
      {3, 2, 6, 4, 2, {5, 8, 8}, {3, 2, 3}, {2, 1, 2}, {1, 2, 1}, {1, 0, 1}, {2, 1, 0}, k::Activation::Relu},
      {3, 1, 3, 3, 3, {4, 5, 17}, {1, 3, 3}, {1, 2, 1}, {1, 1, 2}, {0, 1, 2}, {0, 1, 2}, k::Activation::Sigmoid},
      {3, 1, 16, 5, 1, {3, 4, 4}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, k::Activation::Clip},
      {3, 1, 2, 2, 1, {2, 2, 2}, {2, 2, 2}, {3, 3, 3}, {1, 1, 1}, {3, 3, 3}, {3, 3, 3}, k::Activation::LeakyRelu},
      {2, 1, 5, 7, 1, {9, 33, 1}, {3, 3, 1}, {2, 1, 1}, {1, 1, 1}, {1, 1, 0}, {0, 1, 0}, k::Activation::None},
      {1, 2, 4, 6, 2, {40, 1, 1}, {5, 1, 1}, {1, 1, 1}, {3, 1, 1}, {6, 0, 0}, {6, 0, 0}, k::Activation::Relu},
      // More output lines than one im2col block holds (conv_gemm.cpp): 16 blocks; with groups,
      // batch 2, strides and a ragged last block
      {3, 1, 8, 6, 1, {6, 40, 40}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, k::Activation::None},
      {3, 2, 8, 4, 2, {7, 31, 50}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, k::Activation::Relu},
  };
  unsigned seed = 60;
  for (const Case& c : cases) {
    k::ConvNdParams q;
    q.rank = c.rank; q.N = c.N; q.C_in = c.C_in; q.C_out = c.C_out; q.group = c.group;
    size_t in_sz = 1, out_sz = 1, k_sz = 1;
    for (size_t i = 0; i < c.rank; ++i) {
      q.in[i] = c.in[i]; q.kernel[i] = c.k[i]; q.stride[i] = c.st[i]; q.dilation[i] = c.dl[i]; q.pad_begin[i] = c.pb[i];
      q.out[i] = (c.in[i] + c.pb[i] + c.pe[i] - c.dl[i] * (c.k[i] - 1) - 1) / c.st[i] + 1;
      in_sz *= c.in[i], out_sz *= q.out[i], k_sz *= c.k[i];
    }
    auto x = rnd(c.N * c.C_in * in_sz, -1, 1, ++seed), b = rnd(c.C_out, -1, 1, ++seed);
    auto w = rnd(c.C_out * (c.C_in / c.group) * k_sz, -1, 1, ++seed);
    q.bias = b.data();
    q.act = c.act;
    q.act_alpha = c.act == k::Activation::Clip ? -0.2f : 0.1f;
    q.act_beta = 0.3f;
    std::vector<float> want(c.N * c.C_out * out_sz), got(want.size(), NAN);
    ref().conv_nd(q, x.data(), w.data(), want.data());
    t.conv_nd(q, x.data(), w.data(), got.data());
    expect_close(got, want, kConvTol, kConvTol, what("conv_nd rank C Co g", {c.rank, c.C_in, c.C_out, c.group}).c_str());
  }
}

// The packed trio as one: conv2d_prepacked is the table's own conv2d (the contract says equal)
// and so near the scalar one; a size of 0 says this table has no packed form for p.
void check_conv2d_packed(const k::KernelTable& t) {
  unsigned seed = 40;
  size_t packed_cases = 0;
  for (const k::Conv2DParams& p : conv_cases()) {
    const size_t floats = t.conv2d_packed_size(p);
    if (floats == 0) continue;
    ++packed_cases;
    auto x = rnd(p.N * p.C_in * p.H * p.W, -1, 1, ++seed);
    auto w = rnd(p.C_out * (p.C_in / p.group) * p.kH * p.kW, -1, 1, ++seed);
    std::vector<float> buf;
    float* packed = ofg::test::aligned_floats(buf, floats);
    t.conv2d_pack(p, w.data(), packed);
    std::vector<float> got(p.N * p.C_out * p.H_out * p.W_out), own(got.size()), want(got.size());
    t.conv2d_prepacked(p, x.data(), packed, got.data());
    t.conv2d(p, x.data(), w.data(), own.data());
    ref().conv2d(p, x.data(), w.data(), want.data());
    const std::string at =
        what("conv2d_prepacked C H W Co k s g", {p.C_in, p.H, p.W, p.C_out, p.kH, p.stride_h, p.group});
    expect_same(got, own, at + " vs own conv2d");
    expect_close(got, want, kConvTol, kConvTol, at.c_str());
  }
  EXPECT_GT(packed_cases, 0u) << t.isa << " overrides the packed convolution but packs none of the cases";
}

std::vector<k::Pool2DParams> pool_cases() {
  std::vector<k::Pool2DParams> v;
  for (size_t W : {1, 7, 8, 9, 17, 33})
    for (size_t kk : {1, 2, 3})
      for (size_t s : {1, 2}) {
        k::Pool2DParams p;
        p.N = 2, p.C = 3, p.H = 6, p.W = W, p.kH = p.kW = kk, p.stride_h = p.stride_w = s;
        p.pad_top = p.pad_left = kk / 2, p.pad_bottom = p.pad_right = kk > 1 ? 1 : 0;
        p.count_include_pad = s == 2;
        p.H_out = (p.H + p.pad_top + p.pad_bottom - kk) / s + 1;
        p.W_out = (p.W + p.pad_left + p.pad_right - kk) / s + 1;
        v.push_back(p);
      }
  return v;
}

// Max takes one of its inputs: equal values. The average sums at most 9 values in [-1, 1] in
// some order and divides once: within 1e-6 per window element (kernels_pool_test's bound).
void check_pool(const k::KernelTable& t, bool max) {
  for (const k::Pool2DParams& p : pool_cases()) {
    auto x = with_edges(p.N * p.C * p.H * p.W, -1, 1, 50);
    std::vector<float> want(p.N * p.C * p.H_out * p.W_out), got(want.size());
    (max ? ref().max_pool2d : ref().avg_pool2d)(p, x.data(), want.data());
    (max ? t.max_pool2d : t.avg_pool2d)(p, x.data(), got.data());
    const float tol = max ? 0.f : 1e-6f * static_cast<float>(p.kH * p.kW);
    const std::string at = what(max ? "max_pool2d W k s" : "avg_pool2d W k s", {p.W, p.kH, p.stride_h});
    expect_close(got, want, tol, tol, at.c_str());
  }
}

// ------------------------------------------------------------------ elementwise

// One IEEE operation per element (Pow goes through the scalar function on every ISA): equal
// values, NaN where the reference has NaN.
void check_binary(const k::KernelTable& t, int form) {
  for (size_t n : kSizes)
    for (int o = 0; o <= static_cast<int>(k::BinaryOp::Pow); ++o) {
      const auto op = static_cast<k::BinaryOp>(o);
      auto a = with_edges(n, -3, 3, 51), b = with_edges(n, -3, 3, 52);
      for (float s : {2.f, -0.5f, kNaN}) {
        std::vector<float> want(n), got(n);
        for (const k::KernelTable* u : {&ref(), &t}) {
          float* y = u == &t ? got.data() : want.data();
          if (form == 0) u->binary_vv(op, a.data(), b.data(), y, n);
          if (form == 1) u->binary_vs(op, a.data(), s, y, n);
          if (form == 2) u->binary_sv(op, s, b.data(), y, n);
        }
        expect_close(got, want, 0.f, 0.f, what("binary form op n", {size_t(form), size_t(o), n}).c_str());
      }
    }
}

// Bit for bit with binary_vs Mul then Add (the contract), so with the scalar entry.
void check_affine_vs(const k::KernelTable& t) {
  for (size_t n : kSizes) {
    auto x = with_edges(n, -3, 3, 53);
    std::vector<float> want(n), got(n), y(n);
    ref().affine_vs(x.data(), 1.37f, -0.21f, want.data(), n);
    t.affine_vs(x.data(), 1.37f, -0.21f, got.data(), n);
    expect_close(got, want, 0.f, 0.f, what("affine_vs n", {n}).c_str());
    y = x;
    t.affine_vs(y.data(), 1.37f, -0.21f, y.data(), n);  // y == x is allowed
    expect_close(y, want, 0.f, 0.f, what("affine_vs in place n", {n}).c_str());
  }
}

bool exact_unary(k::UnaryOp op) {
  switch (op) {
    case k::UnaryOp::Relu: case k::UnaryOp::LeakyRelu: case k::UnaryOp::Clip: case k::UnaryOp::Abs:
    case k::UnaryOp::Neg: case k::UnaryOp::Floor: case k::UnaryOp::Ceil: case k::UnaryOp::Round:
      return true;
    default:
      return false;
  }
}

// Exact ops: equal values. Sqrt and Reciprocal: a vector square root or division may differ in
// the last bit (2e-7 relative, as in kernels_math_test). HardSigmoid and HardSwish compute
// alpha x + beta, which a fused multiply-add forms with one rounding less: where the result is
// not clamped |alpha x| < 1.5, so the two differ by about half an ulp of 1.5 (6e-8) absolute,
// times |x| <= 3 for HardSwish's product, plus the last rounding: 4e-7 absolute. The
// approximations (exp, log, tanh, sigmoid, erf, GELU, softplus, SiLU):
// KernelsUnary.ApproximationErrorBounds holds both the scalar and every SIMD table to 2e-6
// absolute and 8e-7 relative where |y| >= 1 against libm in double, so they differ by at most
// the sum of the two.
void check_unary(const k::KernelTable& t) {
  for (size_t n : kSizes)
    for (int o = 0; o <= static_cast<int>(k::UnaryOp::Round); ++o) {
      const auto op = static_cast<k::UnaryOp>(o);
      auto x = with_edges(n, -8, 8, 54 + static_cast<unsigned>(n));
      for (size_t i = 3; i < n; i += 5) x[i] = std::round(x[i] * 2) / 2;  // halves, for Round
      const float alpha = op == k::UnaryOp::Clip ? -1.5f : 0.2f, beta = op == k::UnaryOp::Clip ? 2.5f : 0.5f;
      std::vector<float> want(n), got(n);
      ref().unary(op, x.data(), want.data(), n, alpha, beta);
      t.unary(op, x.data(), got.data(), n, alpha, beta);
      const bool root = op == k::UnaryOp::Sqrt || op == k::UnaryOp::Reciprocal;
      const bool hard = op == k::UnaryOp::HardSigmoid || op == k::UnaryOp::HardSwish;
      const float atol = exact_unary(op) || root ? 0.f : hard ? 4e-7f : 4e-6f;
      const float rtol = exact_unary(op) || hard ? 0.f : root ? 2e-7f : 1.6e-6f;
      expect_close(got, want, atol, rtol, what("unary op n", {size_t(o), n}).c_str());
    }
}

// Inputs in [0.5, 1.5] (positive, so Prod, L1, LogSum stay well conditioned) summed in another
// order: 1e-6 relative per 64 terms, kernels_math_test's bound. Then NaN, which every op keeps.
void check_reduce(const k::KernelTable& t) {
  for (size_t len : kSizes)
    for (size_t inner : {1, 3, 17})
      for (bool nan : {false, true})
        for (int o = 0; o <= static_cast<int>(k::ReduceOp::LogSumExp); ++o) {
          const auto op = static_cast<k::ReduceOp>(o);
          const size_t outer = 3;
          auto x = rnd(outer * len * inner, 0.5f, 1.5f, 60);
          if (nan && !x.empty()) x[x.size() / 2] = kNaN;
          std::vector<float> want(outer * inner), got(want.size());
          ref().reduce(op, x.data(), want.data(), outer, len, inner);
          t.reduce(op, x.data(), got.data(), outer, len, inner);
          const float tol = 1e-6f * (1.f + static_cast<float>(len) / 64.f);
          expect_close(got, want, tol, tol, what("reduce op len inner nan", {size_t(o), len, inner, nan}).c_str());
        }
}

// kernels_math_test's bounds: the vector exp (3e-7 relative) and another summation order give
// 1e-6 relative on each probability; log-softmax 2e-6 relative to max(1, |y|). A -inf score (a
// masked position) gives exactly 0 / -inf everywhere.
void check_softmax(const k::KernelTable& t) {
  for (size_t len : kSizes) {
    if (len == 0) continue;
    // inner 19 and 37: whole vectors of columns plus a padded rest on every vector width.
    for (size_t inner : {1, 5, 19, 37})
      for (bool log : {false, true}) {
        const size_t outer = 4;
        auto x = rnd(outer * len * inner, -30, 30, 61);
        x[0] = -kInf;
        std::vector<float> want(x.size()), got(x.size());
        ref().softmax(x.data(), want.data(), outer, len, inner, log);
        t.softmax(x.data(), got.data(), outer, len, inner, log);
        expect_close(got, want, log ? 2e-6f : 1e-9f, log ? 2e-6f : 1e-6f,
                     what("softmax len inner log", {len, inner, log}).c_str());
      }
  }
}

// Mean and variance summed in another order: kernels_math_test's bounds for values in [-3, 5].
void check_layer_norm(const k::KernelTable& t) {
  for (size_t D : kSizes) {
    if (D == 0) continue;
    const size_t rows = 3;
    auto x = rnd(rows * D, -3, 5, 62), sc = rnd(D, 0.5f, 1.5f, 63), bi = rnd(D, -1, 1, 64);
    std::vector<float> want(x.size()), got(x.size()), m0(rows), m1(rows), s0(rows), s1(rows);
    ref().layer_norm(x.data(), sc.data(), bi.data(), want.data(), rows, D, 1e-5f, m0.data(), s0.data());
    t.layer_norm(x.data(), sc.data(), bi.data(), got.data(), rows, D, 1e-5f, m1.data(), s1.data());
    const std::string at = what("layer_norm D", {D});
    expect_close(got, want, 2e-5f, 0.f, at.c_str());
    expect_close(m1, m0, 1e-5f, 0.f, (at + " mean").c_str());
    expect_close(s1, s0, 0.f, 1e-5f, (at + " inv_std").c_str());
    ref().layer_norm(x.data(), sc.data(), nullptr, want.data(), rows, D, 1e-5f, nullptr, nullptr);
    t.layer_norm(x.data(), sc.data(), nullptr, got.data(), rows, D, 1e-5f, nullptr, nullptr);
    expect_close(got, want, 2e-5f, 0.f, (at + " without bias").c_str());
  }
}

// ------------------------------------------------------------------ bytes (exact)

void check_transpose2d(const k::KernelTable& t) {
  for (size_t elem : {1, 2, 4, 8})
    for (size_t rows : kSizes)
      for (size_t cols : {0, 1, 3, 4, 7, 8, 9, 16, 17, 33}) {
        const size_t src_ld = cols + 1, dst_ld = rows + 2;
        // One byte past the start: neither pointer needs to be aligned.
        auto src = random_bytes((rows * src_ld + 1) * elem, 70);
        std::vector<uint8_t> want((cols * dst_ld + 1) * elem, 0xEE), got = want;
        ref().transpose2d(elem, src.data() + 1, src_ld, want.data() + 1, dst_ld, rows, cols);
        t.transpose2d(elem, src.data() + 1, src_ld, got.data() + 1, dst_ld, rows, cols);
        expect_same(got, want, what("transpose2d elem rows cols", {elem, rows, cols}));
      }
}

void check_hash_bytes(const k::KernelTable& t) {
  auto bytes = random_bytes(1100, 71);
  for (size_t n = 0; n <= 260; ++n)
    for (size_t off : {0, 1, 3})
      ASSERT_EQ(t.hash_bytes(bytes.data() + off, n), ref().hash_bytes(bytes.data() + off, n)) << n << " at " << off;
  for (size_t n : {511, 512, 513, 1024, 1097})
    ASSERT_EQ(t.hash_bytes(bytes.data() + 1, n), ref().hash_bytes(bytes.data() + 1, n)) << n;
}

// Every single-byte difference, at every position of every size, and equal buffers.
void check_equal_bytes(const k::KernelTable& t) {
  for (size_t n : {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257}) {
    auto a = random_bytes(n + 1, 72);
    auto b = a;
    ASSERT_EQ(t.equal_bytes(a.data() + 1, b.data() + 1, n), ref().equal_bytes(a.data() + 1, b.data() + 1, n)) << n;
    for (size_t i = 0; i < n; ++i) {
      b[i + 1] ^= 0x10;
      ASSERT_EQ(t.equal_bytes(a.data() + 1, b.data() + 1, n), ref().equal_bytes(a.data() + 1, b.data() + 1, n))
          << "n " << n << " byte " << i;
      b[i + 1] ^= 0x10;
    }
  }
}

// The statistics are defined in double from the same elements: exact on every ISA.
void check_diff(const k::KernelTable& t) {
  for (size_t n : kSizes) {
    auto a = with_edges(n, -2, 2, 73), b = with_edges(n, -2, 2, 74);
    for (size_t i = 1; i < n; i += 4) b[i] = a[i];  // equal pairs, NaN and inf among them
    const k::DiffStats want = ref().diff(a.data(), b.data(), n, 1e-3, 1e-2);
    const k::DiffStats got = t.diff(a.data(), b.data(), n, 1e-3, 1e-2);
    EXPECT_EQ(std::memcmp(&got.max_abs, &want.max_abs, sizeof(double)), 0) << n << " max_abs " << got.max_abs;
    EXPECT_EQ(std::memcmp(&got.max_rel, &want.max_rel, sizeof(double)), 0) << n << " max_rel " << got.max_rel;
    EXPECT_EQ(got.worst_index, want.worst_index) << n;
    EXPECT_EQ(got.mismatches, want.mismatches) << n;
  }
}

// ------------------------------------------------------------------ conversions (exact bits)

std::vector<uint16_t> every_u16() {
  std::vector<uint16_t> v(65536);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint16_t>(i);
  return v;
}

// Random bit patterns (every class: NaNs, subnormals, infinities, halfway cases) and the edge values.
std::vector<float> float_patterns() {
  std::mt19937 rng(75);
  std::vector<float> v(200003);
  for (auto& f : v) {
    const uint32_t u = rng();
    std::memcpy(&f, &u, 4);
  }
  const std::vector<float> e = edge_values();
  v.insert(v.end(), e.begin(), e.end());
  for (uint32_t u : {0x33000000u, 0x33000001u, 0x387FC000u, 0x477FF000u, 0x477FEFFFu, 0x3F808000u, 0x3F818000u,
                     0x7F800001u, 0xFFC00001u}) {
    float f;
    std::memcpy(&f, &u, 4);
    v.push_back(f);
  }
  return v;
}

// Widening to float, over every 16-bit pattern: the f16 entry gives identical bits on every ISA,
// NaN payloads included (the contract); the bf16 one is a shift by 16 bits, signalling NaNs
// included. Both types of entry are fn::f16_to_f32.
void check_widening(const k::KernelTable& t, k::fn::f16_to_f32* k::KernelTable::*entry, const char* name) {
  const auto x = every_u16();
  for (size_t n : {size_t{65536}, size_t{65535}, size_t{17}, size_t{0}}) {
    std::vector<float> want(n), got(n);
    (ref().*entry)(x.data(), want.data(), n);
    (t.*entry)(x.data(), got.data(), n);
    expect_same(got, want, what(name, {n}));
  }
}

void check_f32_to_f16(const k::KernelTable& t) {
  const auto x = float_patterns();
  for (size_t n : {x.size(), x.size() - 3, size_t{9}, size_t{0}}) {
    std::vector<uint16_t> want(n), got(n);
    ref().f32_to_f16(x.data(), want.data(), n);
    t.f32_to_f16(x.data(), got.data(), n);
    expect_same(got, want, what("f32_to_f16 n", {n}));
  }
}

// Narrowing to bfloat16: the same bits, except that a NaN need only stay a quiet NaN of the same
// sign (the contract).
bool same_bf16(uint16_t got, uint16_t want) {
  const bool nan = (want & 0x7F80) == 0x7F80 && (want & 0x7F);
  if (!nan) return got == want;
  return (got & 0x7FC0) == 0x7FC0 && (got & 0x8000) == (want & 0x8000);
}

void check_f32_to_bf16(const k::KernelTable& t) {
  const auto x = float_patterns();
  std::vector<uint16_t> want(x.size()), got(x.size());
  ref().f32_to_bf16(x.data(), want.data(), x.size());
  t.f32_to_bf16(x.data(), got.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_TRUE(same_bf16(got[i], want[i])) << "f32_to_bf16 of " << x[i] << ": got 0x" << std::hex << got[i]
                                           << " want 0x" << want[i];
}

// ------------------------------------------------------------------ name -> comparator

using Comparator = void (*)(const k::KernelTable&);

const std::map<std::string, Comparator>& comparators() {
  static const std::map<std::string, Comparator> m = {
      {"sgemm", check_sgemm},
      {"sgemm_packed_b_size", check_sgemm_packed},
      {"sgemm_pack_b", check_sgemm_packed},
      {"sgemm_prepacked_b", check_sgemm_packed},
      {"sgemv", check_sgemv},
      {"sgemv_t", check_sgemv_t},
      {"igemm", check_igemm},
      {"igemm_packed_b_size", check_igemm_packed},
      {"igemm_pack_b", check_igemm_packed},
      {"igemm_prepacked_b", check_igemm_packed},
      {"dw_row_i16", check_dw_row_i16},
      {"quantize_u8", check_quantize_u8},
      {"dequantize_u8", check_dequantize_u8},
      {"requantize_u8", check_requantize_u8},
      {"conv2d", check_conv2d},
      {"conv2d_packed_size", check_conv2d_packed},
      {"conv2d_pack", check_conv2d_packed},
      {"conv2d_prepacked", check_conv2d_packed},
      {"conv_nd", check_conv_nd},
      {"binary_vv", [](const k::KernelTable& t) { check_binary(t, 0); }},
      {"binary_vs", [](const k::KernelTable& t) { check_binary(t, 1); }},
      {"binary_sv", [](const k::KernelTable& t) { check_binary(t, 2); }},
      {"affine_vs", check_affine_vs},
      {"unary", check_unary},
      {"reduce", check_reduce},
      {"softmax", check_softmax},
      {"layer_norm", check_layer_norm},
      {"max_pool2d", [](const k::KernelTable& t) { check_pool(t, true); }},
      {"avg_pool2d", [](const k::KernelTable& t) { check_pool(t, false); }},
      {"transpose2d", check_transpose2d},
      {"hash_bytes", check_hash_bytes},
      {"equal_bytes", check_equal_bytes},
      {"diff", check_diff},
      {"f16_to_f32", [](const k::KernelTable& t) { check_widening(t, &k::KernelTable::f16_to_f32, "f16 n"); }},
      {"f32_to_f16", check_f32_to_f16},
      {"bf16_to_f32", [](const k::KernelTable& t) { check_widening(t, &k::KernelTable::bf16_to_f32, "bf16 n"); }},
      {"f32_to_bf16", check_f32_to_bf16},
  };
  return m;
}

// ------------------------------------------------------------------ the tests

struct Pair {
  const k::KernelTable* table;
  const ListedKernel* kernel;
};

// Every (SIMD table, entry) whose function is not the scalar one: the pairs to compare.
std::vector<Pair> overridden_pairs() {
  std::vector<Pair> v;
  for (const k::KernelTable* t : k::simd_tables())
    for (const ListedKernel& e : kListed)
      if (!e.is_scalar(*t)) v.push_back({t, &e});
  return v;
}

std::string pair_name(const testing::TestParamInfo<Pair>& info) {
  return std::string(info.param.table->isa) + "_" + info.param.kernel->name;
}

// The test listing shows the pair, not the pointers' bytes.
void PrintTo(const Pair& p, std::ostream* os) { *os << p.table->isa << " " << p.kernel->name; }

class KernelList : public testing::TestWithParam<Pair> {};

TEST_P(KernelList, MatchesScalar) {
  const Pair& p = GetParam();
  ASSERT_FALSE(p.kernel->is_null(*p.table)) << p.table->isa << " table: entry " << p.kernel->name << " is null";
  const auto it = comparators().find(p.kernel->name);
  if (it == comparators().end())
    FAIL() << "the " << p.table->isa << " table overrides " << p.kernel->name
           << " but tests/kernels_list_test.cpp has no comparator for it: add one";
  it->second(*p.table);
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelList, testing::ValuesIn(overridden_pairs()), pair_name);
// No SIMD table on this CPU: no pair (KernelsList.EveryEntryIsSetAndListed then skips).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelList);

}  // namespace

// No table has a null entry, the list is what KernelTable holds, and every comparator names an
// entry of the list (a renamed kernel leaves no stale comparator behind).
TEST(KernelsList, EveryEntryIsSetAndListed) {
  EXPECT_EQ(sizeof(kListed) / sizeof(kListed[0]), (sizeof(k::KernelTable) - sizeof(const char*)) / sizeof(void*));
  for (const ListedKernel& e : kListed) EXPECT_FALSE(e.is_null(k::scalar_table())) << "scalar " << e.name;
  for (const auto& c : comparators()) {
    bool listed = false;
    for (const ListedKernel& e : kListed) listed = listed || c.first == e.name;
    EXPECT_TRUE(listed) << "comparator for " << c.first << ", which kernel_list.h does not list";
  }
  ofg::test::for_each_simd([&](const k::KernelTable* t) {
    for (const ListedKernel& e : kListed) EXPECT_FALSE(e.is_null(*t)) << e.name;
  });
}
