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
  // Tolerances of float32 outputs (and of every output when set by the caller: atol_set,
  // rtol_set); see tolerance_for for half-precision outputs.
  double atol = 1e-4;
  double rtol = 1e-3;
  bool atol_set = false, rtol_set = false;
  // When an output fails its tolerance, the reference is evaluated in float64 (referee.h) and
  // the candidate is judged against that exact answer too.
  bool float64_referee = true;
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
  double atol = 0, rtol = 0;  // the tolerances applied to this output (tolerance_for)
  // The float64 referee (referee.h), consulted when elements were outside tolerance:
  // "" not consulted, "accepted", "rejected", or "unavailable: WHY" (the plain rule then stands).
  std::string referee;
  bool referee_used = false;        // referee is "accepted" or "rejected"
  size_t outside_tolerance = 0;     // elements outside tolerance before the referee judged them
  double ref_err64 = 0, cand_err64 = 0;  // max |reference - exact|, max |candidate - exact|
  size_t ref_over64 = 0, cand_over64 = 0;  // elements outside tolerance of the exact answer
  bool passed() const { return problem.empty() && mismatches == 0; }
};

// Compares actual against expected (shapes and element types must agree). Floats: an element
// matches when |a - e| <= atol + rtol * |e|; NaN matches NaN, +Inf matches +Inf and -Inf matches
// -Inf, anything else against NaN or Inf is a mismatch. Integers and bools must be equal.
inline constexpr const char* kCompareRule =
    "|a - e| <= atol + rtol * |e|; NaN matches NaN, +Inf matches +Inf, -Inf matches -Inf; integers and bools exactly";
OutputDiff compare(const exec::RTensor& actual, const exec::RTensor& expected, double atol, double rtol);

// The tolerances for an output of element type `dtype`. A tolerance the caller set applies as
// given to every output. One not set is the default of the output's type, in units of its own
// precision: float16 2^-9 (two machine epsilons, 2 * 2^-10) for both atol and rtol, bfloat16 2^-6
// (2 * 2^-7); every other type (float32, float64) atol 1e-4, rtol 1e-3, which are about 8000
// float32 epsilons (2^-23) and would fail a half-precision output on one rounding step.
struct Tolerance {
  double atol, rtol;
};
Tolerance tolerance_for(int32_t dtype, const Options& o);
inline constexpr const char* kToleranceRule =
    "atol/rtol as set apply to every output; defaults: float16 2^-9 both, bfloat16 2^-6 both, others atol 1e-4 "
    "rtol 1e-3; an output outside tolerance passes when the float64 referee finds it at least as close to x (the "
    "reference evaluated in float64) as the reference e: max|a - x| <= max|e - x| and "
    "#{|a - x| > atol + rtol*|x|} <= #{|e - x| > atol + rtol*|x|}";

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
