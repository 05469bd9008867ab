// Verification: inputs the reference model accepts (real data first, else seeded inputs whose
// dims and integer values are derived from the graph), both models executed on them, and
// per-output differences.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exec/interp.h"

namespace ofg::verify {

using NamedValues = std::vector<std::pair<std::string, exec::RValue>>;

// One set of inputs given by the caller (a test_data_set_N folder, or files named per input).
// Inputs a set lacks are drawn as seeded inputs would be.
struct GivenInputs {
  NamedValues values;
  std::string source;  // where they came from, for the report
};

struct Options {
  uint32_t samples = 1;
  uint64_t seed = 0;
  double atol = 1e-4;
  double rtol = 1e-3;
  // Sizes for symbolic dims by name (both models get the same inputs, so this fixes both).
  std::map<std::string, int64_t> dims;
  // Whole shapes of graph inputs by name (the shapes an optimize run fixed with
  // optimize.input_shapes, so the reference gets inputs of the shapes the candidate declares).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Size tried first for a dim nothing fixes; other sizes the graph suggests follow when the
  // reference model rejects it.
  int64_t default_dim = 2;
  // Integer inputs that do not index a table or meet a constant are drawn from [0, int_high).
  int64_t int_high = 4;
  // Real data: when not empty, one sample per set (samples is then ignored).
  std::vector<GivenInputs> given;
  // How many candidate input sets may be tried before giving up with kNoValidInputs.
  int max_tries = 32;
  // Called after each sample compared (done = samples compared, total = samples) and after each
  // candidate input set the reference rejected (done unchanged); false cancels (kCancelled).
  std::function<bool(uint32_t done, uint32_t total)> progress;
  // Notable events (a candidate input set rejected, the inputs chosen): level 1 info, 2 warning.
  std::function<void(int level, const std::string& message)> log;
};

// An input of the first sample, as the report names it.
struct InputInfo {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> shape;
  std::string source;  // "seed N", "file ...", "test data ..."
};

struct OutputDiff {
  std::string name;
  double max_abs = 0, max_rel = 0;
  size_t mismatches = 0, worst_index = 0, elements = 0;
  // Flat index of the first element outside tolerance, in the first sample that had one
  // (meaningful only when mismatches > 0).
  size_t first_mismatch = 0;
  std::string problem;  // "" when compared; else why it could not be (missing, type, shape)
  bool passed() const { return problem.empty() && mismatches == 0; }
};

// Compares actual against expected (shapes and element types must agree). Floats: an element
// matches when |a - e| <= atol + rtol * |e|; NaN matches NaN, +Inf matches +Inf and -Inf matches
// -Inf, anything else against NaN or Inf is a mismatch. Integers and bools must be equal.
inline constexpr const char* kCompareRule =
    "|a - e| <= atol + rtol * |e|; NaN matches NaN, +Inf matches +Inf, -Inf matches -Inf; integers and bools exactly";
OutputDiff compare(const exec::RTensor& actual, const exec::RTensor& expected, double atol, double rtol);

struct Report {
  std::vector<OutputDiff> outputs;  // worst over the samples, one per reference output
  std::vector<InputInfo> inputs;    // of the first sample
  std::string note;                 // how the inputs were chosen
  uint32_t samples = 0;
  double atol = 0, rtol = 0;
  bool passed = true;
  // The whole report as one JSON object (always valid JSON: non-finite numbers are null with a
  // "<field>_nonfinite" sibling).
  std::string to_json() const;
};

// Throws Error(kNoValidInputs) when no input set the reference accepts could be built, with
// the dims and values tried; errors of the candidate model propagate as they are.
Report verify_models(Model& reference, Model& candidate, const Options& o);

}  // namespace ofg::verify
