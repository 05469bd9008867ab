// The kernel-table entries that kernels/simd/ implements once for every SIMD table: SGEMM,
// Conv2D (direct, packed, Winograd, depthwise) and 2-D pooling. An ISA folder instantiates them
// with its Isa struct from one translation unit compiled with its flags (avx2/blocked.cpp,
// neon/blocked.cpp) and its table fill calls that unit's set_blocked_entries.
#pragma once

#include "kernels/simd/conv_blocked.h"
#include "kernels/simd/gemm_blocked.h"
#include "kernels/simd/pool.h"

namespace ofg::kernels::simd {

// SGEMM (with its packed-B form), Conv2D and N-D convolution: the work that grows with the vector width.
template <class Isa>
void conv_nd(const ConvNdParams& p, const float* x, const float* w, float* y) {
  conv_nd_gemm(Isa::table(), p, x, w, y);
}

template <class Isa>
void set_gemm_conv_entries(KernelTable& t) {
  t.sgemm = sgemm<Isa>;
  t.sgemm_packed_b_size = sgemm_packed_b_size<Isa>;
  t.sgemm_pack_b = sgemm_pack_b<Isa>;
  t.sgemm_prepacked_b = sgemm_prepacked_b<Isa>;
  t.conv2d = conv2d<Isa>;
  t.conv2d_packed_size = conv2d_packed_size<Isa>;
  t.conv2d_pack = conv2d_pack<Isa>;
  t.conv2d_prepacked = conv2d_prepacked<Isa>;
  t.conv_nd = conv_nd<Isa>;
}

// Every entry of this file. (The AVX-512 table takes only set_gemm_conv_entries: its pooling
// was slower than AVX2's on the narrow planes of real networks, see README.)
template <class Isa>
void set_blocked_entries(KernelTable& t) {
  set_gemm_conv_entries<Isa>(t);
  t.max_pool2d = max_pool2d<Isa>;
  t.avg_pool2d = avg_pool2d<Isa>;
}

}  // namespace ofg::kernels::simd
