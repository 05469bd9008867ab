// What a model declares about its values (graph inputs, outputs, value_info), as opposed to what
// its nodes compute: the input shapes a user fixes before optimizing, and the declarations kept
// true after the passes changed the graph. Not passes: they rewrite no node, and the C API calls
// them around the pipeline.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace ofg::declarations {

// "NAME=1,3,224,224;NAME2=..." as (name, dims) pairs, in order. Fails (kInvalidArgument) on an
// entry that is not NAME=d1,d2,... with decimal dims.
std::vector<std::pair<std::string, std::vector<int64_t>>> parse_input_shapes(const std::string& spec);
// Applies "NAME=1,3,224,224" (entries separated by ';') to the graph inputs: each named input
// gets that static shape (ranks must match; already static dims must agree).
void fix_input_shapes(Model& m, const std::string& spec);

// Drops the value_info entries (every graph) of values that nothing defines any more: passes
// remove nodes, and a saved model must not declare values it does not have. Returns how many.
size_t drop_stale_value_info(Model& m);
// After input shapes were fixed: shapes are inferred again, and the declared graph outputs and
// value_info entries take every dim inference proved static where they left it open.
void refresh_declared_shapes(Model& m);

}  // namespace ofg::declarations
