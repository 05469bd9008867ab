// Helpers shared by the kernel tests: the SIMD table or a skip, seeded random inputs.
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/kernels.h"

// Declares `simd`, the SIMD kernel table, or skips the test when this CPU has none.
#define SIMD_OR_SKIP()                                                          \
  const ofg::kernels::KernelTable* simd = ofg::kernels::simd_table();           \
  if (!simd) GTEST_SKIP() << "this CPU has no SIMD kernel table (AVX2+FMA+F16C / NEON)"

namespace ofg::test {

// n floats drawn uniformly from [lo, hi) with `seed`.
inline std::vector<float> rnd(size_t n, float lo = -1.f, float hi = 1.f, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace ofg::test
