// Verification of a rewritten copy of the caller's model, shared by the entry points that rewrite
// a copy and keep it only when it computes what the model as given computes (ofg_legalize_for_target,
// ofg_convert_opset).
#pragma once
#include <string>

#include "api/handles.h"
#include "ir/ir.h"

namespace ofg::api {

// Runs `original` and `copy` side by side (the "verify.*" options and given inputs of `options`).
// An output that differs fails with kVerifyFailed: "<fn>: the <described> differs from the
// original: output 'NAME': ..."; a model the verifier cannot run fails with kUnsupported: "<fn>:
// the <noun> cannot be verified ...". Both say that the caller's model is unchanged. Returns
// "verified by execution (max abs diff D)".
std::string verify_rewritten_copy(const ofg_options* options, const char* fn, Model& original, Model& copy,
                                  const std::string& noun, const std::string& described);

}  // namespace ofg::api
