// Value checks shared by the interpreter tests: a runtime value's elements as doubles and their
// comparison with expected numbers.
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "exec/tensor.h"

namespace ofg::test {

inline std::vector<double> values(const exec::RValue& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.t.numel(); ++i) out.push_back(exec::get_f64(v.t, i));
  return out;
}

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

}  // namespace ofg::test
