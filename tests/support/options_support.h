// Options objects for C-ABI tests.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "onnxforge.h"

namespace ofg::test {

// Options holding the given values (each must be accepted); the caller frees them.
inline ofg_options* options_with(std::initializer_list<std::pair<const char*, const char*>> values) {
  ofg_options* o = nullptr;
  EXPECT_EQ(ofg_options_create(&o), OFG_OK);
  for (const auto& kv : values) EXPECT_EQ(ofg_options_set(o, kv.first, kv.second), OFG_OK) << kv.first;
  return o;
}

// ofg_save with options holding the given values (freed before returning; ofg_last_error() still
// tells a failure).
inline ofg_status save_with(ofg_model* m, const std::string& path,
                            std::initializer_list<std::pair<const char*, const char*>> values) {
  ofg_options* o = options_with(values);
  ofg_status s = ofg_save(m, path.c_str(), o);
  ofg_options_free(o);
  return s;
}

}  // namespace ofg::test
