// The demo model and option checks for the C-ABI tests.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "onnxforge.h"

namespace ofg::test {

// ofg_model_create_demo's model (null, with a test failure, when it fails); the caller frees it.
inline ofg_model* demo_model() {
  ofg_model* m = nullptr;
  EXPECT_EQ(ofg_model_create_demo(&m), OFG_OK) << ofg_last_error();
  return m;
}

// ofg_options_set refuses key=value as an invalid argument, its message holding `says`.
inline void expect_option_refused(ofg_options* o, const char* key, const char* value, const char* says = "") {
  EXPECT_EQ(ofg_options_set(o, key, value), OFG_ERR_INVALID_ARGUMENT) << key << "=" << value;
  EXPECT_NE(std::string(ofg_last_error()).find(says), std::string::npos) << ofg_last_error();
}

}  // namespace ofg::test
