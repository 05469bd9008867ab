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

// The first two inputs of a Loop body (iteration number, condition), which the tests' bodies
// never read but for the condition; returns the condition.
inline Value* loop_inputs(GraphBuilder& body) {
  body.input("i", kInt64, {});
  return body.input("c", kBool, {});
}

// An If on a constant true condition choosing between the two branch graphs.
inline Node* if_true(GraphBuilder& b, Graph* then_g, Graph* else_g, uint32_t outputs = 1) {
  uint8_t one = 1;
  Value* c = b.initializer("cond", kBool, {}, &one, 1);
  return b.node("If", {c}, outputs, {b.g("then_branch", then_g), b.g("else_branch", else_g)});
}

}  // namespace ofg::test
