// Every SIMD kernel against its scalar reference (odd sizes, tails, broadcasting), and the
// scalar reference against first principles where that is cheap.
#include "kernels/kernels.h"
#include "support/kernel_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace k = ofg::kernels;

namespace {

using ofg::test::rnd;

void expect_close(const std::vector<float>& got, const std::vector<float>& want, float atol,
                  float rtol, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " at " << i;
      continue;
    }
    if (std::isinf(want[i])) {
      ASSERT_EQ(got[i], want[i]) << what << " at " << i;
      continue;
    }
    ASSERT_LE(std::fabs(got[i] - want[i]), atol + rtol * std::fabs(want[i]))
        << what << " at " << i << ": got " << got[i] << " want " << want[i];
  }
}

}  // namespace

TEST(KernelsDispatch, TablesAreComplete) {
  const std::string isa = k::active_isa();
  EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "neon" || isa == "scalar");
  EXPECT_STREQ(k::scalar_table().isa, "scalar");
  if (const k::KernelTable* t = k::simd_table()) {
    const char* forced = std::getenv("ONNXFORGE_FORCE_SCALAR");
    if (!(forced && std::strcmp(forced, "1") == 0)) {
      EXPECT_EQ(&k::active_table(), t);
    }
    // No null entry: ISA tables start from the scalar table.
    const void* const* slots = reinterpret_cast<const void* const*>(t);
    for (size_t i = 1; i < sizeof(k::KernelTable) / sizeof(void*); ++i) EXPECT_NE(slots[i], nullptr);
  }
}

// ------------------------------------------------------------------ sgemm

namespace {
void check_gemm(const k::KernelTable& t, bool ta, bool tb, size_t M, size_t N, size_t K,
                float alpha, float beta, size_t pad) {
  const size_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
  auto A = rnd((ta ? K : M) * lda, -1, 1, 1), B = rnd((tb ? N : K) * ldb, -1, 1, 2);
  auto C0 = rnd(M * ldc, -1, 1, 3);
  if (beta == 0.f) std::fill(C0.begin(), C0.end(), std::numeric_limits<float>::quiet_NaN());
  auto Cref = C0, Cgot = C0;
  k::scalar_table().sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, Cref.data(), ldc);
  t.sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, Cgot.data(), ldc);
  // Rounding of a K-term dot product of values in [-1, 1].
  const float tol = 4e-7f * static_cast<float>(K + 4) * (std::fabs(alpha) + 1.f);
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < ldc; ++j) {
      const float g = Cgot[i * ldc + j], r = Cref[i * ldc + j];
      if (j >= N) {  // padding columns are untouched
        ASSERT_TRUE((std::isnan(g) && std::isnan(C0[i * ldc + j])) || g == C0[i * ldc + j]);
        continue;
      }
      ASSERT_NEAR(g, r, tol) << "M=" << M << " N=" << N << " K=" << K << " ta=" << ta
                             << " tb=" << tb << " at " << i << "," << j;
    }
}
}  // namespace

TEST(KernelsSgemm, ScalarMatchesDefinition) {
  const size_t M = 3, N = 4, K = 5;
  auto A = rnd(M * K), B = rnd(K * N);
  std::vector<float> C(M * N, 1.f);
  k::scalar_table().sgemm(false, false, M, N, K, 2.f, A.data(), K, B.data(), N, 0.5f, C.data(), N);
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double s = 0;
      for (size_t p = 0; p < K; ++p) s += double(A[i * K + p]) * B[p * N + j];
      EXPECT_NEAR(C[i * N + j], 2 * s + 0.5, 1e-5);
    }
}

TEST(KernelsSgemm, SimdMatchesScalarSmallAndOdd) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        // Around the register tiles: 6x16 (AVX2), 8x32 (AVX-512), 8x12 (NEON aarch64), 4x8
        // (ARMv7 NEON).
        for (size_t M : {1, 2, 4, 5, 6, 7, 8, 9, 13, 14, 15})
          for (size_t N : {1, 3, 8, 11, 12, 13, 15, 16, 17, 31, 32, 33})
            for (size_t K : {1, 2, 7, 31})
              check_gemm(*simd, ta, tb, M, N, K, 1.f, 0.f, 0);
    check_gemm(*simd, false, false, 0, 5, 5, 1.f, 0.f, 0);
    check_gemm(*simd, false, false, 5, 5, 0, 1.f, 0.5f, 0);
  });
}

// A row of the product does not depend on the register tile that computed it: the rows of a
// product of M rows (its last tile short: AVX-512 then computes only the rows it has) are bit for
// bit those of the product of 56 rows (whole tiles everywhere) whose first M rows are the same.
TEST(KernelsSgemm, ShortLastTileRowsMatchWholeTileRows) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const size_t big = 56, N = 40, K = 300;
    auto A = rnd(big * K, -1, 1, 31), B = rnd(K * N, -1, 1, 32);
    std::vector<float> whole(big * N);
    simd->sgemm(false, false, big, N, K, 1.f, A.data(), K, B.data(), N, 0.f, whole.data(), N);
    for (size_t M : {3, 4, 5, 7, 8, 10, 11, 17, 18, 24, 32}) {
      std::vector<float> part(M * N);
      simd->sgemm(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, part.data(), N);
      for (size_t i = 0; i < M * N; ++i) ASSERT_EQ(part[i], whole[i]) << simd->isa << " M=" << M << " at " << i;
    }
  });
}

// Products of at most one register tile (per-head attention products) skip the packing; their
// values are still the blocked driver's bit for bit: the rows of an M-row product (M up to the
// tile's rows, N up to its columns) equal those of a 56-row product of the same first rows.
TEST(KernelsSgemm, OneTileProductsMatchBlockedRows) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    for (size_t N : {1, 5, 12, 16, 31, 32})
      for (size_t K : {1, 7, 32, 256}) {
        const size_t big = 56;
        auto A = rnd(big * K, -1, 1, 41), B = rnd(K * N, -1, 1, 42);
        std::vector<float> whole(big * N);
        simd->sgemm(false, false, big, N, K, 1.f, A.data(), K, B.data(), N, 0.f, whole.data(), N);
        for (size_t M : {2, 3, 4, 5, 7, 8, 12, 14}) {
          std::vector<float> part(M * N, std::nanf(""));
          simd->sgemm(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, part.data(), N);
          for (size_t i = 0; i < M * N; ++i)
            ASSERT_EQ(part[i], whole[i]) << simd->isa << " M=" << M << " N=" << N << " K=" << K << " at " << i;
        }
      }
  });
}

TEST(KernelsSgemm, SimdMatchesScalarBlockedAlphaBeta) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    // Sizes that cross the K (256), M (120 AVX2, 140 AVX-512, 128 NEON) and N (1536, 960, 512) blocking
    // boundaries, with strided operands.
    check_gemm(*simd, false, false, 127, 1601, 300, 1.f, 0.f, 3);
    check_gemm(*simd, true, false, 131, 97, 513, 0.5f, 2.f, 1);
    check_gemm(*simd, false, true, 65, 200, 257, -1.5f, -1.f, 0);
    check_gemm(*simd, true, true, 250, 33, 260, 1.f, 1.f, 5);
  });
}

// sgemm_prepacked_b gives exactly the table's own sgemm (alpha 1, beta 0 with C not read, or beta
// applied to C) on the same operands: sizes around the register tiles and across the K, M and N
// blocking, strided A, B and C; padding columns of C untouched. The scalar table has no packed
// form (size 0); its entries still agree.
void check_prepacked(const k::KernelTable& t, size_t M, size_t N, size_t K, size_t pad, float beta = 0.f) {
  const size_t lda = K + pad, ldb = N + pad, ldc = N + pad;
  auto A = rnd(M * lda, -1, 1, 21), B = rnd(K * ldb, -1, 1, 22);
  std::vector<float> want = beta == 0.f ? std::vector<float>(M * ldc, std::nanf("")) : rnd(M * ldc, -1, 1, 23);
  std::vector<float> got = want;
  t.sgemm(false, false, M, N, K, 1.f, A.data(), lda, B.data(), ldb, beta, want.data(), ldc);
  size_t n = t.sgemm_packed_b_size(K, N);
  if (t.isa != std::string("scalar")) ASSERT_GE(n, K * N) << t.isa;
  if (n == 0) n = K * N;  // the reference's "packed" B is B with row stride N
  std::vector<float> buf(n + 16, std::nanf(""));  // the packed B is 64-byte aligned
  float* packed = buf.data() + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64 / sizeof(float);
  t.sgemm_pack_b(K, N, B.data(), ldb, packed);
  t.sgemm_prepacked_b(M, N, K, A.data(), lda, packed, beta, got.data(), ldc);
  for (size_t i = 0; i < M * ldc; ++i) {
    if (std::isnan(want[i])) ASSERT_TRUE(std::isnan(got[i])) << t.isa << " at " << i;
    else ASSERT_EQ(got[i], want[i]) << t.isa << " M=" << M << " N=" << N << " K=" << K << " at " << i;
  }
}

TEST(KernelsSgemm, PrepackedBMatchesSgemm) {
  std::vector<const k::KernelTable*> tables{&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const k::KernelTable* t : tables) {
    for (size_t M : {1, 5, 6, 9, 32})
      for (size_t N : {1, 11, 16, 33})
        for (size_t K : {1, 7, 64}) check_prepacked(*t, M, N, K, 0);
    check_prepacked(*t, 127, 1601, 300, 3);
    for (size_t M : {1, 2, 15, 130}) check_prepacked(*t, M, 37, 300, 2, M % 2 ? 1.f : 0.5f);  // Gemm's C
    check_prepacked(*t, 0, 5, 5, 0);
    check_prepacked(*t, 4, 5, 0, 1);
  }
}

// A product of one row (sgemm and sgemm_prepacked_b skip the packing for it) is bit for bit the
// row the blocked loops give: the same row repeated twice goes through the blocked driver (C with
// a padded stride, so no matrix-vector shortcut applies), across the K (256) and N (1536 AVX2)
// blocks, with alpha and beta.
TEST(KernelsSgemm, OneRowIsTheBlockedDriversRow) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
  for (size_t N : {1, 7, 8, 16, 33, 37, 100, 1601})
    for (size_t K : {1, 7, 255, 256, 257, 600})
      for (auto ab : {std::pair<float, float>{1.f, 0.f}, {0.5f, 2.f}, {-1.5f, 1.f}}) {
        const size_t ldb = N + 2, ldc = N + 1;
        auto a = rnd(K, -1, 1, 31), B = rnd(K * ldb, -1, 1, 32), C0 = rnd(2 * ldc, -1, 1, 33);
        std::vector<float> A2(a);
        A2.insert(A2.end(), a.begin(), a.end());
        auto one = C0, two = C0;
        simd->sgemm(false, false, 1, N, K, ab.first, a.data(), K, B.data(), ldb, ab.second, one.data(), ldc);
        simd->sgemm(false, false, 2, N, K, ab.first, A2.data(), K, B.data(), ldb, ab.second, two.data(), ldc);
        for (size_t j = 0; j < N; ++j)
          ASSERT_EQ(one[j], two[j]) << simd->isa << " N=" << N << " K=" << K << " alpha=" << ab.first << " col " << j;
        ASSERT_EQ(one[N], C0[N]);  // the padding column is untouched
        if (ab.first != 1.f || ab.second != 0.f) continue;
        // The packed form: one row against the packed panels, as the blocked loops over them.
        std::vector<float> buf(simd->sgemm_packed_b_size(K, N) + 16);
        float* packed = buf.data() + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64 / sizeof(float);
        simd->sgemm_pack_b(K, N, B.data(), ldb, packed);
        std::vector<float> p1(ldc, std::nanf("")), p2(2 * ldc, std::nanf(""));
        simd->sgemm_prepacked_b(1, N, K, a.data(), K, packed, 0.f, p1.data(), ldc);
        simd->sgemm_prepacked_b(2, N, K, A2.data(), K, packed, 0.f, p2.data(), ldc);
        for (size_t j = 0; j < N; ++j) ASSERT_EQ(p1[j], p2[j]) << simd->isa << " packed N=" << N << " K=" << K << " col " << j;
        for (size_t j = 0; j < N; ++j) ASSERT_EQ(p1[j], one[j]) << simd->isa << " packed vs sgemm, col " << j;
      }
  });
}

// y = alpha A x + beta y (sgemv, A is M x K) or y = alpha x B + beta y (sgemv_t, B is K x M)
// against the definition in double, for a table; the matrix with a row stride above its width,
// beta zero (y not read: starts as NaN) and not.
void check_gemv(const k::KernelTable& t, size_t M, size_t K, float alpha, float beta, bool transposed) {
  const size_t ld = transposed ? M + 5 : K + 3;
  auto A = rnd((transposed ? K : M) * ld, -1.f, 1.f, 11), x = rnd(K, -1.f, 1.f, 12), y0 = rnd(M, -1.f, 1.f, 13);
  std::vector<float> y = beta == 0.f ? std::vector<float>(M, std::nanf("")) : y0;
  if (transposed) t.sgemv_t(K, M, alpha, x.data(), A.data(), ld, beta, y.data());
  else t.sgemv(M, K, alpha, A.data(), ld, x.data(), beta, y.data());
  for (size_t i = 0; i < M; ++i) {
    double s = 0;
    for (size_t p = 0; p < K; ++p) s += double(transposed ? A[p * ld + i] : A[i * ld + p]) * x[p];
    const double want = alpha * s + (beta == 0.f ? 0.0 : double(beta) * y0[i]);
    ASSERT_NEAR(y[i], want, 1e-5 * (1 + K)) << t.isa << " M=" << M << " K=" << K << " output " << i
                                            << (transposed ? " (sgemv_t)" : "");
  }
}

TEST(KernelsSgemv, ScalarAndSimdMatchDefinitionOnOddSizes) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const k::KernelTable* t : tables)
    for (size_t M : {1, 3, 4, 5, 9, 64, 67})
      for (size_t K : {0, 1, 7, 8, 9, 31, 130}) {
        check_gemv(*t, M, K, 1.f, 0.f, false);
        check_gemv(*t, M, K, -0.5f, 2.f, false);
      }
}

TEST(KernelsSgemv, TransposedScalarAndSimdMatchDefinitionOnOddSizes) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  // The outputs cross every column block of the SIMD version (8, 2 and 1 vectors, then single columns).
  for (const k::KernelTable* t : tables)
    for (size_t K : {0, 1, 7, 128})
      for (size_t N : {1, 3, 8, 17, 64, 67, 99, 512}) {
        check_gemv(*t, N, K, 1.f, 0.f, true);
        check_gemv(*t, N, K, -0.5f, 2.f, true);
      }
}

// Each SIMD table against the scalar reference on the recurrent shape (512 gate rows of a
// 128-wide LSTM): the same sums in another order, so equal within float rounding.
TEST(KernelsSgemv, TransposedSimdMatchesScalar) {
  const size_t K = 128, N = 512;
  auto B = rnd(K * N, -1.f, 1.f, 31), x = rnd(K, -1.f, 1.f, 32);
  std::vector<float> a(N);
  k::scalar_table().sgemv_t(K, N, 1.f, x.data(), B.data(), N, 0.f, a.data());
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    std::vector<float> b(N);
    simd->sgemv_t(K, N, 1.f, x.data(), B.data(), N, 0.f, b.data());
    for (size_t j = 0; j < N; ++j) ASSERT_NEAR(a[j], b[j], 1e-4) << simd->isa << " column " << j;
  });
}

// ------------------------------------------------------------------ conv

namespace {
k::Conv2DParams conv_case(size_t N, size_t C, size_t H, size_t W, size_t Co, size_t kh, size_t kw,
                          size_t s, size_t pad, size_t dil, size_t g) {
  k::Conv2DParams p;
  p.N = N; p.C_in = C; p.H = H; p.W = W; p.C_out = Co; p.kH = kh; p.kW = kw;
  p.stride_h = s; p.stride_w = s;
  p.pad_top = pad; p.pad_left = pad; p.pad_bottom = pad; p.pad_right = pad + (s > 1 ? 1 : 0);
  p.dil_h = dil; p.dil_w = dil; p.group = g;
  k::conv2d_fill_output_size(p);
  return p;
}
std::vector<k::Conv2DParams> conv_cases() {
  std::vector<k::Conv2DParams> v;
  v.push_back(conv_case(2, 5, 9, 11, 7, 1, 1, 1, 0, 1, 1));   // 1x1 -> GEMM
  v.push_back(conv_case(1, 3, 17, 13, 8, 3, 3, 1, 1, 1, 1));
  v.push_back(conv_case(2, 4, 15, 16, 6, 3, 3, 2, 1, 1, 2));  // grouped, strided
  v.push_back(conv_case(1, 6, 12, 10, 4, 5, 3, 1, 2, 2, 1));  // dilated, rectangular kernel
  v.push_back(conv_case(1, 8, 1, 1, 3, 1, 1, 1, 0, 1, 1));
  for (size_t kk : {3, 5})
    for (size_t s : {1, 2})
      for (size_t W : {1, 7, 19, 33})
        v.push_back(conv_case(2, 9, 11, W, 9, kk, kk, s, kk / 2, 1, 9));  // depthwise
  v.push_back(conv_case(1, 4, 9, 9, 4, 3, 3, 1, 0, 2, 4));    // depthwise dilated, no pad
  v.push_back(conv_case(1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 4));    // channel multiplier 2
  return v;
}
}  // namespace

TEST(KernelsConv, GemmPathAndSimdMatchNaive) {
  int idx = 0;
  for (k::Conv2DParams p : conv_cases()) {
    for (int act = 0; act < 3; ++act) {
      auto x = rnd(p.N * p.C_in * p.H * p.W, -1, 1, 11 + idx);
      auto w = rnd(p.C_out * (p.C_in / p.group) * p.kH * p.kW, -1, 1, 12 + idx);
      auto b = rnd(p.C_out, -1, 1, 13);
      p.bias = (act == 1) ? nullptr : b.data();
      p.act = act == 0 ? k::Activation::None : act == 1 ? k::Activation::Relu : k::Activation::Clip;
      p.act_alpha = -0.5f;
      p.act_beta = 0.5f;
      std::vector<float> ref(p.N * p.C_out * p.H_out * p.W_out), got(ref.size()), got2(ref.size());
      k::scalar_table().conv2d(p, x.data(), w.data(), ref.data());
      k::conv2d_gemm(k::scalar_table(), p, x.data(), w.data(), got.data());
      expect_close(got, ref, 1e-5f, 1e-5f, "conv2d_gemm(scalar)");
      for (const k::KernelTable* simd : k::simd_tables()) {
        simd->conv2d(p, x.data(), w.data(), got2.data());
        expect_close(got2, ref, 1e-5f, 1e-5f, simd->isa);
      }
      ++idx;
    }
  }
}

TEST(KernelsConv, ConvNdAgreesWithConv2d) {
  k::Conv2DParams p = conv_case(2, 4, 7, 9, 6, 3, 2, 2, 1, 1, 2);
  p.pad_right = p.pad_bottom = 1;
  k::conv2d_fill_output_size(p);
  auto x = rnd(p.N * p.C_in * p.H * p.W), w = rnd(p.C_out * 2 * p.kH * p.kW), b = rnd(6);
  p.bias = b.data();
  std::vector<float> ref(p.N * p.C_out * p.H_out * p.W_out), got(ref.size());
  k::scalar_table().conv2d(p, x.data(), w.data(), ref.data());
  for (size_t rank : {2, 3}) {  // rank 3 with a leading spatial axis of 1
    k::ConvNdParams q;
    q.rank = rank; q.N = p.N; q.C_in = p.C_in; q.C_out = p.C_out; q.group = p.group; q.bias = p.bias;
    const size_t o = rank - 2;
    q.in[o] = p.H; q.in[o + 1] = p.W; q.kernel[o] = p.kH; q.kernel[o + 1] = p.kW;
    q.out[o] = p.H_out; q.out[o + 1] = p.W_out; q.stride[o] = 2; q.stride[o + 1] = 2;
    q.pad_begin[o] = 1; q.pad_begin[o + 1] = 1;
    k::conv_nd(q, x.data(), w.data(), got.data());
    expect_close(got, ref, 1e-6f, 1e-6f, "conv_nd");
  }
  // rank 1 is conv2d with H = 1.
  k::Conv2DParams p1 = conv_case(1, 3, 1, 20, 2, 1, 4, 1, 0, 3, 1);
  auto x1 = rnd(60), w1 = rnd(2 * 3 * 4);
  std::vector<float> r1(p1.C_out * p1.W_out), g1(r1.size());
  k::scalar_table().conv2d(p1, x1.data(), w1.data(), r1.data());
  k::ConvNdParams q1;
  q1.rank = 1; q1.C_in = 3; q1.C_out = 2; q1.in[0] = 20; q1.kernel[0] = 4; q1.dilation[0] = 3;
  q1.out[0] = p1.W_out;
  k::conv_nd(q1, x1.data(), w1.data(), g1.data());
  expect_close(g1, r1, 1e-6f, 1e-6f, "conv_nd rank 1");
}

// Every SIMD table's conv_nd (im2col over the volume + sgemm, kernels/conv_gemm.cpp) against the
// scalar direct loops on 3-D convolutions: strides, dilations, asymmetric padding (output
// positions reading only padding), groups, bias and each activation.
TEST(KernelsConv, ConvNdSimdMatchesScalarIn3d) {
  struct Case {
    size_t N, C_in, C_out, group, in[3], k[3], st[3], dl[3], pb[3], pe[3];
    k::Activation act;
  };
  const Case cases[] = {
      {1, 4, 8, 1, {6, 7, 9}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, k::Activation::None},
      {2, 6, 4, 2, {5, 8, 8}, {3, 2, 3}, {2, 1, 2}, {1, 2, 1}, {1, 0, 1}, {2, 1, 0}, k::Activation::Relu},
      {1, 3, 3, 3, {4, 5, 17}, {1, 3, 3}, {1, 2, 1}, {1, 1, 2}, {0, 1, 2}, {0, 1, 2}, k::Activation::Sigmoid},
      {1, 16, 5, 1, {3, 4, 4}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, k::Activation::Clip},
      {1, 2, 2, 1, {2, 2, 2}, {2, 2, 2}, {3, 3, 3}, {1, 1, 1}, {3, 3, 3}, {3, 3, 3}, k::Activation::LeakyRelu},
  };
  for (const Case& c : cases) {
    k::ConvNdParams q;
    q.rank = 3; q.N = c.N; q.C_in = c.C_in; q.C_out = c.C_out; q.group = c.group;
    size_t in_sz = 1, out_sz = 1, k_sz = 1;
    for (size_t i = 0; i < 3; ++i) {
      q.in[i] = c.in[i]; q.kernel[i] = c.k[i]; q.stride[i] = c.st[i]; q.dilation[i] = c.dl[i]; q.pad_begin[i] = c.pb[i];
      q.out[i] = (c.in[i] + c.pb[i] + c.pe[i] - c.dl[i] * (c.k[i] - 1) - 1) / c.st[i] + 1;
      in_sz *= c.in[i], out_sz *= q.out[i], k_sz *= c.k[i];
    }
    auto x = rnd(c.N * c.C_in * in_sz), w = rnd(c.C_out * (c.C_in / c.group) * k_sz), b = rnd(c.C_out);
    q.bias = b.data();
    q.act = c.act;
    q.act_alpha = c.act == k::Activation::Clip ? -0.2f : 0.1f;
    q.act_beta = 0.3f;
    std::vector<float> ref(c.N * c.C_out * out_sz), got(ref.size());
    k::scalar_table().conv_nd(q, x.data(), w.data(), ref.data());
    for (const k::KernelTable* simd : k::simd_tables()) {
      std::fill(got.begin(), got.end(), NAN);
      simd->conv_nd(q, x.data(), w.data(), got.data());
      expect_close(got, ref, 1e-5f, 1e-5f, simd->isa);
    }
  }
}

TEST(KernelsConv, ConvTransposeIsFullConvWithFlippedWeights) {
  // Stride 1, no padding: ConvTranspose(x, w) == Conv(pad(x, k-1), flip(w) with in/out swapped).
  const size_t Ci = 3, Co = 2, H = 5, W = 6, kh = 3, kw = 2;
  auto x = rnd(Ci * H * W), w = rnd(Ci * Co * kh * kw), b = rnd(Co);
  k::ConvTranspose2DParams t;
  t.C_in = Ci; t.H = H; t.W = W; t.C_out = Co; t.kH = kh; t.kW = kw;
  t.H_out = H + kh - 1; t.W_out = W + kw - 1; t.bias = b.data();
  std::vector<float> got(Co * t.H_out * t.W_out);
  k::conv_transpose2d(t, x.data(), w.data(), got.data());
  std::vector<float> wf(Co * Ci * kh * kw);
  for (size_t ci = 0; ci < Ci; ++ci)
    for (size_t co = 0; co < Co; ++co)
      for (size_t a = 0; a < kh; ++a)
        for (size_t c = 0; c < kw; ++c)
          wf[((co * Ci + ci) * kh + (kh - 1 - a)) * kw + (kw - 1 - c)] = w[((ci * Co + co) * kh + a) * kw + c];
  k::Conv2DParams p = conv_case(1, Ci, H, W, Co, kh, kw, 1, 0, 1, 1);
  p.pad_top = p.pad_bottom = kh - 1;
  p.pad_left = p.pad_right = kw - 1;
  p.bias = b.data();
  k::conv2d_fill_output_size(p);
  std::vector<float> ref(got.size());
  k::scalar_table().conv2d(p, x.data(), wf.data(), ref.data());
  expect_close(got, ref, 1e-6f, 1e-6f, "conv_transpose2d");
}

// ------------------------------------------------------------------ broadcasting binary

namespace {
// Independent broadcast walk: index arithmetic per output element.
std::vector<float> naive_binary(k::BinaryOp op, const std::vector<float>& a, std::vector<int64_t> ad,
                                const std::vector<float>& b, std::vector<int64_t> bd,
                                std::vector<int64_t>& od) {
  const size_t r = std::max(ad.size(), bd.size());
  ad.insert(ad.begin(), r - ad.size(), 1);
  bd.insert(bd.begin(), r - bd.size(), 1);
  od.assign(r, 1);
  size_t total = 1;
  for (size_t i = 0; i < r; ++i) total *= od[i] = ad[i] == 1 ? bd[i] : ad[i];
  std::vector<float> y(total);
  for (size_t o = 0; o < total; ++o) {
    size_t rem = o, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t d = r; d-- > 0;) {
      const size_t c = rem % od[d];
      rem /= od[d];
      ia += (ad[d] == 1 ? 0 : c) * sa;
      ib += (bd[d] == 1 ? 0 : c) * sb;
      sa *= ad[d];
      sb *= bd[d];
    }
    const float x = a[ia], z = b[ib];
    switch (op) {
      case k::BinaryOp::Add: y[o] = x + z; break;
      case k::BinaryOp::Sub: y[o] = x - z; break;
      case k::BinaryOp::Mul: y[o] = x * z; break;
      case k::BinaryOp::Div: y[o] = x / z; break;
      case k::BinaryOp::Max: y[o] = std::isnan(x) || std::isnan(z) ? NAN : std::max(x, z); break;
      case k::BinaryOp::Min: y[o] = std::isnan(x) || std::isnan(z) ? NAN : std::min(x, z); break;
      case k::BinaryOp::Pow: y[o] = std::pow(x, z); break;
    }
  }
  return y;
}
size_t count(const std::vector<int64_t>& d) {
  size_t n = 1;
  for (auto v : d) n *= static_cast<size_t>(v);
  return n;
}
}  // namespace

TEST(KernelsBinary, BroadcastShapesAllOps) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{37}, {37}}, {{2, 3, 5, 7}, {2, 3, 5, 7}}, {{67}, {}}, {{}, {19}}, {{}, {}},
      {{2, 5, 3, 7}, {5, 1, 1}}, {{3, 4, 9}, {9}}, {{3, 1, 9}, {1, 4, 1}}, {{4, 1}, {1, 23}},
      {{2, 1, 3, 1, 5}, {1, 4, 1, 6, 1}}, {{1, 1, 1, 2, 1, 3, 1, 2}, {2, 1, 2, 1, 3, 1, 2, 1}},
      {{2, 0, 3}, {3}}, {{5, 1}, {5, 17}}};
  const k::BinaryOp ops[] = {k::BinaryOp::Add, k::BinaryOp::Sub, k::BinaryOp::Mul, k::BinaryOp::Div,
                             k::BinaryOp::Max, k::BinaryOp::Min, k::BinaryOp::Pow};
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const auto& [ad, bd] : shapes) {
    auto a = rnd(count(ad), 0.1f, 2.f, 3), b = rnd(count(bd), -2.f, 2.f, 4);
    if (a.size() > 3) a[3] = NAN;
    for (k::BinaryOp op : ops) {
      std::vector<int64_t> od;
      const auto want = naive_binary(op, a, ad, b, bd, od);
      int64_t od2[8];
      size_t r2 = 0;
      ASSERT_TRUE(k::broadcast_shape(ad.data(), ad.size(), bd.data(), bd.size(), od2, &r2));
      ASSERT_EQ(std::vector<int64_t>(od2, od2 + r2), od);
      for (const k::KernelTable* t : tables) {
        std::vector<float> got(want.size());
        k::binary_f32_with(*t, op, a.data(), ad.data(), ad.size(), b.data(), bd.data(), bd.size(), got.data());
        expect_close(got, want, 0, op == k::BinaryOp::Pow ? 2e-7f : 0.f, t->isa);
      }
    }
  }
  const int64_t x[2] = {3, 4}, y[2] = {2, 4};
  int64_t o[8];
  size_t r;
  EXPECT_FALSE(k::broadcast_shape(x, 2, y, 2, o, &r));
}

TEST(KernelsBinary, TailsSameShapeAndScalar) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    for (size_t n = 1; n <= 67; ++n) {
      auto a = rnd(n, -3, 3, 5), b = rnd(n, -3, 3, 6);
      for (int op = 0; op <= 6; ++op) {
        std::vector<float> want(n), got(n);
        const auto o = static_cast<k::BinaryOp>(op);
        k::scalar_table().binary_vv(o, a.data(), b.data(), want.data(), n);
        simd->binary_vv(o, a.data(), b.data(), got.data(), n);
        expect_close(got, want, 0, o == k::BinaryOp::Pow ? 2e-7f : 0.f, "vv");
        k::scalar_table().binary_vs(o, a.data(), 1.5f, want.data(), n);
        simd->binary_vs(o, a.data(), 1.5f, got.data(), n);
        expect_close(got, want, 0, o == k::BinaryOp::Pow ? 2e-7f : 0.f, "vs");
        k::scalar_table().binary_sv(o, 1.5f, b.data(), want.data(), n);
        simd->binary_sv(o, 1.5f, b.data(), got.data(), n);
        expect_close(got, want, 0, o == k::BinaryOp::Pow ? 2e-7f : 0.f, "sv");
      }
    }
  });
}

TEST(KernelsBinary, Integers) {
  const int64_t d3[1] = {3}, d1[1] = {1};
  const int32_t a[3] = {7, -7, std::numeric_limits<int32_t>::min()}, b[1] = {-2};
  int32_t y[3];
  k::binary_i32(k::BinaryOp::Div, a, d3, 1, b, d1, 1, y);
  EXPECT_EQ(y[0], -3);
  EXPECT_EQ(y[1], 3);
  EXPECT_EQ(y[2], 1073741824);
  const int32_t m1[1] = {-1}, z[1] = {0};
  k::binary_i32(k::BinaryOp::Div, a, d3, 1, m1, d1, 1, y);
  EXPECT_EQ(y[2], std::numeric_limits<int32_t>::min());
  k::binary_i32(k::BinaryOp::Div, a, d3, 1, z, d1, 1, y);
  EXPECT_EQ(y[0], 0);
  k::binary_i32(k::BinaryOp::Add, a, d3, 1, m1, d1, 1, y);
  EXPECT_EQ(y[2], std::numeric_limits<int32_t>::max());  // wraps
  const int64_t la[3] = {2, -3, 5}, lb[3] = {10, 3, 0};
  int64_t ly[3];
  k::binary_i64(k::BinaryOp::Pow, la, d3, 1, lb, d3, 1, ly);
  EXPECT_EQ(ly[0], 1024);
  EXPECT_EQ(ly[1], -27);
  EXPECT_EQ(ly[2], 1);
  k::binary_i64(k::BinaryOp::Max, la, d3, 1, lb, d3, 1, ly);
  EXPECT_EQ(ly[1], 3);
}
