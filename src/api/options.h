// Turning ofg_options into the internal option structs, shared by the C ABI files.
#pragma once
#include <functional>
#include <string>

#include "api/handles.h"
#include "exec/tensor.h"
#include "kernels/parallel.h"
#include "verify/verify.h"

namespace ofg::api {

// The "verify.*" keys (samples, seed, atol, rtol, int_high, dim.NAME); `caller` names the
// function in error messages.
verify::Options verify_options(const ofg_options* options, const char* caller);
// The caller's progress and log callbacks as hooks for the pipeline and verification (empty
// functions when not set).
std::function<bool(uint32_t done, uint32_t total)> progress_hook(const ofg_options* options);
std::function<void(int level, const std::string& message)> log_hook(const ofg_options* options);
// Real inputs named by "verify.test_data" (a test_data_set_N folder, or a folder of them) and
// "verify.input.NAME" (one .pb file per input), read by verify::read_given_inputs.
std::vector<verify::GivenInputs> given_inputs(const ofg_options* options, const Model& reference, const char* caller);
// given_inputs into o.given, and the sizes they give symbolic dims into o.dims (where the caller
// fixed none), so that inputs drawn beside given ones agree with them.
void add_given_inputs(const ofg_options* options, const Model& reference, const char* caller, verify::Options& o);

// "run.max_tensor_bytes" (0 when not set: the default budget), for the RunScope around every
// call that runs ops (ofg_run*, ofg_verify, ofg_optimize, ofg_run_pass).
size_t tensor_budget(const ofg_options* options);

// "run.threads": threads for the ops of one call (0 when not set: the machine's cores).
unsigned run_threads(const ofg_options* options);

// What every call that runs ops sets on its thread for its duration: the tensor budget and the
// intra-op thread count (both thread-local, so concurrent calls keep their own).
class RunScope {
 public:
  explicit RunScope(const ofg_options* options)
      : budget_(tensor_budget(options)), threads_(run_threads(options)) {}

 private:
  exec::TensorBudgetScope budget_;
  kernels::ThreadsScope threads_;
};

// --- precision conversion (ofg_convert_float, src/api/api_convert_float.cpp)
// True for the "convert.*" keys ofg_convert_float reads.
bool is_convert_float_option(const char* key);
// Checks their values when set (fails with kInvalidArgument naming the key).
void validate_convert_float_option(const std::string& key, const std::string& v);

}  // namespace ofg::api
