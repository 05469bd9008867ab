// Helpers shared by the interpreter tests: runtime values from literal shapes and numbers.
#pragma once
#include <algorithm>
#include <random>
#include <vector>

#include "exec/tensor.h"

namespace ofg::test {

// A tensor value of element type `dtype` (whose C++ type is T) holding `values`.
template <class T>
exec::RValue tensor_value(int32_t dtype, exec::Shape shape, const std::vector<T>& values) {
  exec::RTensor t = exec::RTensor::alloc(dtype, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<T>());
  return exec::RValue::tensor(t);
}
inline exec::RValue tensor_f(exec::Shape s, std::vector<float> v) { return tensor_value(kFloat, std::move(s), v); }
inline exec::RValue i64_tensor(exec::Shape s, std::vector<int64_t> v) { return tensor_value(kInt64, std::move(s), v); }

// n floats drawn uniformly from [-1, 1) by rng (the caller seeds it and draws several arrays in turn).
inline std::vector<float> uniform_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace ofg::test
