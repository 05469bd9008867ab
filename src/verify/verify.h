// Verification: seeded random inputs that fit each model input, both models executed on them,
// and per-output differences.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exec/interp.h"

namespace ofg::verify {

struct Options {
  uint32_t samples = 1;
  uint64_t seed = 0;
  double atol = 1e-4;
  double rtol = 1e-3;
  // Sizes for symbolic dims by name; a symbolic or unknown dim not listed gets default_dim.
  std::map<std::string, int64_t> dims;
  int64_t default_dim = 2;
  // Integer inputs that do not index a Gather table are drawn from [0, int_high).
  int64_t int_high = 4;
};

// Inputs for every graph input without a default: float N(0,1), integer ids bounded by the size
// of the Gather table they index (axis dim of the data), other integers in [0, int_high), bool
// masks with p = 0.5. Same seed, same model -> same inputs.
std::vector<std::pair<std::string, exec::RValue>> make_inputs(Model& m, const Options& o, uint64_t seed);

struct OutputDiff {
  std::string name;
  double max_abs = 0, max_rel = 0;
  size_t mismatches = 0, worst_index = 0, elements = 0;
  std::string problem;  // "" when compared; else why it could not be (missing, type, shape)
  bool passed() const { return problem.empty() && mismatches == 0; }
};

// Compares actual against expected (any element types are compared as float32 values; shapes
// and element types must agree).
OutputDiff compare(const exec::RTensor& actual, const exec::RTensor& expected, double atol, double rtol);

struct Report {
  std::vector<OutputDiff> outputs;  // worst over the samples, one per reference output
  bool passed = true;
};

Report verify_models(Model& reference, Model& candidate, const Options& o);

}  // namespace ofg::verify
