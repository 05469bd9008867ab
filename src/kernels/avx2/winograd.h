// Winograd F(m x m, 3x3) convolution (winograd.cpp), used by the AVX2 conv2d entries for the
// shapes where it applies. Included only by files compiled with AVX2/FMA flags.
#pragma once

#include "kernels/internal.h"

namespace ofg::kernels::avx2 {
// 3x3, stride 1, dilation 1, group 1, and enough channels for the transforms to pay off.
// Depends only on fields that conv2d_packed_size may look at (not on H or W).
bool winograd_applies(const Conv2DParams& p);
size_t winograd_packed_size(const Conv2DParams& p);
void winograd_pack(const Conv2DParams& p, const float* w, float* packed);
void winograd_conv(const Conv2DParams& p, const float* x, const float* packed, float* y);
}  // namespace ofg::kernels::avx2
