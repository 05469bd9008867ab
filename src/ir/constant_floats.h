// A Constant node's value_float / value_floats attribute read as values and dims, for the
// conversions that turn it into a `value` tensor of another element type (float16 conversion,
// the float64 referee model).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ofg {

// false (values and dims untouched) when `name`, the attribute's name, is neither; value_float
// gives one value and no dims (a scalar), value_floats its values and one dim.
template <typename T>
bool constant_float_values(std::string_view name, const Attribute& a, std::vector<T>& values, std::vector<int64_t>& dims) {
  if (name == "value_float") {
    values.push_back(a.f);
    return true;
  }
  if (name != "value_floats") return false;
  for (float f : a.floats) values.push_back(f);
  dims.push_back(static_cast<int64_t>(values.size()));
  return true;
}

}  // namespace ofg
