// Real inputs for verification, read from the files and folders the caller named, nothing else.
#pragma once
#include <cstdint>
#include <map>
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

// The sizes the first given set's tensors give to the symbolic dims `reference` declares for
// them, added to `dims` where it has none: inputs drawn beside given ones then take the same sizes
// (one size per symbol is what the model declares, and what the run checks). A size in `dims`
// (verify.dim.NAME) that a given tensor contradicts is Status::kInvalidArgument.
void dims_of_given(const Model& reference, const std::vector<GivenInputs>& sets, std::map<std::string, int64_t>& dims);

}  // namespace ofg::verify
