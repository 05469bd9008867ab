// When default-domain ops appeared or were replaced, for the ops introduced after opset 7 or
// removed since: an op at a target opset outside its range needs an adapter (a lowering, a
// rename), else the conversion fails naming it.
#pragma once
#include <cstdint>
#include <string_view>

namespace ofg::convert {

struct OpRange {
  int64_t since;  // first opset with the op
  int64_t until;  // last opset with it (INT64_MAX: still in the newest)
};

// The range of a default-domain op; {1, INT64_MAX} for ops that exist at every opset from 7 on.
OpRange op_range(std::string_view op);

}  // namespace ofg::convert
