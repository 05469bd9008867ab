// Lifting 1-D convolutions and pools to 2-D for targets that take them on 4-D tensors only:
// x [N, C, L] becomes [N, C, 1, L] (Unsqueeze), the node works on a 1 x k window (weights
// [M, C/g, 1, k], kernel_shape/strides/dilations with a leading 1, pads with a leading 0 at each
// end), and its output [N, M, 1, L'] is squeezed back: the same values, each output element
// reading the same inputs.
#pragma once
#include <string>

#include "convert/adapter.h"

namespace ofg::targets {

// Rewrites c.n (Conv, MaxPool, AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool) when its
// input 0 is known to be rank 3; sets c.what. Returns null when done or when the input is not
// rank 3, else why not.
const char* lift_1d_to_2d(convert::AdaptCtx& c, const std::string& label);

}  // namespace ofg::targets
