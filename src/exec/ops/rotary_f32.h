// The float32 fast path of RotaryEmbedding (opset 23); attention.cpp calls it for float32 input
// and caches, and its double walk stays the reference the tests compare with.
#pragma once
#include <cstdint>
#include <vector>

#include "exec/interp.h"

namespace ofg::exec {

// The rotation of the layout attention.cpp has checked: x is (B, H, S, D) when `bhsd`, else
// (B, S, H*D); cos/sin are (rows, cache_w) with cache row `crow[b * S + s]` (every one in range)
// for position (b, s); the first 2 * half values of each head's row are rotated (as halves, or as
// even/odd pairs when `interleaved`), the rest copied. Same roundings as the walk: each output is
// a*c - b*s or b*c + a*s in float.
struct RotaryF32 {
  int64_t B = 0, S = 0, H = 0, D = 0, half = 0, cache_w = 0;
  bool bhsd = true, interleaved = false;
};
RTensor rotary_f32(const RotaryF32& g, const RTensor& x, const float* cos, const float* sin, const std::vector<int64_t>& crow);

}  // namespace ofg::exec
