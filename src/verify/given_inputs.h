// Real inputs for verification, read from the files and folders the caller named, nothing else.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "verify/verify.h"

namespace ofg::verify {

// `test_data`: a test_data_set_N folder (input_K.pb is graph input K) or a folder of them, ""
// for none; `input_files`: (graph input name, .pb file) pairs, added to every set or, without
// test data, one set of their own. Parsed as `reference`'s inputs are declared; `caller` starts
// error messages.
std::vector<GivenInputs> read_given_inputs(const Model& reference, const std::string& test_data,
                                           const std::vector<std::pair<std::string, std::string>>& input_files,
                                           const char* caller);

}  // namespace ofg::verify
