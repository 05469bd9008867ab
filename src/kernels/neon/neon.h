// The entries of the kernel table that the NEON table overrides (the others stay scalar): the
// names are declared here with their types from kernels/kernel_list.h and set by table.cpp,
// which also sets the GEMM, convolution and pooling entries from the shared templates of
// kernels/simd/ (set_blocked_entries: sgemm, conv2d, conv2d_packed_size, conv2d_pack,
// conv2d_prepacked, max_pool2d, avg_pool2d).
// The files of this folder are compiled for aarch64 and for 32-bit ARM with NEON (each is empty
// without __ARM_NEON); entries that 32-bit ARM cannot do exactly fall back to the scalar
// reference inside the NEON function (see isa.h).
#pragma once

#include "kernels/internal.h"

#define OFG_NEON_KERNELS(X)                                                                      \
  X(binary_vv) X(binary_vs) X(binary_sv) X(unary) X(reduce) X(softmax) X(layer_norm)              \
  X(transpose2d) X(hash_bytes) X(bytes_equal) X(diff_f32) X(f16_to_f32) X(f32_to_f16)             \
  X(bf16_to_f32) X(f32_to_bf16)

namespace ofg::kernels::neon {
#define OFG_DECLARE_KERNEL(name) fn::name name;
OFG_NEON_KERNELS(OFG_DECLARE_KERNEL)
#undef OFG_DECLARE_KERNEL
void set_blocked_entries(KernelTable& t);  // blocked.cpp
}  // namespace ofg::kernels::neon
