// A gtest fixture for the IR-level tests: a fresh opset-13 model and a builder on its main graph,
// which is what most pass and interpreter tests start from. A suite takes it by name:
// `using PassCse = test::ModelTest;` then `TEST_F(PassCse, ...)`. A test that needs another opset
// declares its own `m` and `b`, which hide these.
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "ir/builder.h"

namespace ofg::test {

class ModelTest : public ::testing::Test {
 protected:
  std::unique_ptr<Model> m = new_model(13);
  GraphBuilder b{*m};
};

}  // namespace ofg::test
