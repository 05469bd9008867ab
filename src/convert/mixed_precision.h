// Precision conversion with proof: convert (float_precision.h), verify against the float32
// original by execution, and when the outputs drift beyond tolerance, find the nodes whose
// conversion causes it and keep them float32; repeat until the result verifies.
#pragma once
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "convert/float_precision.h"
#include "verify/verify.h"

namespace ofg::convert {

// Default tolerances of the verification (atol and rtol alike, on the float32 outputs compared
// with the float32 original's), per target type: about 20 rounding steps of the target's
// precision (float16 eps 2^-10, bfloat16 eps 2^-7) accumulated through a network. The caller's
// verify.atol / verify.rtol replace them.
inline constexpr double kFloat16Tolerance = 1e-2;
inline constexpr double kBfloat16Tolerance = 1.5e-1;

struct ConvertOptions {
  int32_t target = kFloat16;
  bool keep_io_types = true;
  std::set<std::string> block_ops, block_nodes;  // forced float32 by the caller
  bool verify = true;
  // Attribution rounds before giving up (OFG_ERR_VERIFY_FAILED). The growth keeps double each round
  // (2, 4, ..., 1024): 10 rounds reach every node of the shared models (llama_tiny_dirty float16
  // verifies in round 10, efficientnet_b0_dirty float16 on its real data in round 10).
  int max_rounds = 10;
  verify::Options vo;  // inputs (given or drawn), dims, samples; tolerances set from the target
  std::function<void(int, const std::string&)> log;
};

struct ConvertReport {
  std::vector<KeptNode> kept;
  std::vector<Clamped> clamped;
  PrecisionResult last;
  bool verified = false;  // false also when verification was not asked for
  int rounds = 0;         // conversions made (1 + attribution rounds)
  verify::Report verify;  // the final verification (empty without verify)
  double atol = 0, rtol = 0;
  std::string to_json(int32_t target, bool keep_io_types) const;
};

// The converted model, made from a snapshot of `original` (so it reads `original`'s bytes: the
// caller keeps `original` alive, e.g. with keep_alive). Throws Error(kVerifyFailed) when no
// mixed-precision model verified within max_rounds (the report says what was tried).
std::unique_ptr<Model> convert_float(const Model& original, const ConvertOptions& o, ConvertReport& report);

}  // namespace ofg::convert
