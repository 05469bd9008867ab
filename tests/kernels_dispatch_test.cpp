// Which kernel tables dispatch offers: every SIMD table this CPU runs, narrowest first, the
// widest preferred unless ONNXFORGE_FORCE_ISA names another (ctest runs this file once more with
// ONNXFORGE_FORCE_ISA=avx2); the AVX-512 table keeps the AVX2 entries it does not override.
#include "kernels/kernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace k = ofg::kernels;

namespace {

std::vector<std::string> simd_names() {
  std::vector<std::string> v;
  for (const k::KernelTable* t : k::simd_tables()) v.push_back(t->isa);
  return v;
}

}  // namespace

TEST(KernelsDispatch, PreferredTableHonoursForceIsa) {
  const auto& tables = k::simd_tables();
  if (tables.empty()) GTEST_SKIP() << "this CPU has no SIMD kernel table";
  const char* force = std::getenv("ONNXFORGE_FORCE_ISA");
  const k::KernelTable* want = tables.back();
  for (const k::KernelTable* t : tables)
    if (force && std::string(force) == t->isa) want = t;
  EXPECT_EQ(k::simd_table(), want) << "ONNXFORGE_FORCE_ISA=" << (force ? force : "(unset)");
}

#if defined(__x86_64__)
TEST(KernelsDispatch, X86TablesFollowCpuFeatures) {
  // libgcc's feature bits, an independent reading of cpuid and XCR0.
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  std::vector<std::string> want;
  if (avx2) want.push_back("avx2");
  if (avx512) want.push_back("avx512");
  EXPECT_EQ(simd_names(), want);
  if (!avx512) GTEST_SKIP() << "this CPU (or its OS) lacks AVX-512 F/DQ/BW/VL: no AVX-512 table to check";
  const k::KernelTable& a2 = *k::simd_tables()[0];
  const k::KernelTable& a5 = *k::simd_tables()[1];
  // Overridden: the entries a 16-lane vector speeds up.
  EXPECT_NE(a5.sgemm, a2.sgemm);
  EXPECT_NE(a5.sgemm_prepacked_b, a2.sgemm_prepacked_b);
  EXPECT_NE(a5.conv2d, a2.conv2d);
  EXPECT_NE(a5.conv2d_prepacked, a2.conv2d_prepacked);
  EXPECT_NE(a5.sgemv, a2.sgemv);
  EXPECT_NE(a5.unary, a2.unary);
  EXPECT_NE(a5.softmax, a2.softmax);
  EXPECT_NE(a5.layer_norm, a2.layer_norm);
  // Kept from the AVX2 table: integer GEMM (with its VNNI choice), conversions, hashing, and the
  // float entries that measured no faster with zmm (memory-bound ones, pooling, transposes).
  EXPECT_EQ(a5.igemm, a2.igemm);
  EXPECT_EQ(a5.f16_to_f32, a2.f16_to_f32);
  EXPECT_EQ(a5.quantize_u8, a2.quantize_u8);
  EXPECT_EQ(a5.hash_bytes, a2.hash_bytes);
  EXPECT_EQ(a5.binary_vv, a2.binary_vv);
  EXPECT_EQ(a5.reduce, a2.reduce);
  EXPECT_EQ(a5.transpose2d, a2.transpose2d);
  EXPECT_EQ(a5.max_pool2d, a2.max_pool2d);
  EXPECT_EQ(a5.diff, a2.diff);
}
#endif
