// The float32 fast path of Attention (opset 23/24); attention.cpp calls it first.
#pragma once
#include "exec/interp.h"

namespace ofg::exec {

// Runs the node when its inputs are float32 (mask float32 or bool) and the qk_matmul_output
// output is not asked for; false, having set nothing, otherwise or when the inputs do not fit
// together (the double-precision walk then runs and reports what is wrong).
bool attention_f32(OpCtx& c);

}  // namespace ofg::exec
