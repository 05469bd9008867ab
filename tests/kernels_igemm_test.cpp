// The integer GEMM and the 8-bit quantization kernels: the scalar reference against a plain
// int64 oracle, and every SIMD table bit for bit against the scalar reference (odd sizes, tails,
// every signedness and zero-point combination, extreme values with K at the int32 limit).
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "support/kernel_support.h"
#if defined(__x86_64__)
#include "kernels/avx2/avx2.h"
#include "kernels/avx512/avx512.h"
#elif defined(__aarch64__)
#include "kernels/neon/neon.h"

#include <sys/auxv.h>
#endif

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

int32_t byte_value(uint8_t v, bool s) { return s ? static_cast<int8_t>(v) : v; }

struct IgemmCase {
  size_t M, N, K, lda, ldb, ldc;
  bool as, bs;
  std::vector<uint8_t> A, B;
  std::vector<int32_t> za, zb;
};

// Random operands (zero points within each operand's type); padded leading dimensions.
IgemmCase make_case(size_t M, size_t N, size_t K, bool as, bool bs, unsigned seed) {
  std::mt19937 rng(seed);
  IgemmCase c{M, N, K, K + 3, N + 5, N + 2, as, bs, {}, {}, {}, {}};
  c.A.resize(M * c.lda);
  c.B.resize(K * c.ldb);
  for (auto& v : c.A) v = static_cast<uint8_t>(rng());
  for (auto& v : c.B) v = static_cast<uint8_t>(rng());
  auto zp = [&](bool s) { return s ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256); };
  for (size_t i = 0; i < M; ++i) c.za.push_back(zp(as));
  for (size_t j = 0; j < N; ++j) c.zb.push_back(zp(bs));
  return c;
}

// Every igemm this CPU can run besides the scalar one: the SIMD table's, and each of the AVX2 and
// VNNI versions on x86, the int16 and SDOT ones on aarch64 (the table holds only the best one),
// named for the failure messages.
struct Variant {
  const char* name;
  k::fn::igemm* fn;
};
std::vector<Variant> simd_igemms() {
  std::vector<Variant> v;
  const k::KernelTable* simd = k::simd_table();
  if (!simd) return v;
  v.push_back({simd->isa, simd->igemm});
#if defined(__x86_64__)
  v.push_back({"avx2 int16", k::avx2::igemm});
#if defined(OFG_HAVE_AVXVNNI)
  if (k::x86_vnni() & k::kVnniAvx) v.push_back({"avx-vnni", k::avx2::igemm_avxvnni});
#endif
#if defined(OFG_HAVE_AVX512VNNI)
  if (k::x86_vnni() & k::kVnniAvx512) v.push_back({"avx512-vnni", k::avx512::igemm_avx512vnni});
#endif
#elif defined(__aarch64__)
  v.push_back({"neon int16", k::neon::igemm});
#if defined(OFG_HAVE_SDOT)
  if (k::arm_dotprod()) v.push_back({"neon sdot", k::neon::igemm_sdot});
#endif
#endif
  return v;
}

std::vector<int32_t> run(k::fn::igemm* f, const IgemmCase& c) {
  std::vector<int32_t> C(c.M * c.ldc, 0x5a5a5a5a);
  f(c.M, c.N, c.K, c.A.data(), c.lda, c.as, c.za.data(), c.B.data(), c.ldb, c.bs, c.zb.data(), C.data(), c.ldc);
  return C;
}

std::vector<int32_t> run(const k::KernelTable& t, const IgemmCase& c) {
  // Cells outside the M x N block must stay untouched: fill them with a marker.
  std::vector<int32_t> C(c.M * c.ldc, 0x5a5a5a5a);
  t.igemm(c.M, c.N, c.K, c.A.data(), c.lda, c.as, c.za.data(), c.B.data(), c.ldb, c.bs, c.zb.data(), C.data(), c.ldc);
  return C;
}

std::vector<int32_t> oracle(const IgemmCase& c) {
  std::vector<int32_t> C(c.M * c.ldc, 0x5a5a5a5a);
  for (size_t i = 0; i < c.M; ++i)
    for (size_t j = 0; j < c.N; ++j) {
      int64_t s = 0;
      for (size_t p = 0; p < c.K; ++p)
        s += int64_t{byte_value(c.A[i * c.lda + p], c.as) - c.za[i]} * (byte_value(c.B[p * c.ldb + j], c.bs) - c.zb[j]);
      C[i * c.ldc + j] = static_cast<int32_t>(static_cast<uint32_t>(s));
    }
  return C;
}

TEST(KernelsIgemm, ScalarMatchesInt64Oracle) {
  for (bool as : {false, true})
    for (bool bs : {false, true}) {
      IgemmCase c = make_case(7, 19, 37, as, bs, 3 + as * 2 + bs);
      EXPECT_EQ(run(k::scalar_table(), c), oracle(c)) << as << bs;
    }
}

// The flavours above are the ones the CPU has: each extension it reports is in the list (and
// the best is in the table), so the comparisons below cannot silently skip one. Under
// qemu-aarch64 the default CPU model reports the dot product, so SDOT runs there.
TEST(KernelsIgemm, EveryFlavourTheCpuHasIsTested) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    std::vector<std::string> names;
    for (const Variant& v : simd_igemms()) names.push_back(v.name);
    std::string joined;
    for (const auto& n : names) joined += n + " ";
    std::printf("igemm flavours tested: %s\n", joined.c_str());
    auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  #if defined(__x86_64__)
    EXPECT_TRUE(has("avx2 int16"));
  #if defined(OFG_HAVE_AVXVNNI)
    if (k::x86_vnni() & k::kVnniAvx) {
      EXPECT_TRUE(has("avx-vnni"));
      if (!(k::x86_vnni() & k::kVnniAvx512)) EXPECT_EQ(k::simd_table()->igemm, k::avx2::igemm_avxvnni);
    }
  #endif
  #if defined(OFG_HAVE_AVX512VNNI)
    // The 512-bit flavour is preferred wherever the CPU has it.
    if (k::x86_vnni() & k::kVnniAvx512) {
      EXPECT_TRUE(has("avx512-vnni"));
      EXPECT_EQ(k::simd_table()->igemm, k::avx512::igemm_avx512vnni);
    }
  #endif
  #elif defined(__aarch64__)
    EXPECT_TRUE(has("neon int16"));
    const bool dotprod = getauxval(AT_HWCAP) & (1ul << 20);  // HWCAP_ASIMDDP
    EXPECT_EQ(k::arm_dotprod(), dotprod);
  #if defined(OFG_HAVE_SDOT)
    EXPECT_EQ(has("neon sdot"), dotprod);
    EXPECT_EQ(k::simd_table()->igemm, dotprod ? k::neon::igemm_sdot : k::neon::igemm);
  #endif
  #endif
  });
}

TEST(KernelsIgemm, SimdMatchesScalarOnOddShapes) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    for (const Variant& v : simd_igemms()) {
    unsigned seed = 1;
    for (size_t M : {1, 5, 6, 7, 13, 121})
      for (size_t N : {1, 15, 16, 17, 32, 33, 530})  // around the 16- and 32-column panels
        for (size_t K : {1, 2, 3, 8, 255, 257, 513})
          for (int sign = 0; sign < 4; ++sign) {
            if (M * N * K > 3000000) continue;
            IgemmCase c = make_case(M, N, K, sign & 1, sign & 2, seed++);
            ASSERT_EQ(run(v.fn, c), run(k::scalar_table(), c)) << v.name << " M=" << M << " N=" << N << " K=" << K
                                                                << " signs=" << sign;
          }
    }
  });
}

// B's zero point at the value that the dot-product GEMMs' flip turns into 0 (128 for uint8, 0 for
// int8: the usual activations), where they skip the row sums of A: every flavour against the
// oracle, with A of both signednesses and nonzero zero points of A.
TEST(KernelsIgemm, ZeroPointsThatPackToZeroMatchOracle) {
  unsigned seed = 300;
  for (bool as : {false, true})
    for (bool bs : {false, true})
      for (size_t K : {3, 64, 577}) {
        IgemmCase c = make_case(13, 37, K, as, bs, seed++);
        std::fill(c.zb.begin(), c.zb.end(), bs ? 0 : 128);
        const auto want = oracle(c);
        EXPECT_EQ(run(k::scalar_table(), c), want) << "scalar";
        for (const Variant& v : simd_igemms()) EXPECT_EQ(run(v.fn, c), want) << v.name << " as=" << as << " bs=" << bs << " K=" << K;
      }
}

// Every factor at +-255 and K = 33025: the sums reach 33025 * 65025 = 2147450625, just under
// 2^31. An implementation that saturates an intermediate (vpmaddubsw) or loses a bit fails here.
TEST(KernelsIgemm, ExtremeValuesAtTheInt32Limit) {
  const size_t M = 3, N = 18, K = 33025;
  for (int sign = 0; sign < 4; ++sign) {
    const bool as = sign & 1, bs = sign & 2;
    IgemmCase c = make_case(M, N, K, as, bs, 99);
    // Row 0: a at its minimum, za at its maximum (-255); row 1 the reverse (+255); row 2 mixed.
    const uint8_t amin = as ? 0x80 : 0, amax = as ? 0x7f : 0xff;
    const int32_t zmin = as ? -128 : 0, zmax = as ? 127 : 255;
    for (size_t p = 0; p < K; ++p) {
      c.A[0 * c.lda + p] = amin;
      c.A[1 * c.lda + p] = amax;
      c.A[2 * c.lda + p] = p % 2 ? amin : amax;
    }
    c.za = {zmax, zmin, as ? 0 : 128};
    const uint8_t bmin = bs ? 0x80 : 0, bmax = bs ? 0x7f : 0xff;
    for (size_t p = 0; p < K; ++p)
      for (size_t j = 0; j < N; ++j) c.B[p * c.ldb + j] = j % 2 ? bmin : bmax;
    for (size_t j = 0; j < N; ++j) c.zb[j] = j % 2 ? (bs ? 127 : 255) : (bs ? -128 : 0);
    const auto want = oracle(c);
    EXPECT_EQ(want[0], -2147450625);  // (-255) * 255 * K
    EXPECT_EQ(want[1], 2147450625);   // (-255) * (-255) * K
    EXPECT_EQ(run(k::scalar_table(), c), want) << "scalar signs=" << sign;
    for (const Variant& v : simd_igemms()) EXPECT_EQ(run(v.fn, c), want) << v.name << " signs=" << sign;
  }
}

// The prepacked-B entries of every dot-product flavour the CPU has (the table's, and each VNNI
// width on x86), and the scalar table's (no packed form: size 0, and its entries stay correct).
struct PackedVariant {
  const char* name;
  k::fn::igemm_packed_b_size* size;
  k::fn::igemm_pack_b* pack;
  k::fn::igemm_prepacked_b* run;
};
std::vector<PackedVariant> packed_igemms() {
  std::vector<PackedVariant> v;
  if (const k::KernelTable* simd = k::simd_table())
    v.push_back({simd->isa, simd->igemm_packed_b_size, simd->igemm_pack_b, simd->igemm_prepacked_b});
#if defined(__x86_64__)
#if defined(OFG_HAVE_AVXVNNI)
  if (k::x86_vnni() & k::kVnniAvx)
    v.push_back({"avx-vnni", k::avx2::igemm_avxvnni_packed_b_size, k::avx2::igemm_avxvnni_pack_b,
                 k::avx2::igemm_avxvnni_prepacked_b});
#endif
#if defined(OFG_HAVE_AVX512VNNI)
  if (k::x86_vnni() & k::kVnniAvx512)
    v.push_back({"avx512-vnni", k::avx512::igemm_avx512vnni_packed_b_size, k::avx512::igemm_avx512vnni_pack_b,
                 k::avx512::igemm_avx512vnni_prepacked_b});
#endif
#elif defined(__aarch64__) && defined(OFG_HAVE_SDOT)
  if (k::arm_dotprod())
    v.push_back({"neon sdot", k::neon::igemm_sdot_packed_b_size, k::neon::igemm_sdot_pack_b,
                 k::neon::igemm_sdot_prepacked_b});
#endif
  return v;
}

// B packed into a buffer of exactly the reported size (or, for a size of 0, as the scalar
// reference reads it: K x N), then the product; cells outside M x N keep their marker.
std::vector<int32_t> run_prepacked(const PackedVariant& v, const IgemmCase& c) {
  const size_t bytes = v.size(c.K, c.N);
  std::vector<uint8_t> raw((bytes ? bytes : c.K * c.N) + 64);
  uint8_t* packed = raw.data() + (64 - reinterpret_cast<uintptr_t>(raw.data()) % 64) % 64;  // 64-byte aligned
  v.pack(c.K, c.N, c.B.data(), c.ldb, c.bs, packed);
  std::vector<int32_t> C(c.M * c.ldc, 0x5a5a5a5a);
  v.run(c.M, c.N, c.K, c.A.data(), c.lda, c.as, c.za.data(), packed, c.bs, c.zb.data(), C.data(), c.ldc);
  return C;
}

TEST(KernelsIgemm, ScalarHasNoPackedFormAndItsEntriesStayCorrect) {
  const k::KernelTable& t = k::scalar_table();
  EXPECT_EQ(t.igemm_packed_b_size(64, 64), 0u);
  IgemmCase c = make_case(5, 17, 9, true, false, 41);
  EXPECT_EQ(run_prepacked({"scalar", t.igemm_packed_b_size, t.igemm_pack_b, t.igemm_prepacked_b}, c), oracle(c));
}

// The dot-product flavours have a packed form: its size covers the panels of N rounded up to the
// tile (16 or 32 columns) over K rounded up to quads, plus the column sums; and the table's
// entries are those of its igemm's flavour (a packed B is read by the flavour that packed it).
TEST(KernelsIgemm, DotFlavoursReportTheirPackedSize) {
  const std::vector<PackedVariant> variants = packed_igemms();
  for (size_t i = 1; i < variants.size(); ++i) {  // [0] is the table's
    const PackedVariant& v = variants[i];
    for (size_t K : {1, 4, 5, 768})
      for (size_t N : {1, 16, 17, 768}) {
        const size_t bytes = v.size(K, N), kq = (K + 3) / 4;
        ASSERT_GE(bytes, (kq * 4 + 4) * N) << v.name << " K=" << K << " N=" << N;
        ASSERT_LE(bytes, (kq * 4 + 4) * (N + 31)) << v.name << " K=" << K << " N=" << N;
        ASSERT_EQ(bytes % 64, 0u) << v.name << " K=" << K << " N=" << N;
      }
    EXPECT_EQ(v.size(0, 16), 0u) << v.name;
  }
  if (variants.size() > 1) {
    // The last flavour listed is the one the table prefers (AVX512-VNNI over AVX-VNNI).
    EXPECT_EQ(variants[0].size, variants.back().size);
    EXPECT_EQ(variants[0].pack, variants.back().pack);
    EXPECT_EQ(variants[0].run, variants.back().run);
  } else if (!variants.empty()) {
    EXPECT_EQ(variants[0].size(64, 64), 0u) << "a table without a dot-product igemm has no packed form";
  }
}

// Prepacked against the scalar igemm on odd shapes and every signedness, on one thread and split
// over two (floors lowered so that small products split; both along rows and along columns).
TEST(KernelsIgemm, PrepackedMatchesScalarOnOddShapesAndThreads) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable*) {
    const std::vector<PackedVariant> variants = packed_igemms();
    for (unsigned threads : {1u, 2u}) {
      k::ThreadsScope scope(threads);
      k::ParallelFloorsScope floors(8, 1);
      unsigned seed = 500;
      for (size_t M : {1, 2, 5, 6, 7, 13, 40, 121})
        for (size_t N : {1, 15, 16, 17, 33, 64, 530})
          for (size_t K : {1, 3, 8, 255, 513, 1030})
            for (int sign = 0; sign < 4; ++sign) {
              if (M * N * K > 3000000) continue;
              IgemmCase c = make_case(M, N, K, sign & 1, sign & 2, seed++);
              const auto want = run(k::scalar_table(), c);
              for (const PackedVariant& v : variants)
                ASSERT_EQ(run_prepacked(v, c), want) << v.name << " threads=" << threads << " M=" << M << " N=" << N
                                                     << " K=" << K << " signs=" << sign;
            }
    }
  });
}

// The values the flip turns into 0 (B's zero point 128 for uint8, 0 for int8: the row sums of A are
// skipped) and the extremes at K = 33025, prepacked.
TEST(KernelsIgemm, PrepackedZeroPointsAndExtremesMatchOracle) {
  const std::vector<PackedVariant> variants = packed_igemms();
  unsigned seed = 700;
  for (bool as : {false, true})
    for (bool bs : {false, true}) {
      IgemmCase c = make_case(13, 37, 577, as, bs, seed++);
      std::fill(c.zb.begin(), c.zb.end(), bs ? 0 : 128);
      const auto want = oracle(c);
      for (const PackedVariant& v : variants) EXPECT_EQ(run_prepacked(v, c), want) << v.name << " as=" << as << " bs=" << bs;
    }
  IgemmCase c = make_case(3, 18, 33025, false, true, 99);
  for (size_t p = 0; p < c.K; ++p) {
    c.A[p] = 0;
    c.A[c.lda + p] = 0xff;
    c.A[2 * c.lda + p] = p % 2 ? 0 : 0xff;
    for (size_t j = 0; j < c.N; ++j) c.B[p * c.ldb + j] = j % 2 ? 0x80 : 0x7f;
  }
  c.za = {255, 0, 128};
  for (size_t j = 0; j < c.N; ++j) c.zb[j] = j % 2 ? 127 : -128;
  const auto want = oracle(c);
  EXPECT_EQ(want[0], -2147450625);
  for (const PackedVariant& v : variants) EXPECT_EQ(run_prepacked(v, c), want) << v.name;
}

TEST(KernelsIgemm, EmptyKZeroesTheOutput) {
  std::vector<Variant> all = simd_igemms();
  all.push_back({"scalar", k::scalar_table().igemm});
  for (const Variant& v : all) {
    IgemmCase c = make_case(4, 20, 0, false, true, 5);
    auto C = run(v.fn, c);
    for (size_t i = 0; i < c.M; ++i)
      for (size_t j = 0; j < c.ldc; ++j) EXPECT_EQ(C[i * c.ldc + j], j < c.N ? 0 : 0x5a5a5a5a) << v.name;
  }
}

TEST(KernelsIgemm, DepthwiseRowMatchesOracle) {
  std::mt19937 rng(17);
  std::vector<int16_t> plane(4096);
  for (auto& v : plane) v = static_cast<int16_t>(static_cast<int>(rng() % 511) - 255);
  plane[0] = -255;
  for (size_t ntaps : {1, 2, 3, 9, 25, 64, 65, 81})  // past 64 the AVX2 kernel makes its tap pairs per step
    for (size_t stride : {1, 2, 3})
      for (size_t n : {1, 7, 16, 17, 40}) {
        std::vector<int16_t> taps(ntaps);
        std::vector<const int16_t*> rows(ntaps);
        for (size_t t = 0; t < ntaps; ++t) {
          taps[t] = static_cast<int16_t>(static_cast<int>(rng() % 511) - 255);
          rows[t] = plane.data() + rng() % 3000;
        }
        std::vector<int32_t> want(n), got(n);
        for (size_t j = 0; j < n; ++j) {
          int64_t s = 0;
          for (size_t t = 0; t < ntaps; ++t) s += int64_t{taps[t]} * rows[t][j * stride];
          want[j] = static_cast<int32_t>(s);
        }
        k::scalar_table().dw_row_i16(rows.data(), taps.data(), ntaps, stride, n, got.data());
        ASSERT_EQ(got, want) << "scalar taps=" << ntaps << " stride=" << stride << " n=" << n;
        if (const k::KernelTable* simd = k::simd_table()) {
          simd->dw_row_i16(rows.data(), taps.data(), ntaps, stride, n, got.data());
          ASSERT_EQ(got, want) << simd->isa << " taps=" << ntaps << " stride=" << stride << " n=" << n;
        }
      }
}

// The rows of a real KH x KW window (tap (kh, kw) at kh * W + kw: a tap's row is the previous
// one's moved by one element within a kernel row, which the stride-2 kernels may read with one
// load), dilated or not, over strides 1 and 2 and lengths around the vector widths.
TEST(KernelsIgemm, DepthwiseRowOfAWindowMatchesOracle) {
  std::mt19937 rng(23);
  constexpr size_t W = 150;
  std::vector<int16_t> plane(W * 10);  // the tallest window (5 rows, dilation 2) reaches row 8
  for (auto& v : plane) v = static_cast<int16_t>(static_cast<int>(rng() % 511) - 255);
  for (size_t kh : {1, 3, 5})
    for (size_t kw : {1, 2, 3, 5})
      for (size_t dil : {1, 2})
        for (size_t stride : {1, 2})
          for (size_t n : {1, 15, 16, 17, 31, 32, 33, 47, 64, 65}) {
            // The last element any tap reads stays inside the plane.
            ASSERT_LT((kh - 1) * dil * W + (kw - 1) * dil + (n - 1) * stride, plane.size());
            std::vector<int16_t> taps(kh * kw);
            std::vector<const int16_t*> rows(kh * kw);
            for (size_t a = 0; a < kh; ++a)
              for (size_t b = 0; b < kw; ++b) {
                taps[a * kw + b] = static_cast<int16_t>(static_cast<int>(rng() % 511) - 255);
                rows[a * kw + b] = plane.data() + a * dil * W + b * dil;
              }
            std::vector<int32_t> want(n), got(n, 7);
            for (size_t j = 0; j < n; ++j) {
              int64_t s = 0;
              for (size_t t = 0; t < taps.size(); ++t) s += int64_t{taps[t]} * rows[t][j * stride];
              want[j] = static_cast<int32_t>(s);
            }
            std::vector<const k::KernelTable*> tables = k::simd_tables();
            tables.insert(tables.begin(), &k::scalar_table());
            for (const k::KernelTable* table : tables) {
              std::fill(got.begin(), got.end(), 7);
              table->dw_row_i16(rows.data(), taps.data(), taps.size(), stride, n, got.data());
              ASSERT_EQ(got, want) << table->isa << " window " << kh << "x" << kw << " dilation " << dil
                                   << " stride " << stride << " n " << n;
            }
          }
}

// Values that exercise rounding ties, saturation, infinities and NaN.
std::vector<float> special_floats() {
  std::vector<float> v = {0.f, -0.f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 127.5f, 128.5f, -128.5f, 254.5f, 255.5f,
                          1e9f, -1e9f, 3e38f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                          8388609.f, 16777217.f, 4194304.5f};
  auto r = ofg::test::rnd(301, -400.f, 400.f, 11);
  v.insert(v.end(), r.begin(), r.end());
  return v;
}

TEST(KernelsQuant, QuantizeReference) {
  const float x[] = {0.5f, 1.5f, 2.5f, -3.5f, 300.f, -300.f, std::nanf("")};
  uint8_t y[7];
  k::scalar_table().quantize_u8(x, 7, 1.f, 1.f, true, y);
  const int8_t want_s[] = {1, 3, 3, -3, 127, -128, 0};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(static_cast<int8_t>(y[i]), want_s[i]) << i;
  k::scalar_table().quantize_u8(x, 7, 0.5f, 10.f, false, y);
  const uint8_t want_u[] = {11, 13, 15, 3, 255, 0, 0};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(y[i], want_u[i]) << i;
}

TEST(KernelsQuant, SimdQuantizeMatchesScalar) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const auto x = special_floats();
    for (float scale : {1.f, 0.37f, 3e-3f, 1e-30f})
      for (float zero : {0.f, 3.f, 128.f, -128.f, 255.f})
        for (bool s : {false, true}) {
          std::vector<uint8_t> a(x.size()), b(x.size());
          simd->quantize_u8(x.data(), x.size(), scale, zero, s, a.data());
          k::scalar_table().quantize_u8(x.data(), x.size(), scale, zero, s, b.data());
          ASSERT_EQ(a, b) << simd->isa << " scale=" << scale << " zero=" << zero << " signed=" << s;
        }
  });
}

TEST(KernelsQuant, DequantizeMatchesScalarAndFormula) {
  std::vector<uint8_t> x(259);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 7 + 3);
  for (bool s : {false, true})
    for (int32_t zero : {0, 17, -128, 255}) {
      std::vector<float> a(x.size()), b(x.size());
      k::scalar_table().dequantize_u8(x.data(), x.size(), s, zero, 0.0137f, b.data());
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(b[i], static_cast<float>(byte_value(x[i], s) - zero) * 0.0137f);
      if (const k::KernelTable* simd = k::simd_table()) {
        simd->dequantize_u8(x.data(), x.size(), s, zero, 0.0137f, a.data());
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << simd->isa;
      }
    }
}

TEST(KernelsQuant, RequantizeMatchesScalar) {
  std::mt19937 rng(21);
  std::vector<int32_t> acc = {0, 1, -1, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
                              100, -100, 50, 150, 250, 350};
  for (int i = 0; i < 500; ++i) acc.push_back(static_cast<int32_t>(rng() % 200001) - 100000);
  // Around +-2^23, where the SIMD version changes from float to double lanes, in whole vectors
  // of 8 and mixed.
  for (int32_t edge : {(1 << 23) - 4, -(1 << 23) - 4, (1 << 24) - 4})
    for (int32_t d = 0; d < 8; ++d) acc.push_back(edge + d);
  for (int i = 0; i < 64; ++i) acc.push_back(static_cast<int32_t>(rng() % (1 << 25)) - (1 << 24));
  // Ties: with multiplier 0.5 odd accumulators land on .5 and must round to even.
  {
    uint8_t y[3];
    const int32_t a[3] = {1, 3, 5};
    k::scalar_table().requantize_u8(a, 3, 0.0, 0.5, 0, false, y);
    EXPECT_EQ(y[0], 0);
    EXPECT_EQ(y[1], 2);
    EXPECT_EQ(y[2], 2);
  }
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const double inf = std::numeric_limits<double>::infinity();
    // Float multipliers (the float lanes) and others (double lanes only); biases below and at 2^23.
    for (double mult : {0.5, 0.0013, 1.7e-5, static_cast<double>(0.1f), static_cast<double>(3.7e-4f),
                        static_cast<double>(1e-30f), 31.5, 40.0, -0.75, inf, std::nan("")})
      for (double bias : {0.0, -1234.0, 70000.0, 8388607.0, -8388608.0, 9e6})
        for (int32_t zero : {0, 128, -128, 5})
          for (bool s : {false, true})
            // From 0, and from past the int32 extremes so that whole blocks of 32 small values follow.
            for (size_t from : {size_t{0}, size_t{11}}) {
              const size_t n = acc.size() - from;
              std::vector<uint8_t> a(n), b(n);
              simd->requantize_u8(acc.data() + from, n, bias, mult, zero, s, a.data());
              k::scalar_table().requantize_u8(acc.data() + from, n, bias, mult, zero, s, b.data());
              ASSERT_EQ(a, b) << simd->isa << " mult=" << mult << " bias=" << bias << " zero=" << zero << " from " << from;
            }
  });
}

}  // namespace
