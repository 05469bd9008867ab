// Helpers shared by the kernel tests: every SIMD table or a skip, seeded random inputs.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.h"

namespace ofg::test {

// Calls body(table) for every SIMD kernel table this CPU runs (AVX2 and AVX-512 on such an
// x86-64, NEON on ARM), under a trace naming the table, or skips the test when there is none.
template <class Body>
void for_each_simd(Body body) {
  const auto& tables = ofg::kernels::simd_tables();
  if (tables.empty()) GTEST_SKIP() << "this CPU has no SIMD kernel table (AVX2+FMA+F16C / NEON)";
  for (const ofg::kernels::KernelTable* t : tables) {
    SCOPED_TRACE(std::string("kernel table ") + t->isa);
    body(t);
  }
}

// n floats drawn uniformly from [lo, hi) with `seed`.
inline std::vector<float> rnd(size_t n, float lo = -1.f, float hi = 1.f, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A 64-byte aligned area of n floats inside `buf` (resized to hold it), as packed operands need.
inline float* aligned_floats(std::vector<float>& buf, size_t n) {
  buf.assign(n + 16, 0.f);
  const size_t skip = (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64 / sizeof(float);
  return buf.data() + skip;
}

// got equals want to within atol + rtol * |want| at every index; a NaN must meet a NaN and an
// infinity the same infinity (so atol = rtol = 0 asks for equal values, -0 == +0).
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want, float atol, float rtol,
                         const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " at " << i << ": got " << got[i] << " want NaN";
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

}  // namespace ofg::test
