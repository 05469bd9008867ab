// Turning ofg_options into the internal option structs, shared by the C ABI files.
#pragma once
#include "api/handles.h"
#include "verify/verify.h"

namespace ofg::api {

// The "verify.*" keys (samples, seed, atol, rtol, int_high, dim.NAME); `caller` names the
// function in error messages.
verify::Options verify_options(const ofg_options* options, const char* caller);

// "run.max_tensor_bytes" (0 when not set: the default budget), for an exec::TensorBudgetScope
// around every call that runs ops (ofg_run*, ofg_verify, ofg_optimize, ofg_run_pass).
size_t tensor_budget(const ofg_options* options);

}  // namespace ofg::api
