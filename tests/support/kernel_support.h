// Helpers shared by the kernel tests: every SIMD table or a skip, seeded random inputs.
#pragma once
#include <gtest/gtest.h>

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

}  // namespace ofg::test
