// The float32 fast path of Attention (opset 23/24); attention.cpp calls it first.
#pragma once
#include "exec/interp.h"

namespace ofg::exec {

// attn_mask's shape aligned to (B, H, Sq, T) by numpy rules: the size of each of the four axes
// (1 where the mask has none) and its element stride (0 on a broadcast axis). False when the mask
// has more than four axes or one of B, H, Sq it cannot broadcast to (its last axis may be shorter
// than T: the columns past it are masked).
bool mask_layout(const Shape& mask, int64_t B, int64_t H, int64_t Sq, int64_t dim[4], int64_t stride[4]);

// Runs the node when its inputs are float32 (mask float32 or bool) and the qk_matmul_output
// output is not asked for; false, having set nothing, otherwise or when the inputs do not fit
// together (the double-precision walk then runs and reports what is wrong).
bool attention_f32(OpCtx& c);

}  // namespace ofg::exec
