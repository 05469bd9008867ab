// The float32 inner loop of Resize (exec/ops/resize.cpp), kept in a file of its own so that it
// is compiled for speed while the rest of resize.cpp (coordinates, taps, other types) is compiled
// for size.
#pragma once
#include <cstdint>
#include <vector>

namespace ofg::exec {

// Resamples x (outer, in, inner) along its middle axis into y (outer, out, inner), out =
// first.size() - 1: output o sums w[k] * input idx[k] for k in [first[o], first[o + 1]), in
// float, in that order (zero weights skipped).
void resize_axis_f32(const float* x, float* y, int64_t outer, int64_t in, int64_t inner, const std::vector<int64_t>& first,
                     const std::vector<int64_t>& idx, const std::vector<double>& weights);

}  // namespace ofg::exec
