// Toy-graph tests build the same model twice (a builder function), run a pass on one and check
// with verify::verify_models that it still computes what the untouched one computes.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "ir/builder.h"
#include "verify/verify.h"

namespace ofg::test {

using ModelFn = std::function<std::unique_ptr<Model>()>;

inline void expect_same_outputs(Model& reference, Model& candidate, std::map<std::string, int64_t> dims = {}) {
  verify::Options o;
  o.samples = 2;
  o.dims = std::move(dims);
  verify::Report r = verify::verify_models(reference, candidate, o);
  for (const verify::OutputDiff& d : r.outputs)
    EXPECT_TRUE(d.passed()) << d.name << ": " << d.problem << " max abs " << d.max_abs;
  EXPECT_TRUE(r.passed);
}

}  // namespace ofg::test
