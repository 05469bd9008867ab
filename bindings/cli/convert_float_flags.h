// The precision-conversion flags shared by `convert` and `optimize` (--to-float16, --to-bfloat16,
// --convert-io, --block-ops, --block-nodes, --no-verify) and the call they make.
#pragma once
#include <string>
#include <vector>

#include "cli.h"

namespace cli {

// A function, not a global: the commands build their option tables from it during static
// initialisation, whose order across files is unspecified.
const std::vector<OptionSpec>& convert_float_specs();
// True when --to-float16 or --to-bfloat16 was given.
bool wants_convert_float(const ParsedArgs& p);
// Checks the flags and sets the "convert.*" options; kOk or kUsage (after printing why).
int apply_convert_float_options(const char* command, const ParsedArgs& p, ofg_options* o);
// Runs ofg_convert_float on m and prints what stayed float32; the report's JSON goes to *json.
// Returns kOk, kCheckFailed (no mixed-precision model verified: m unchanged) or kUsage.
int run_convert_float(const char* command, ofg_model* m, const ofg_options* o, std::string* json);

}  // namespace cli
