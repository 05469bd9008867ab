// Helpers for the pass tests: run one pass and check the IR after it, count ops, read tensors.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/graph_ops.h"
#include "passes/pass.h"
#include "passes/util.h"
#include "support/model_test.h"

namespace ofg::test {

inline passes::PassStats run_checked(Model& m, const char* name) {
  const passes::PassInfo* p = passes::find_pass(name);
  EXPECT_NE(p, nullptr) << name;
  if (!p) return {};
  passes::PassStats s = passes::run_pass(m, *p);
  EXPECT_EQ(check_consistency(m), "") << "after " << name;
  return s;
}

// A new model at `opset` whose main graph `body(b)` builds.
template <class Body>
std::unique_ptr<Model> model_of(int64_t opset, Body body) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  body(b);
  return m;
}

// What a pass test starts with: the model `build` makes, with `pass` and then `cleanup` (if any) run
// on it, beside a second build left untouched to compare outputs with; `changes` is what `pass`
// reported.
struct BuiltAndRun {
  std::unique_ptr<Model> m, ref;
  int64_t changes;
};
template <class Build>
BuiltAndRun run_on_built(Build build, const char* pass, const char* cleanup = nullptr) {
  BuiltAndRun r{build(), build(), 0};
  r.changes = run_checked(*r.m, pass).changes;
  if (cleanup) run_checked(*r.m, cleanup);
  return r;
}

inline int count_op(Graph* g, const char* op) {
  int n = 0;
  for (Node* k = g->first; k; k = k->next)
    if (g->model->str(k->op_type) == op) ++n;
  return n;
}

inline std::vector<float> floats_of(const Tensor* t) {
  std::vector<float> v(t ? t->data.size / 4 : 0);
  if (!v.empty()) std::memcpy(v.data(), t->bytes().data, v.size() * 4);
  return v;
}

inline std::vector<int64_t> ints_attr(Model& m, Node* n, const char* name) {
  std::vector<int64_t> v;
  attr_ints(m, n, name, v);
  return v;
}

// n values start, start + step, ... (weights with distinct, predictable entries).
inline std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// The nth node (from 0) of op type `op` in the main graph, or null.
inline Node* find_op(Model& m, const char* op, size_t nth = 0) {
  for (Node* n = m.graph->first; n; n = n->next)
    if (passes::is_op(m, n, op) && nth-- == 0) return n;
  return nullptr;
}

}  // namespace ofg::test

// Every pass test reads the IR types and these helpers unqualified.
using namespace ofg;        // NOLINT(build/namespaces)
using namespace ofg::test;  // NOLINT(build/namespaces)
